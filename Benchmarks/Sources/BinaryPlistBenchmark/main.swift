// Save and load of a 100k-object binary store (10 attributes per object) with Strata's own
// bplist00 writer and reader, against Python's plistlib dumping and loading the very same
// property list, and Foundation's PropertyListSerialization for reference.
//
//     swift run -c release --package-path Benchmarks BinaryPlistBenchmark [objects] [runs] [--strata-only]
//
// Times are the median of `runs` runs (plistlib and Foundation: of fewer, they are slow); each
// save writes a new file (no fsync, as in AtomicStore's format step), each load reads the file
// from the page cache into a whole store.

import Foundation
import Strata
import StrataBinaryPlist

var arguments = CommandLine.arguments.dropFirst()
/// `--strata-only` skips Python and Foundation (for profiling).
let strataOnly = arguments.contains("--strata-only")
arguments.removeAll { $0 == "--strata-only" }
let objectCount = arguments.first.flatMap { Int($0) } ?? 100_000
let runs = arguments.dropFirst().first.flatMap { Int($0) } ?? 5

let schemaJSON = """
{
  "name": "Benchmark",
  "entities": [
    {
      "name": "Customer",
      "attributes": [
        { "name": "name",     "type": "string" },
        { "name": "email",    "type": "string" },
        { "name": "age",      "type": "int16" },
        { "name": "visits",   "type": "int64" },
        { "name": "score",    "type": "double" },
        { "name": "ratio",    "type": "float" },
        { "name": "active",   "type": "bool" },
        { "name": "joinedAt", "type": "date" },
        { "name": "token",    "type": "uuid" },
        { "name": "balance",  "type": "decimal" }
      ]
    }
  ]
}
"""

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark: \(message)\n".utf8))
    exit(1)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Wall-clock and CPU seconds of `body`. Both are reported: the machine may be shared, and CPU
/// time is what another process's load disturbs least.
struct Timing {
    var wall: Double
    var cpu: Double
}

func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func time(_ body: () throws -> Void) rethrows -> Timing {
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = cpuSeconds()
    try body()
    return Timing(wall: seconds(clock.now - start), cpu: cpuSeconds() - cpuStart)
}

func median(_ timings: [Timing]) -> Timing {
    Timing(wall: median(timings.map(\.wall)), cpu: median(timings.map(\.cpu)))
}

// MARK: - The store

let schema: Schema
do {
    schema = try Schema(data: Data(schemaJSON.utf8))
} catch {
    fail("\(error)")
}
// Object IDs come from a coordinator, as an app's do.
let coordinator = PersistentStoreCoordinator(schema: schema)
let memoryStore: any PersistentStore
do {
    memoryStore = try coordinator.addStore(.inMemory())
} catch {
    fail("\(error)")
}
var generator = SystemRandomNumberGenerator()
var records: [ObjectID: StoreRecord] = [:]
records.reserveCapacity(objectCount)
let joined = Date(timeIntervalSince1970: 1_600_000_000)
for key in 1...objectCount {
    let id: ObjectID
    do {
        id = try coordinator.objectID(entityName: "Customer", primaryKey: Int64(key))
    } catch {
        fail("\(error)")
    }
    let name = key % 10 == 0 ? "Zoë Ångström №\(key)" : "Customer \(key)"
    records[id] = StoreRecord(objectID: id, attributes: [
        "name": .string(name),
        "email": .string("customer\(key)@example.com"),
        "age": .integer(Int64.random(in: 18...99, using: &generator)),
        "visits": .integer(Int64.random(in: 0...1_000_000_000_000, using: &generator)),
        "score": .double(Double.random(in: 0...1000, using: &generator)),
        "ratio": .float(Float.random(in: 0...1, using: &generator)),
        "active": .bool(key % 3 != 0),
        "joinedAt": .date(joined.addingTimeInterval(Double(key) * 37.125)),
        "token": .uuid(UUID()),
        "balance": .decimal(Decimal(key * 7919 % 1_000_000) / 100),
    ], version: 1)
}
let contents = AtomicStoreContents(
    metadata: StoreMetadata(newStoreOf: .binaryPlist, schema: schema, identifier: memoryStore.metadata.storeIdentifier),
    records: ["Customer": records], keySequences: ["Customer": Int64(objectCount)])

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bplist-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let url = directory.appendingPathComponent("store.plist")
let format = BinaryPlistStoreFormat()

// MARK: - Strata

var saves: [Timing] = []
var loads: [Timing] = []
do {
    for run in 0..<runs {
        saves.append(try time { try format.write(contents, to: url) })
        var loaded: AtomicStoreContents?
        loads.append(try time { loaded = try format.read(from: url) })
        if run == 0, loaded?.records != contents.records { fail("the store did not read back as written") }
    }
} catch {
    fail("\(error)")
}
let fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0

// MARK: - Python's plistlib

let pythonScript = #"""
import plistlib, statistics, sys, time
path, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
loads, dumps, loads_cpu, dumps_cpu = [], [], [], []
for _ in range(runs):
    start, cpu = time.perf_counter(), time.process_time()
    with open(path, "rb") as f:
        plist = plistlib.load(f)
    loads.append(time.perf_counter() - start)
    loads_cpu.append(time.process_time() - cpu)
    start, cpu = time.perf_counter(), time.process_time()
    with open(out, "wb") as f:
        plistlib.dump(plist, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
    dumps.append(time.perf_counter() - start)
    dumps_cpu.append(time.process_time() - cpu)
    del plist
m = statistics.median
print(m(dumps), m(loads), m(dumps_cpu), m(loads_cpu), sys.version.split()[0])
"""#

func python() -> (save: Timing, load: Timing, version: String)? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["-c", pythonScript, url.path, directory.appendingPathComponent("python.plist").path, String(max(1, runs / 2))]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    let numbers = fields.prefix(4).compactMap(Double.init)
    guard process.terminationStatus == 0, fields.count == 5, numbers.count == 4 else { return nil }
    return (Timing(wall: numbers[0], cpu: numbers[2]), Timing(wall: numbers[1], cpu: numbers[3]), fields[4])
}

// MARK: - Foundation's PropertyListSerialization (reference)

func foundation() -> (save: Timing, load: Timing)? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    var plist: Any?
    let load = time { plist = try? PropertyListSerialization.propertyList(from: data, format: nil) }
    guard let plist else { return nil }
    let out = directory.appendingPathComponent("foundation.plist")
    let save = time {
        let bytes = try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try? bytes?.write(to: out)
    }
    return (save, load)
}

// MARK: - Report

let ours = (save: median(saves), load: median(loads))
let theirs = strataOnly ? nil : python()
let reference = strataOnly ? nil : foundation()

func cell(_ value: Timing) -> String { String(format: "%8.3f s (%7.3f s)", value.wall, value.cpu) }
func ratio(_ a: Timing, _ b: Timing) -> String { String(format: "%8.1f×   (%6.1f×)", a.wall / b.wall, a.cpu / b.cpu) }

print("Binary store: \(objectCount) objects × 10 attributes, file \(String(format: "%.1f", Double(fileSize) / 1_048_576)) MiB")
print("median of \(runs) runs (plistlib \(max(1, runs / 2)), Foundation 1); wall clock, CPU time in parentheses")
print("")
print("| writer / reader                      | save                   | load                   |")
print("|--------------------------------------|------------------------|------------------------|")
print("| Strata BinaryPlistStoreFormat        | \(cell(ours.save)) | \(cell(ours.load)) |")
if let theirs {
    print("| Python \(theirs.version) plistlib".padding(toLength: 39, withPad: " ", startingAt: 0) + "| \(cell(theirs.save)) | \(cell(theirs.load)) |")
    print("| plistlib ÷ Strata (target ≥ 2×)      | \(ratio(theirs.save, ours.save)) | \(ratio(theirs.load, ours.load)) |")
} else if !strataOnly {
    print("| Python plistlib                      | python3 not found      |                        |")
}
if let reference {
    print("| Foundation PropertyListSerialization | \(cell(reference.save)) | \(cell(reference.load)) |")
    print("| Foundation ÷ Strata                  | \(ratio(reference.save, ours.save)) | \(ratio(reference.load, ours.load)) |")
}
