import CSQLiteRaw
import Foundation
import GRDB
import Strata
import StrataSQLite

// Migrating a SQLite store of N objects (default 1,000,000) from v1 to v2 of a model: v2 renames
// `title` to `name` (renamingIdentifier) and adds `rating` (int64, default 0). Three contenders,
// each on its own copy of the same v1 store, written by Strata:
//
//   strata   StoreMigrator: the SQLite store's in-place migration (one transaction, SQL).
//   raw      the same change through the sqlite3 C API: ALTER TABLE … RENAME COLUMN (the value
//            and its shadow column), ALTER TABLE … ADD COLUMN, and the model's metadata rows
//            updated, in one transaction.
//   grdb     the same ALTER TABLE statements as a GRDB `DatabaseMigrator` migration on a
//            `DatabasePool` (WAL), with the metadata rows updated in it, as an app on GRDB would.
//   copy     what a naive migration does: the old store opened with v1 and a new one with v2,
//            every object copied through contexts in batches of 10,000.
//
// Each contender's wall-clock and CPU time (process CPU, every thread) are printed, with ratios
// to raw. After each, the result is opened with v2 and checked (N objects, values kept, the new
// attribute at its default) outside the timing.
//
//     swift run -c release MigrationBenchmark              # 1,000,000 objects
//     swift run -c release MigrationBenchmark 100000       # fewer, for a quick run
//     swift run -c release MigrationBenchmark 100000 --only raw,copy

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let only = CommandLine.arguments.firstIndex(of: "--only").map { Set(CommandLine.arguments[$0 + 1].split(separator: ",").map(String.init)) }
let batchSize = 10_000

let v1 = try Schema(data: Data("""
    { "name": "Bench", "version": "1", "entities": [ { "name": "Record", "attributes": [
      { "name": "title", "type": "string" }, { "name": "category", "type": "string" },
      { "name": "rank", "type": "int64", "indexed": true }, { "name": "price", "type": "double" },
      { "name": "createdAt", "type": "date" } ] } ] }
    """.utf8))
let v2 = try Schema(data: Data("""
    { "name": "Bench", "version": "2", "entities": [ { "name": "Record", "attributes": [
      { "name": "name", "type": "string", "renamingIdentifier": "title" }, { "name": "category", "type": "string" },
      { "name": "rank", "type": "int64", "indexed": true }, { "name": "price", "type": "double" },
      { "name": "createdAt", "type": "date" }, { "name": "rating", "type": "int64", "default": 0 } ] } ] }
    """.utf8))
let storeTypes = StoreTypeRegistry([SQLiteStoreFactory()])

// MARK: - Measuring

struct Timing {
    var wall: Double
    var cpu: Double
}

/// Wall-clock and process CPU time of `body`, in milliseconds.
func measure(_ body: () throws -> Void) rethrows -> Timing {
    func cpuNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
    let wallStart = ContinuousClock.now
    let cpuStart = cpuNow()
    try body()
    let cpu = cpuNow() - cpuStart
    let elapsed = ContinuousClock.now - wallStart
    return Timing(wall: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15, cpu: cpu)
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migration-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

/// A copy of the v1 store (the database and any WAL beside it; no connection is open).
func copyOfTemplate(_ name: String) throws -> URL {
    let url = file(name)
    for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: template.path + suffix) {
        try FileManager.default.copyItem(atPath: template.path + suffix, toPath: url.path + suffix)
    }
    return url
}

// MARK: - The v1 store

let template = file("template.sqlite")
let setup = try measure {
    let coordinator = PersistentStoreCoordinator(schema: v1, storeTypes: storeTypes)
    let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: template)) as! SQLiteStore
    let layout = v1.entity(named: "Record")!.attributeLayout
    let positions = ["title", "category", "rank", "price", "createdAt"].map { layout.position(of: $0)! }
    var start = 0
    while start < count {
        let end = min(start + 100_000, count)
        let keys = try store.allocatePrimaryKeys(rootEntity: "Record", count: end - start)
        var records: [StoreRecord] = []
        records.reserveCapacity(end - start)
        for (key, i) in zip(keys, start..<end) {
            var values = [AttributeValue?](repeating: nil, count: layout.count)
            values[positions[0]] = .string("Item \(i)")
            values[positions[1]] = .string(["alpha", "beta", "gamma", "delta"][i % 4])
            values[positions[2]] = .integer(Int64(i))
            values[positions[3]] = .double(Double(i % 1000) * 1.25)
            values[positions[4]] = .date(Date(timeIntervalSinceReferenceDate: Double(i) * 60))
            records.append(StoreRecord(objectID: try coordinator.objectID(entityName: "Record", primaryKey: key), attributes: AttributeValues(layout: layout, values: values)))
        }
        _ = try store.save(StoreChangeset(inserted: records))
        start = end
    }
}
// The template's WAL is checkpointed into the database and removed, so that no contender pays
// for checkpointing the inserts when it closes its copy.
do {
    var db: OpaquePointer?
    guard sqlite3_open(template.path, &db) == SQLITE_OK,
          sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil) == SQLITE_OK else { fatalError("checkpoint") }
    sqlite3_close(db)
}
let templateSize = (try? FileManager.default.attributesOfItem(atPath: template.path)[.size] as? Int) ?? 0
let leftoverWAL = (try? FileManager.default.attributesOfItem(atPath: template.path + "-wal")[.size] as? Int) ?? 0
precondition(leftoverWAL == 0, "the template still has a WAL of \(leftoverWAL) bytes")
print("\(count) objects of a 5-attribute entity (\(templateSize / 1_048_576) MB database, written in \(Int(setup.wall)) ms)")
print("v1 → v2: rename `title` → `name`, add `rating` (int64, default 0)")

/// Opens `url` with v2 and checks the migrated contents: every object, a renamed value kept,
/// the added attribute at its default.
func verify(_ url: URL) -> String {
    do {
        let coordinator = PersistentStoreCoordinator(schema: v2, storeTypes: storeTypes)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        let total = try context.count(for: FetchRequest(entityName: "Record"))
        let last = Int64(count - 1)
        let sample = try context.fetch(FetchRequest(entityName: "Record", predicate: .comparison(Comparison(.key("rank"), .equal, .constant(.integer(last))))))
        guard total == count, let object = sample.first, object["name"] as? String == "Item \(count - 1)", object["rating"] as? Int64 == 0 else {
            return "WRONG (\(total) objects, sample \(sample.first.map { "\($0["name"] ?? "nil"), \($0["rating"] ?? "nil")" } ?? "missing"))"
        }
        return "ok"
    } catch {
        return "does not open with v2: \(error)"
    }
}

// MARK: - (a) Strata's in-place migration

func strata() throws -> Timing {
    let url = try copyOfTemplate("strata.sqlite")
    let migrator = StoreMigrator(storeTypes: storeTypes)
    let versions = try SchemaVersions([v1, v2])
    return try measure { _ = try migrator.migrateStore(at: url, versions: versions) }
}

// MARK: - (b) The same change as raw SQL

func raw() throws -> Timing {
    let url = try copyOfTemplate("raw.sqlite")
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    let entityHashes = String(decoding: try JSONSerialization.data(withJSONObject: v2.entityVersionHashes, options: [.sortedKeys]), as: UTF8.self)
    // From a closed file to a closed file, as StoreMigrator: the open and the close are timed.
    return measure {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK else { fatalError("open") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
        }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        exec("BEGIN IMMEDIATE")
        exec(#"ALTER TABLE "Record" RENAME COLUMN "title" TO "name""#)
        exec(#"ALTER TABLE "Record" RENAME COLUMN "_title_nfc" TO "_name_nfc""#)
        exec(#"ALTER TABLE "Record" ADD COLUMN "rating" INTEGER DEFAULT 0"#)
        var update: OpaquePointer?
        guard sqlite3_prepare_v2(db, #"UPDATE "strata_metadata" SET "value" = ? WHERE "key" = ?"#, -1, &update, nil) == SQLITE_OK else { fatalError() }
        for (key, value) in [("modelVersionHash", v2.versionHash), ("entityVersionHashes", entityHashes), ("schema", v2.jsonString)] {
            sqlite3_bind_text(update, 1, value, -1, transient)
            sqlite3_bind_text(update, 2, key, -1, transient)
            guard sqlite3_step(update) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(update)
        }
        sqlite3_finalize(update)
        exec("COMMIT")
    }
}

// MARK: - (b') The same change as a GRDB migration

func grdb() throws -> Timing {
    let url = try copyOfTemplate("grdb.sqlite")
    let entityHashes = String(decoding: try JSONSerialization.data(withJSONObject: v2.entityVersionHashes, options: [.sortedKeys]), as: UTF8.self)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v2") { db in
        try db.alter(table: "Record") { table in
            table.rename(column: "title", to: "name")
            table.rename(column: "_title_nfc", to: "_name_nfc")
            table.add(column: "rating", .integer).defaults(to: 0)
        }
        for (key, value) in [("modelVersionHash", v2.versionHash), ("entityVersionHashes", entityHashes), ("schema", v2.jsonString)] {
            try db.execute(sql: #"UPDATE "strata_metadata" SET "value" = ? WHERE "key" = ?"#, arguments: [value, key])
        }
    }
    // From a closed file to a closed file, as the others: the pool is opened and closed inside.
    return try measure {
        let pool = try DatabasePool(path: url.path)
        try migrator.migrate(pool)
        try pool.close()
    }
}

// MARK: - (c) Copying through objects

func copy() throws -> Timing {
    let source = try copyOfTemplate("copy-source.sqlite")
    let destination = file("copy-destination.sqlite")
    let old = PersistentStoreCoordinator(schema: v1, storeTypes: storeTypes)
    try old.addStore(StoreDescription(type: .sqlite, url: source))
    let new = PersistentStoreCoordinator(schema: v2, storeTypes: storeTypes)
    try new.addStore(StoreDescription(type: .sqlite, url: destination))
    return try measure {
        let reader = ManagedObjectContext(coordinator: old)
        let writer = ManagedObjectContext(coordinator: new)
        var start = 0
        while start < count {
            let batch = try reader.fetch(FetchRequest(
                entityName: "Record",
                predicate: .and([
                    .comparison(Comparison(.key("rank"), .greaterThanOrEqual, .constant(.integer(Int64(start))))),
                    .comparison(Comparison(.key("rank"), .lessThan, .constant(.integer(Int64(start + batchSize))))),
                ])))
            for object in batch {
                let copy = try writer.insertObject(entityName: "Record")
                copy["name"] = object["title"]
                copy["category"] = object["category"]
                copy["rank"] = object["rank"]
                copy["price"] = object["price"]
                copy["createdAt"] = object["createdAt"]
            }
            try writer.save()
            writer.reset()
            reader.reset()
            start += batchSize
        }
    }
}

// MARK: - Report

var results: [(String, Timing?, String)] = []
for (name, contender, result) in [("strata", strata, "strata.sqlite"), ("raw", raw, "raw.sqlite"), ("grdb", grdb, "grdb.sqlite"), ("copy", copy, "copy-destination.sqlite")] as [(String, () throws -> Timing, String)] {
    if let only, !only.contains(name) { continue }
    do {
        let timing = try contender()
        results.append((name, timing, verify(file(result))))
    } catch {
        results.append((name, nil, "failed: \(error)"))
    }
}

let rawTiming = results.first { $0.0 == "raw" }?.1
func ms(_ value: Double) -> String { String(format: "%.1f", value) }
func ratio(_ value: Double, _ base: Double?) -> String { base.map { String(format: "%.1f×", value / $0) } ?? "–" }
print("| contender | wall ms | CPU ms | wall/raw | CPU/raw | result |")
print("| --- | ---: | ---: | ---: | ---: | --- |")
for (name, timing, check) in results {
    if let timing {
        print("| \(name) | \(ms(timing.wall)) | \(ms(timing.cpu)) | \(ratio(timing.wall, rawTiming?.wall)) | \(ratio(timing.cpu, rawTiming?.cpu)) | \(check) |")
    } else {
        print("| \(name) | – | – | – | – | \(check) |")
    }
}
