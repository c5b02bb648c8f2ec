import Foundation
import Strata
import StrataSQLite

// Iterating a million objects with a batch size keeps memory bounded: insert N usage events into
// a SQLite store, then read every one through `fetchResults` with a batch size, and report the
// peak resident memory (getrusage) after inserting and after iterating.
//     PHASE=insert swift run -c release --package-path Benchmarks MemoryBenchmark
//     PHASE=read BATCH=1000 swift run -c release --package-path Benchmarks MemoryBenchmark
// OBJECTS (1,000,000), BATCH (1,000; 0 loads everything at once, for contrast), ROW_CACHE (the
// coordinator's row cache capacity, 100,000) and STORE (the file) come from the environment.

func peakResidentMiB() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024 // kilobytes on Linux
}

/// Resident memory now, split as /proc reports it: anonymous (the heap) and file-backed (here,
/// the database file SQLite maps into memory), in MiB.
func residentMiB() -> (anonymous: Double, file: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
    return (field("RssAnon"), field("RssFile"))
}

let environment = ProcessInfo.processInfo.environment
let count = Int(environment["OBJECTS"] ?? "") ?? 1_000_000
let batch = Int(environment["BATCH"] ?? "") ?? 1_000
let rowCacheCapacity = Int(environment["ROW_CACHE"] ?? "") ?? 100_000
let schemaJSON = """
    {"name": "UsageEvents", "entities": [{"name": "UsageEvent", "attributes": [
      {"name": "name", "type": "string", "indexed": true},
      {"name": "timestamp", "type": "date", "indexed": true},
      {"name": "duration", "type": "int64"}]}]}
    """
let schema = try Schema(data: Data(schemaJSON.utf8))
// Two runs keep the two peaks apart: PHASE=insert STORE=/tmp/e.sqlite, then PHASE=read.
let url = URL(fileURLWithPath: environment["STORE"] ?? "/tmp/strata-memory-benchmark.sqlite")
let phase = environment["PHASE"] ?? "read"

// Insert in saves of 10,000 from a context that is reset between them, as an import would.
if phase == "insert" {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
    try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
    let context = ManagedObjectContext(coordinator: coordinator)
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    var inserted = 0
    while inserted < count {
        for _ in 0..<min(10_000, count - inserted) {
            let event = try context.insertObject(entityName: "UsageEvent")
            event["name"] = "event \(inserted % 97)"
            event["timestamp"] = start.addingTimeInterval(Double(inserted))
            event["duration"] = Int64(inserted % 1000)
            inserted += 1
        }
        try context.save()
        context.reset()
    }
    print("inserted \(count) objects into \(url.path)")
    print(String(format: "peak resident memory while inserting: %.0f MiB", peakResidentMiB()))
    exit(0)
}

// A fresh stack reads everything back in batches.
let clock = ContinuousClock()
let coordinator = PersistentStoreCoordinator(
    schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]), rowCacheCapacity: rowCacheCapacity)
try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
let context = ManagedObjectContext(coordinator: coordinator)
var request = FetchRequest(entityName: "UsageEvent")
request.fetchBatchSize = batch
let baseline = peakResidentMiB()
var total: Int64 = 0
var seen = 0
let elapsed = try clock.measure {
    let results = try context.fetchResults(request)
    let (anonymous, file) = residentMiB()
    print(String(format: "%d object IDs fetched: heap %.0f MiB, mapped file %.0f MiB", results.count, anonymous, file))
    for event in results {
        total += event.value(forKey: "duration", as: Int64.self) ?? 0
        seen += 1
        if seen % (results.count / 5) == 0 {
            let (anonymous, file) = residentMiB()
            print(String(format: "after %7d objects: heap %.0f MiB, mapped file %.0f MiB", seen, anonymous, file))
        }
    }
}
let afterIteration = peakResidentMiB()
print("objects: \(seen), batch size: \(batch == 0 ? "none (all at once)" : "\(batch)"), row cache: \(rowCacheCapacity), sum of durations: \(total)")
print(String(format: "peak resident memory: %.0f MiB before the fetch, %.0f MiB after iterating every object (%@)", baseline, afterIteration, "\(elapsed)"))
