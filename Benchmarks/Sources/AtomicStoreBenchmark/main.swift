// Save and open of a library-shaped atomic store (issue 12's data set: N books, N/10 authors,
// N/100 publishers, 50 genres, 3 ordered chapters on every sixth book; both sides of every
// relationship) in the binary property-list and the XML stores: what the end of a
// `strata load` and every later open of the store pay.
//
//     swift run -c release AtomicStoreBenchmark [--books N] [--runs R] [--only binary|xml]
//         [--phase encode|save|decode|open] [--keep DIR] [--from DIR]
//
// The schema is Benchmarks/Data/Library.json (LIBRARY_SCHEMA overrides the path). For each
// store type it times, best of R, wall and CPU:
// - encode: the format's `write` alone (encode and write a file, no fsync);
// - save: what a context's save of every record (as inserts into a new, empty store) asks of
//   the store: `uniquenessViolations`, then `save` (applying the changeset, the uniqueness
//   check, encode, write, fsync, rename);
// - decode: the format's `read` alone;
// - open: a coordinator's `addStore` on the saved file (read, check, publish);
// and the peak resident memory each step added (VmHWM, reset through /proc/self/clear_refs).
// `--phase` repeats one step (for perf); `--keep` copies the store files into DIR (to time
// Python's plistlib and ElementTree on the same files); `--from` decodes and opens the files
// `--keep` kept instead of making new ones.

import Foundation
import Strata
import StrataBinaryPlist
import StrataXML

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AtomicStoreBenchmark: \(message)\n".utf8))
    exit(1)
}

var options: [String: String] = [:]
do {
    var arguments = CommandLine.arguments.dropFirst()
    while let flag = arguments.popFirst() {
        guard flag.hasPrefix("--"), let value = arguments.popFirst() else { fail("usage: [--books N] [--runs R] [--only binary|xml] [--phase encode|save|decode|open] [--keep DIR] [--from DIR]") }
        options[String(flag.dropFirst(2))] = value
    }
}
let books = options["books"].flatMap { Int($0) } ?? 30_000
let runs = options["runs"].flatMap { Int($0) } ?? 3
let phase = options["phase"]
let kinds = options["only"].map { [$0] } ?? ["binary", "xml"]

// MARK: - Measuring

func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

struct Timing {
    var wall = Double.infinity
    var cpu = Double.infinity
    /// Peak resident bytes above the resident bytes at the start, over the runs.
    var peakGrowth = 0

    mutating func add(_ body: () throws -> Void) rethrows {
        let before = residentBytes("VmRSS")
        resetPeak()
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = cpuSeconds()
        try body()
        let cpuUsed = cpuSeconds() - cpuStart
        let elapsed = clock.now - start
        wall = min(wall, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        cpu = min(cpu, cpuUsed)
        peakGrowth = max(peakGrowth, residentBytes("VmHWM") - before)
    }
}

/// A line of /proc/self/status, in bytes.
func residentBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// Resets VmHWM to the current resident size (Linux ≥ 4.0).
func resetPeak() {
    if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
        handle.write(Data("5".utf8))
        try? handle.close()
    }
}

// MARK: - The data

let schemaPath = ProcessInfo.processInfo.environment["LIBRARY_SCHEMA"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Data/Library.json").path
let schema: Schema
do {
    schema = try Schema(data: Data(contentsOf: URL(fileURLWithPath: schemaPath)))
} catch {
    fail("cannot load the schema at \(schemaPath): \(error) (set LIBRARY_SCHEMA)")
}

var types = StoreTypeRegistry()
types.register(BinaryPlistStoreFactory())
types.register(XMLStoreFactory())

/// Deterministic pseudo-random numbers (splitmix64), so that every run writes the same file.
struct Mixer {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

let words = ["river", "night", "glass", "garden", "winter", "silent", "house", "empire", "shadow", "letter",
             "ocean", "forest", "iron", "paper", "crown", "stone", "Zoë", "café", "Ångström", "naïve"]

/// Every record of the library, as a context's save hands them to a store: both sides of every
/// relationship, IDs of `store`.
func libraryRecords(_ coordinator: PersistentStoreCoordinator) throws -> [StoreRecord] {
    var mixer = Mixer(state: 42)
    func phrase(_ count: Int) -> String { (0..<count).map { _ in words[mixer.next(words.count)] }.joined(separator: " ") }
    func id(_ entity: String, _ key: Int) throws -> ObjectID { try coordinator.objectID(entityName: entity, primaryKey: Int64(key)) }
    let (authorCount, publisherCount, genreCount) = (max(1, books / 10), max(1, books / 100), 50)
    func layout(_ entity: String) -> AttributeValues.Layout { schema.entity(named: entity)!.attributeLayout }
    var authors = try (1...authorCount).map { key in
        var values = AttributeValues(layout: layout("Author"))
        values["name"] = .string("Author \(key) \(phrase(2))")
        values["country"] = .string(["France", "Norway", "Japan", "Brazil", "Kenya"][key % 5])
        if key % 7 != 0 { values["born"] = .integer(Int64(1900 + key % 100)) }
        return StoreRecord(objectID: try id("Author", key), attributes: values, toMany: ["books": []])
    }
    var publishers = try (1...publisherCount).map { key in
        var values = AttributeValues(layout: layout("Publisher"))
        values["name"] = .string("Publisher \(key)")
        values["city"] = .string(["Paris", "Oslo", "Tokyo", "São Paulo", "Nairobi"][key % 5])
        return StoreRecord(objectID: try id("Publisher", key), attributes: values, toMany: ["books": []])
    }
    var genres = try (1...genreCount).map { key in
        var values = AttributeValues(layout: layout("Genre"))
        values["name"] = .string("Genre \(key)")
        return StoreRecord(objectID: try id("Genre", key), attributes: values, toMany: ["books": []])
    }
    var result: [StoreRecord] = []
    var chapterKey = 0
    let epoch = Date(timeIntervalSince1970: 0)
    for key in 1...books {
        let book = try id("Book", key)
        var values = AttributeValues(layout: layout("Book"))
        values["title"] = .string("The \(phrase(3))")
        values["isbn"] = .string("978-\(1_000_000_000 + key)")
        values["year"] = .integer(Int64(1900 + mixer.next(125)))
        values["pages"] = .integer(Int64(50 + mixer.next(900)))
        values["price"] = .decimal(Decimal(sign: .plus, exponent: -2, significand: Decimal(mixer.next(10_000))))
        values["rating"] = .double(Double(mixer.next(50_000)) / 10_000)
        values["published"] = .date(epoch.addingTimeInterval(Double(mixer.next(1_700_000_000))))
        values["summary"] = .string(phrase(28))
        values["inPrint"] = .bool(mixer.next(3) != 0)
        var record = StoreRecord(objectID: book, attributes: values)
        let author = mixer.next(authorCount)
        record.toOne["author"] = authors[author].objectID
        authors[author].toMany["books", default: []].append(book)
        let publisher = mixer.next(publisherCount)
        record.toOne["publisher"] = publishers[publisher].objectID
        publishers[publisher].toMany["books", default: []].append(book)
        var bookGenres: [Int] = []
        for _ in 0..<(1 + mixer.next(3)) {
            let genre = mixer.next(genreCount)
            if !bookGenres.contains(genre) { bookGenres.append(genre) }
        }
        record.toMany["genres"] = bookGenres.map { genres[$0].objectID }
        for genre in bookGenres { genres[genre].toMany["books", default: []].append(book) }
        var chapters: [ObjectID] = []
        if key % 6 == 0 {
            for number in 1...3 {
                chapterKey += 1
                let chapter = try id("Chapter", chapterKey)
                var values = AttributeValues(layout: layout("Chapter"))
                values["title"] = .string("Chapter \(number): \(phrase(2))")
                values["number"] = .integer(Int64(number))
                values["words"] = .integer(Int64(1000 + mixer.next(9000)))
                result.append(StoreRecord(objectID: chapter, attributes: values, toOne: ["book": book]))
                chapters.append(chapter)
            }
        }
        record.toMany["chapters"] = chapters
        result.append(record)
    }
    return authors + publishers + genres + result
}

// MARK: - Run

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-atomic-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

print("Atomic stores: \(books) books; best of \(runs); wall ms / CPU ms, MB/s of file by wall time, peak RSS growth")
print("")
print("| store | objects | file MiB | encode | save | decode | open | save peak MiB | open peak MiB |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for kind in kinds {
    let type: StoreType = kind == "xml" ? .xml : .binaryPlist
    let format: any AtomicStoreFormat = kind == "xml" ? XMLStoreFormat() : BinaryPlistStoreFormat()
    let url = directory.appendingPathComponent("library.\(kind == "xml" ? "xml" : "plist")")
    var encode = Timing(), save = Timing(), decode = Timing(), open = Timing()
    var objects = 0
    do {
        for run in 0..<runs {
            if let from = options["from"] {
                // A file kept by --keep: only decode and open are measured.
                if run == 0 {
                    try FileManager.default.copyItem(at: URL(fileURLWithPath: from).appendingPathComponent(url.lastPathComponent), to: url)
                    objects = try format.read(from: url).recordCount
                }
            } else {
                try? FileManager.default.removeItem(at: url)
                let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
                let store = try coordinator.addStore(StoreDescription(type: type, url: url))
                let records = try libraryRecords(coordinator)
                objects = records.count
                // What a context's save asks of the store: the uniqueness check, then the save.
                func checkAndSave() throws {
                    let changes = StoreChangeset(inserted: records)
                    guard store.uniquenessViolations(changes).isEmpty else { fail("the library breaks a uniqueness constraint") }
                    _ = try store.save(changes, beforeCommit: {})
                }
                if phase == nil || phase == "save" {
                    try save.add(checkAndSave)
                } else if run == 0 {
                    try checkAndSave()
                }
                if phase == nil || phase == "encode" {
                    let contents = (store as! AtomicStore).snapshot
                    let scratch = directory.appendingPathComponent("scratch")
                    try encode.add { try format.write(contents, to: scratch) }
                    try? FileManager.default.removeItem(at: scratch)
                }
                coordinator.removeStore(store)
            }
            if phase == nil || phase == "decode" {
                var read: AtomicStoreContents?
                try decode.add { read = try format.read(from: url) }
                if run == 0, read?.recordCount != objects { fail("read \(read?.recordCount ?? 0) of \(objects) records") }
            }
            if phase == nil || phase == "open" {
                let reader = PersistentStoreCoordinator(schema: schema, storeTypes: types)
                try open.add { _ = try reader.addStore(StoreDescription(type: type, url: url)) }
            }
        }
    } catch {
        fail("\(error)")
    }
    if let keep = options["keep"] {
        let copy = URL(fileURLWithPath: keep).appendingPathComponent(url.lastPathComponent)
        try? FileManager.default.removeItem(at: copy)
        try? FileManager.default.copyItem(at: url, to: copy)
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    func cell(_ timing: Timing) -> String {
        guard timing.wall.isFinite else { return "–" }
        return String(format: "%.0f / %.0f (%.0f MB/s)", timing.wall * 1000, timing.cpu * 1000, Double(size) / 1e6 / timing.wall)
    }
    print("| \(kind) | \(objects) | \(megabytes(size)) | \(cell(encode)) | \(cell(save)) | \(cell(decode)) | \(cell(open)) | \(megabytes(save.peakGrowth)) | \(megabytes(open.peakGrowth)) |")
}
