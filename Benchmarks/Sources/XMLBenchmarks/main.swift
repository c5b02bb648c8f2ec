import CLibXML2Bench
import Foundation
import Strata
import StrataXML

// Save and load of 100,000 objects of ten attributes in Strata's XML store, next to the floor
// each could reach: a raw libxml2 SAX2 parse of the same file (callbacks that only count), and
// a plain buffered write of the same bytes.

let objectCount = Int(ProcessInfo.processInfo.environment["OBJECTS"] ?? "") ?? 100_000
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 5

let schemaJSON = """
    {
      "name": "Usage",
      "entities": [
        {
          "name": "Event",
          "attributes": [
            { "name": "name",     "type": "string" },
            { "name": "detail",   "type": "string", "optional": true },
            { "name": "count",    "type": "int32" },
            { "name": "serial",   "type": "int64" },
            { "name": "value",    "type": "double" },
            { "name": "ratio",    "type": "float" },
            { "name": "flag",     "type": "bool" },
            { "name": "at",       "type": "date" },
            { "name": "token",    "type": "uuid" },
            { "name": "price",    "type": "decimal" }
          ]
        }
      ]
    }
    """

/// The records, with IDs made the public way (by a coordinator with the store open) and values
/// laid out by the entity, as a store's records are (as in StrataBenchmarks).
func makeContents(_ schema: Schema, store url: URL) throws -> AtomicStoreContents {
    var types = StoreTypeRegistry()
    types.register(XMLStoreFactory())
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
    let store = try coordinator.addStore(StoreDescription(type: .xml, url: url))
    var contents = AtomicStoreContents(metadata: store.metadata, keySequences: ["Event": Int64(objectCount)])
    var events: [ObjectID: StoreRecord] = [:]
    events.reserveCapacity(objectCount)
    let layout = schema.entity(named: "Event")!.attributeLayout
    for key in 1...Int64(objectCount) {
        let id = try coordinator.objectID(entityName: "Event", primaryKey: key)
        var values = AttributeValues(layout: layout)
        values["name"] = .string("event \(key)")
        values["detail"] = .string(key % 7 == 0 ? "needs <escaping> & more" : "plain text of a typical length")
        values["count"] = .integer(key % 1000)
        values["serial"] = .integer(key * 1_000_003)
        values["value"] = .double(Double(key) / 7)
        values["ratio"] = .float(Float(key) / 3)
        values["flag"] = .bool(key % 2 == 0)
        values["at"] = .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(key) * 0.001))
        values["token"] = .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llX", key))!)
        values["price"] = .decimal(Decimal(key) / 100)
        events[id] = StoreRecord(objectID: id, attributes: values)
    }
    contents.records["Event"] = events
    return contents
}

/// CPU time of this process (user and system), in seconds: on a shared machine wall-clock time
/// measures the neighbours too. Everything measured here runs on one thread.
func processCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The best of `runs` timings, in seconds of CPU time.
func measure(_ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = processCPUTime()
        try body()
        best = min(best, processCPUTime() - start)
    }
    return best
}

// MARK: - Baselines

/// Parses with libxml2's SAX2 parser and callbacks that only count elements and text bytes.
func rawSAXParse(_ path: String) -> (elements: Int, textBytes: Int) {
    final class Counts { var elements = 0; var textBytes = 0 }
    let counts = Counts()
    var handler = xmlSAXHandler()
    handler.initialized = UInt32(XML_SAX2_MAGIC)
    handler.startElementNs = { context, _, _, _, _, _, _, _, _ in
        Unmanaged<Counts>.fromOpaque(context!).takeUnretainedValue().elements += 1
    }
    handler.characters = { context, _, length in
        Unmanaged<Counts>.fromOpaque(context!).takeUnretainedValue().textBytes += Int(length)
    }
    let result = xmlSAXUserParseFile(&handler, Unmanaged.passUnretained(counts).toOpaque(), path)
    precondition(result == 0, "libxml2 failed to parse \(path)")
    return (counts.elements, counts.textBytes)
}

/// Writes `bytes` to a new file through a 1 MiB buffer, in the pieces a writer would hand over
/// (64 bytes at a time), so that only the copying and the system calls are measured.
func plainBufferedWrite(_ bytes: [UInt8], to path: String) {
    guard let file = fopen(path, "w") else { fatalError("cannot create \(path)") }
    setvbuf(file, nil, _IOFBF, 1 << 20)
    bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let count = min(64, buffer.count - offset)
            fwrite(buffer.baseAddress! + offset, 1, count, file)
            offset += count
        }
    }
    fclose(file)
}

// MARK: - Run

let schema = try Schema(data: Data(schemaJSON.utf8))
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-xml-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let url = directory.appendingPathComponent("events.xml")
let contents = try makeContents(schema, store: url)
let format = XMLStoreFormat()

// PROFILE=read or PROFILE=write repeats one side only, for `perf record`.
if let mode = ProcessInfo.processInfo.environment["PROFILE"] {
    try format.write(contents, to: url)
    for _ in 0..<10 {
        if mode == "read" { _ = try format.read(from: url) } else { try format.write(contents, to: url) }
    }
    exit(0)
}

let save = try measure { try format.write(contents, to: url) }
let bytes = Array(try Data(contentsOf: url))
let plainPath = directory.appendingPathComponent("plain.xml").path
let plain = measure { plainBufferedWrite(bytes, to: plainPath) }
// The previous result is released before each run, outside the timing.
var loaded: AtomicStoreContents?
var load = Double.infinity
for _ in 0..<runs {
    loaded = nil
    let start = processCPUTime()
    loaded = try format.read(from: url)
    load = min(load, processCPUTime() - start)
}
precondition(loaded?.recordCount == objectCount)
var counted = (elements: 0, textBytes: 0)
let raw = measure { counted = rawSAXParse(url.path) }

// A whole atomic save as a store does it: temporary file, fsync, rename, fsync of the directory
// (setting a metadata key rewrites the store). Wall-clock time, since it waits for the disk.
let store = try AtomicStoreFactory(format: format).open(url: url, schema: schema, configurationName: nil, options: [:])
var atomicSave = Double.infinity
for run in 0..<runs {
    let start = ContinuousClock.now
    try store.setCustomMetadata(["run": String(run)])
    let elapsed = ContinuousClock.now - start
    atomicSave = min(atomicSave, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

func row(_ name: String, _ seconds: Double, _ baseline: Double? = nil) -> String {
    let time = String(format: "%8.3f s", seconds)
    let ratio = baseline.map { String(format: "%6.2f×", seconds / $0) } ?? "       "
    return "| \(name.padding(toLength: 48, withPad: " ", startingAt: 0)) | \(time) | \(ratio) |"
}

print("\(objectCount) objects × 10 attributes, \(bytes.count / 1_000_000) MB of XML, \(counted.elements) elements; best of \(runs) runs, CPU time")
print("| what                                             |       time | ratio   |")
print("| ------------------------------------------------ | ---------- | ------- |")
print(row("plain buffered write of the same bytes", plain))
print(row("XMLStoreFormat.write", save, plain))
print(row("raw libxml2 SAX2 parse (counting callbacks)", raw))
print(row("XMLStoreFormat.read (SAX2 → records)", load, raw))
print(row("atomic save with fsync and rename (wall clock)", atomicSave))
