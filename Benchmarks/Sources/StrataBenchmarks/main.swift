import CSQLiteRaw
import Foundation
import GRDB
import Strata
import StrataSQLite

// Strata's SQLite store against the raw sqlite3 C API and GRDB records, on 100k objects of a
// 10-attribute entity. Every contender uses WAL with synchronous=NORMAL, one transaction per
// write operation, and an index on `quantity`. Times are process CPU time, best of RUNS runs
// (default 3). Run in release mode:
//
//     swift run -c release StrataBenchmarks [count]

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
/// `--only store` (or raw, grdb, context) runs one contender, for profiling; `--only library`
/// times the store's save of a library of books (see ``strataLibrary()``); `--only batch` runs
/// the batch requests' table alone (Batch.swift); `--only context-fetch` times the context's
/// fetch-all alone, five times, in a function of its own (`contextFetchAll`) for profilers
/// (`valgrind --tool=callgrind --toggle-collect='*contextFetchAll*'`).
let only = CommandLine.arguments.firstIndex(of: "--only").map { CommandLine.arguments[$0 + 1] }
let changed = count / 10

/// One row's values, the same for every contender.
struct Row {
    var id: Int64
    var title: String
    var category: String
    var quantity: Int64
    var rank: Int64
    var price: Double
    var weight: Double
    var active: Bool
    var createdAt: Double
    var notes: String
    var code: Int64

    init(_ i: Int) {
        id = Int64(i + 1)
        title = "Item \(i)"
        category = ["alpha", "beta", "gamma", "delta"][i % 4]
        quantity = Int64((i * 7919) % 1000)
        rank = Int64(i)
        price = Double(i % 1000) * 1.25
        weight = Double(i) / 3
        active = i % 3 != 0
        createdAt = Double(i) * 60
        notes = "note \(i % 100)"
        code = Int64(i % 100_000)
    }
}

let rows = (0..<count).map(Row.init)

enum Operation: String, CaseIterable {
    case insert = "insert + save"
    case fetchAll = "fetch all + materialise"
    case filtered = "filtered + sorted + limit 100"
    case update = "update 10%"
    case delete = "delete 10%"
}

/// Filtered fetches are short: each is run this many times and the average reported.
let filteredRepeats = 20

/// Process CPU time (every thread, user and system) of `body`, in milliseconds: on a shared
/// machine wall-clock time would measure the neighbours too.
func measure(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
    let start = now()
    try body()
    return now() - start
}

/// Every contender runs this many times on fresh files; each operation's best time counts.
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 3

/// The best time of each operation over `runs` runs of `contender`.
@MainActor func best(_ contender: @MainActor () throws -> [Operation: Double]) rethrows -> [Operation: Double] {
    var results: [Operation: Double] = [:]
    for _ in 0..<runs {
        for (operation, time) in try contender() { results[operation] = min(results[operation] ?? .infinity, time) }
    }
    return results
}

/// Every benchmark directory, removed at exit.
nonisolated(unsafe) var temporaryDirectories: [URL] = []

func temporaryFile(_ name: String) -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    temporaryDirectories.append(directory)
    return directory.appendingPathComponent(name).path
}

func removeTemporaryFiles() {
    for directory in temporaryDirectories { try? FileManager.default.removeItem(at: directory) }
}

var sink = 0

// MARK: - Raw sqlite3

@MainActor func rawSQLite() throws -> [Operation: Double] {
    let raw = RawDatabase("raw.sqlite")
    func exec(_ sql: String) { raw.exec(sql) }
    func prepare(_ sql: String) -> OpaquePointer { raw.prepare(sql) }
    var results: [Operation: Double] = [:]
    results[.insert] = measure { raw.insertAll(rows) }
    func read(_ statement: OpaquePointer) -> Row {
        var row = Row(0)
        row.id = sqlite3_column_int64(statement, 0)
        row.title = String(cString: sqlite3_column_text(statement, 1))
        row.category = String(cString: sqlite3_column_text(statement, 2))
        row.quantity = sqlite3_column_int64(statement, 3)
        row.rank = sqlite3_column_int64(statement, 4)
        row.price = sqlite3_column_double(statement, 5)
        row.weight = sqlite3_column_double(statement, 6)
        row.active = sqlite3_column_int64(statement, 7) != 0
        row.createdAt = sqlite3_column_double(statement, 8)
        row.notes = String(cString: sqlite3_column_text(statement, 9))
        row.code = sqlite3_column_int64(statement, 10)
        return row
    }
    results[.fetchAll] = measure {
        let select = prepare("SELECT * FROM record")
        var fetched: [Row] = []
        while sqlite3_step(select) == SQLITE_ROW { fetched.append(read(select)) }
        sqlite3_finalize(select)
        sink &+= fetched.count
    }
    results[.filtered] = measure {
        let select = prepare("SELECT * FROM record WHERE quantity > ? AND active = 1 ORDER BY price DESC LIMIT 100")
        for _ in 0..<filteredRepeats {
            sqlite3_bind_int64(select, 1, 500)
            var fetched: [Row] = []
            while sqlite3_step(select) == SQLITE_ROW { fetched.append(read(select)) }
            sqlite3_reset(select)
            sink &+= fetched.count
        }
        sqlite3_finalize(select)
    } / Double(filteredRepeats)
    results[.update] = measure {
        exec("BEGIN")
        let update = prepare("UPDATE record SET quantity = ? WHERE id = ?")
        for row in rows[0..<changed] {
            sqlite3_bind_int64(update, 1, row.quantity + 1)
            sqlite3_bind_int64(update, 2, row.id)
            guard sqlite3_step(update) == SQLITE_DONE else { fatalError() }
            sqlite3_reset(update)
        }
        sqlite3_finalize(update)
        exec("COMMIT")
    }
    results[.delete] = measure {
        exec("BEGIN")
        let delete = prepare("DELETE FROM record WHERE id = ?")
        for row in rows[changed..<(2 * changed)] {
            sqlite3_bind_int64(delete, 1, row.id)
            guard sqlite3_step(delete) == SQLITE_DONE else { fatalError() }
            sqlite3_reset(delete)
        }
        sqlite3_finalize(delete)
        exec("COMMIT")
    }
    return results
}

// MARK: - GRDB

struct GRDBRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "record"
    var id: Int64
    var title: String
    var category: String
    var quantity: Int64
    var rank: Int64
    var price: Double
    var weight: Double
    var active: Bool
    var createdAt: Double
    var notes: String
    var code: Int64

    init(_ row: Row) {
        (id, title, category, quantity, rank, price, weight, active, createdAt, notes, code) =
            (row.id, row.title, row.category, row.quantity, row.rank, row.price, row.weight, row.active, row.createdAt, row.notes, row.code)
    }
}

@MainActor func grdb() throws -> [Operation: Double] {
    let pool = try RawDatabase.grdbPool("grdb.sqlite")
    var results: [Operation: Double] = [:]
    results[.insert] = try measure {
        try pool.write { db in
            for row in rows { try GRDBRecord(row).insert(db) }
        }
    }
    results[.fetchAll] = try measure {
        sink &+= try pool.read { db in try GRDBRecord.fetchAll(db) }.count
    }
    results[.filtered] = try measure {
        for _ in 0..<filteredRepeats {
            sink &+= try pool.read { db in
                try GRDBRecord.filter(Column("quantity") > 500 && Column("active") == true).order(Column("price").desc).limit(100).fetchAll(db)
            }.count
        }
    } / Double(filteredRepeats)
    results[.update] = try measure {
        try pool.write { db in
            for var record in try GRDBRecord.filter(Column("rank") < changed).fetchAll(db) {
                record.quantity += 1
                try record.update(db)
            }
        }
    }
    results[.delete] = try measure {
        try pool.write { db in
            for record in try GRDBRecord.filter(Column("rank") >= changed && Column("rank") < 2 * changed).fetchAll(db) {
                try record.delete(db)
            }
        }
    }
    return results
}

// MARK: - Strata

let schema = try Schema(data: Data("""
    { "name": "Bench", "entities": [ { "name": "Record", "attributes": [
      { "name": "title", "type": "string" }, { "name": "category", "type": "string" },
      { "name": "quantity", "type": "int64", "indexed": true }, { "name": "rank", "type": "int64" },
      { "name": "price", "type": "double" }, { "name": "weight", "type": "double" },
      { "name": "active", "type": "bool" }, { "name": "createdAt", "type": "date" },
      { "name": "notes", "type": "string" }, { "name": "code", "type": "int32" } ] } ] }
    """.utf8))

/// A record's values, filled by position in the entity's layout (the store API's fast path, as
/// a store fills the records it reads; setting them by name costs one hash per value).
let recordLayout = schema.entity(named: "Record")!.attributeLayout
let positions = ["title", "category", "quantity", "rank", "price", "weight", "active", "createdAt", "notes", "code"].map { recordLayout.position(of: $0)! }
func attributes(_ row: Row) -> AttributeValues {
    var values = [AttributeValue?](repeating: nil, count: recordLayout.count)
    values[positions[0]] = .string(row.title)
    values[positions[1]] = .string(row.category)
    values[positions[2]] = .integer(row.quantity)
    values[positions[3]] = .integer(row.rank)
    values[positions[4]] = .double(row.price)
    values[positions[5]] = .double(row.weight)
    values[positions[6]] = .bool(row.active)
    values[positions[7]] = .date(Date(timeIntervalSinceReferenceDate: row.createdAt))
    values[positions[8]] = .string(row.notes)
    values[positions[9]] = .integer(row.code)
    return AttributeValues(layout: recordLayout, values: values)
}

/// The objects the update changes: the first 10%.
let updatedPredicate = FetchPredicate.comparison(Comparison(.key("rank"), .lessThan, .constant(.integer(Int64(changed)))))
/// The objects the delete removes: the next 10%.
let deletedPredicate = FetchPredicate.and([
    .comparison(Comparison(.key("rank"), .greaterThanOrEqual, .constant(.integer(Int64(changed))))),
    .comparison(Comparison(.key("rank"), .lessThan, .constant(.integer(Int64(2 * changed))))),
])

let filteredPredicate = FetchPredicate.and([
    .comparison(Comparison(.key("quantity"), .greaterThan, .constant(.integer(500)))),
    .comparison(Comparison(.key("active"), .equal, .constant(.bool(true)))),
])
let filteredOrder = [FetchSortDescriptor("price", ascending: false)]

/// The store's update and delete without the fetch before them (what the raw baseline does:
/// it writes rows it knows the keys of), best of the runs.
nonisolated(unsafe) var storeSavesOnly: [Operation: Double] = [:]

/// The store's own API: records in, records out. Updates and deletes fetch their records or
/// IDs first (timed with the save, and the save alone in ``storeSavesOnly``).
@MainActor func strataStore() throws -> [Operation: Double] {
    // A coordinator only to make object IDs; everything else goes to the store directly.
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
    let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: temporaryFile("strata-store.sqlite")))) as! SQLiteStore
    var results: [Operation: Double] = [:]
    results[.insert] = try measure {
        let keys = try store.allocatePrimaryKeys(rootEntity: "Record", count: count)
        var records: [StoreRecord] = []
        records.reserveCapacity(count)
        for (key, row) in zip(keys, rows) {
            records.append(StoreRecord(objectID: try coordinator.objectID(entityName: "Record", primaryKey: key), attributes: attributes(row)))
        }
        _ = try store.save(StoreChangeset(inserted: records))
    }
    results[.fetchAll] = try measure {
        sink &+= try store.fetch(StoreFetchRequest(entityNames: ["Record"])).count
    }
    results[.filtered] = try measure {
        for _ in 0..<filteredRepeats {
            sink &+= try store.fetch(StoreFetchRequest(entityNames: ["Record"], predicate: filteredPredicate, sortDescriptors: filteredOrder, fetchLimit: 100)).count
        }
    } / Double(filteredRepeats)
    var saves: [Operation: Double] = [:]
    results[.update] = try measure {
        var records = try store.fetch(StoreFetchRequest(
            entityNames: ["Record"], predicate: updatedPredicate))
        for index in records.indices {
            if case .integer(let quantity)? = records[index].attributes["quantity"] { records[index].attributes["quantity"] = .integer(quantity + 1) }
        }
        // The changed attribute of each record, as a context passes it (ALL_COLUMNS=1: none,
        // so that every column is written).
        var changes = StoreChangeset(updated: records)
        if ProcessInfo.processInfo.environment["ALL_COLUMNS"] == nil {
            changes.changedKeys = Array(repeating: ["quantity"], count: records.count)
        }
        saves[.update] = try measure { _ = try store.save(changes) }
    }
    results[.delete] = try measure {
        let ids = try store.fetchObjectIDs(StoreFetchRequest(entityNames: ["Record"], predicate: deletedPredicate))
        let changes = StoreChangeset(deleted: ids.map { ($0, 1) })
        saves[.delete] = try measure { _ = try store.save(changes) }
    }
    for (operation, time) in saves { storeSavesOnly[operation] = min(storeSavesOnly[operation] ?? .infinity, time) }
    return results
}

// MARK: - A library in one save

/// The load benchmark's library model (Benchmarks/Data/Library.json, without its JSON-schema
/// reference): to-one foreign keys, a many-to-many join table and an ordered to-many.
let librarySchema = try Schema(data: Data("""
    { "name": "Library", "version": "1", "entities": [
      { "name": "Publisher", "attributes": [ { "name": "name", "type": "string" }, { "name": "city", "type": "string" } ],
        "relationships": [ { "name": "books", "destination": "Book", "inverse": "publisher", "toMany": true, "deleteRule": "nullify" } ] },
      { "name": "Author", "attributes": [ { "name": "name", "type": "string" }, { "name": "country", "type": "string" },
          { "name": "born", "type": "int32", "optional": true } ],
        "relationships": [ { "name": "books", "destination": "Book", "inverse": "author", "toMany": true, "deleteRule": "nullify" } ] },
      { "name": "Genre", "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "books", "destination": "Book", "inverse": "genres", "toMany": true, "deleteRule": "nullify" } ],
        "uniquenessConstraints": [["name"]] },
      { "name": "Book", "attributes": [ { "name": "title", "type": "string" }, { "name": "isbn", "type": "string" },
          { "name": "year", "type": "int16" }, { "name": "pages", "type": "int32" }, { "name": "price", "type": "decimal" },
          { "name": "rating", "type": "double" }, { "name": "published", "type": "date" }, { "name": "summary", "type": "string" },
          { "name": "inPrint", "type": "bool" } ],
        "relationships": [
          { "name": "author", "destination": "Author", "inverse": "books", "optional": true, "deleteRule": "nullify" },
          { "name": "publisher", "destination": "Publisher", "inverse": "books", "optional": true, "deleteRule": "nullify" },
          { "name": "genres", "destination": "Genre", "inverse": "books", "toMany": true, "deleteRule": "nullify" },
          { "name": "chapters", "destination": "Chapter", "inverse": "book", "toMany": true, "ordered": true, "deleteRule": "cascade" } ],
        "uniquenessConstraints": [["isbn"]] },
      { "name": "Chapter", "attributes": [ { "name": "title", "type": "string" }, { "name": "number", "type": "int32" },
          { "name": "words", "type": "int32" } ],
        "relationships": [ { "name": "book", "destination": "Book", "inverse": "chapters", "deleteRule": "nullify" } ] } ] }
    """.utf8))

/// The store's save of a whole library (`BOOKS` books, default 30,000: a tenth as many authors,
/// a hundredth as many publishers, 50 genres, three of them per book, and three ordered
/// chapters for every sixth book) as records with both sides of every relationship, as a
/// context's save hands them over: only the save is timed.
@MainActor func strataLibrary() throws -> [Operation: Double] {
    let books = Int(ProcessInfo.processInfo.environment["BOOKS"] ?? "") ?? 30_000
    let coordinator = PersistentStoreCoordinator(schema: librarySchema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
    let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: temporaryFile("strata-library.sqlite")))) as! SQLiteStore
    func id(_ entity: String, _ key: Int) throws -> ObjectID { try coordinator.objectID(entityName: entity, primaryKey: Int64(key)) }
    var publishers = try (1...max(books / 100, 1)).map { StoreRecord(objectID: try id("Publisher", $0), attributes: ["name": .string("Publisher \($0)"), "city": .string("City \($0 % 40)")]) }
    var authors = try (1...max(books / 10, 1)).map { StoreRecord(objectID: try id("Author", $0), attributes: ["name": .string("Author \($0)"), "country": .string("Country \($0 % 30)"), "born": .integer(Int64(1900 + $0 % 100))]) }
    var genres = try (1...50).map { StoreRecord(objectID: try id("Genre", $0), attributes: ["name": .string("Genre \($0)")]) }
    var bookRecords: [StoreRecord] = []
    var chapters: [StoreRecord] = []
    for book in 1...books {
        var record = StoreRecord(objectID: try id("Book", book), attributes: [
            "title": .string("Book \(book)"), "isbn": .string("978-\(1_000_000 + book)"), "year": .integer(Int64(1950 + book % 70)),
            "pages": .integer(Int64(100 + book % 500)), "price": .decimal(Decimal(book % 5000) / 100), "rating": .double(Double(book % 50) / 10),
            "published": .date(Date(timeIntervalSinceReferenceDate: Double(book) * 3600)),
            "summary": .string(String(repeating: "A summary of book \(book). ", count: 8)), "inPrint": .bool(book % 4 != 0),
        ])
        let author = book % authors.count, publisher = book % publishers.count
        record.toOne["author"] = authors[author].objectID
        record.toOne["publisher"] = publishers[publisher].objectID
        authors[author].toMany["books", default: []].append(record.objectID)
        publishers[publisher].toMany["books", default: []].append(record.objectID)
        for genre in Set([book % 50, (book * 7) % 50, (book * 13 + 5) % 50]).sorted() {
            record.toMany["genres", default: []].append(genres[genre].objectID)
            genres[genre].toMany["books", default: []].append(record.objectID)
        }
        record.toMany["chapters"] = []
        if book % 6 == 0 {
            for number in 1...3 {
                var chapter = StoreRecord(objectID: try id("Chapter", chapters.count + 1), attributes: [
                    "title": .string("Chapter \(number)"), "number": .integer(Int64(number)), "words": .integer(Int64(1000 + book % 3000)),
                ])
                chapter.toOne["book"] = record.objectID
                record.toMany["chapters"]!.append(chapter.objectID)
                chapters.append(chapter)
            }
        }
        bookRecords.append(record)
    }
    for index in authors.indices where authors[index].toMany["books"] == nil { authors[index].toMany["books"] = [] }
    for index in publishers.indices where publishers[index].toMany["books"] == nil { publishers[index].toMany["books"] = [] }
    // Values laid out by their entity, as a context's records carry them.
    var inserted = publishers + authors + genres + bookRecords + chapters
    for index in inserted.indices {
        inserted[index].attributes = inserted[index].attributes.laidOut(by: librarySchema.entity(named: inserted[index].objectID.entityName)!.attributeLayout)
    }
    let changes = StoreChangeset(inserted: inserted)
    let time = try measure { _ = try store.save(changes) }
    print("library: \(changes.inserted.count) objects (\(books) books) saved in \(ms(time)) ms")
    return [.insert: time]
}

/// Sets an object's values by name, as an app does.
func fill(_ object: ManagedObject, with row: Row) {
    object["title"] = row.title
    object["category"] = row.category
    object["quantity"] = row.quantity
    object["rank"] = row.rank
    object["price"] = row.price
    object["weight"] = row.weight
    object["active"] = row.active
    object["createdAt"] = Date(timeIntervalSinceReferenceDate: row.createdAt)
    object["notes"] = row.notes
    object["code"] = row.code
}

/// `PHASES=1`: the context's insert, fetch and update split into their steps, for profiling.
@MainActor func contextPhases(_ coordinator: PersistentStoreCoordinator) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    var objects: [ManagedObject] = []
    let insertTime = try measure { for _ in rows { objects.append(try context.insertObject(entityName: "Record")) } }
    let setTime = measure { for (row, object) in zip(rows, objects) { fill(object, with: row) } }
    let saveTime = try measure { try context.save() }
    objects = []
    print("phases: insertObject \(insertTime) set \(setTime) save \(saveTime)")
    let storeFetch = try measure { sink &+= try coordinator.stores[0].fetch(StoreFetchRequest(entityNames: ["Record"])).count }
    let contextFetch = try measure { sink &+= try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Record")).count }
    let fetchContext = ManagedObjectContext(coordinator: coordinator)
    let fetchTime = try measure { objects = try fetchContext.fetch(FetchRequest(entityName: "Record")) }
    let freeTime = measure { objects = [] }
    print("phases: store fetch \(storeFetch) context fetch \(contextFetch) (fetch \(fetchTime), freeing the objects \(freeTime))")
    let updateContext = ManagedObjectContext(coordinator: coordinator)
    let updateFetch = try measure { objects = try updateContext.fetch(FetchRequest(entityName: "Record", predicate: updatedPredicate)) }
    let updateSet = measure { for object in objects { object["quantity"] = (object["quantity"] as! Int64) + 1 } }
    let updateSave = try measure { try updateContext.save() }
    print("phases: update fetch \(updateFetch) set \(updateSet) save \(updateSave)")
    let deleteContext = ManagedObjectContext(coordinator: coordinator)
    let deleteFetch = try measure { objects = try deleteContext.fetch(FetchRequest(entityName: "Record", predicate: deletedPredicate)) }
    let deleteTime = measure { for object in objects { deleteContext.delete(object) } }
    let deleteSave = try measure { try deleteContext.save() }
    print("phases: delete fetch \(deleteFetch) delete \(deleteTime) save \(deleteSave)")
}

/// The context's fetch-all, as ``strataContext()`` times it.
@MainActor @inline(never) func contextFetchAll(_ coordinator: PersistentStoreCoordinator) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    let objects = try context.fetch(FetchRequest(entityName: "Record"))
    for object in objects { if object["quantity"] != nil { sink &+= 1 } }
}

/// A coordinator on a new SQLite store holding the benchmark's rows, saved through a context.
@MainActor func filledContextStore() throws -> PersistentStoreCoordinator {
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
    try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: temporaryFile("strata-context.sqlite"))))
    let context = ManagedObjectContext(coordinator: coordinator)
    for row in rows { fill(try context.insertObject(entityName: "Record"), with: row) }
    try context.save()
    return coordinator
}

/// The context's insert + save, as ``strataContext()`` times it.
@MainActor @inline(never) func contextInsertAll(_ coordinator: PersistentStoreCoordinator) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    for row in rows { fill(try context.insertObject(entityName: "Record"), with: row) }
    try context.save()
}

/// `--only context-insert`: the context's insert + save alone, three times, each into a new store.
@MainActor func contextInsertOnly() throws {
    for _ in 0..<3 {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: temporaryFile("strata-context.sqlite"))))
        print(String(format: "insert + save %.1f ms", try measure { try contextInsertAll(coordinator) }))
    }
}

/// `--only context-fetch`: the context's fetch-all alone, after a store is filled.
@MainActor func contextFetchOnly() throws {
    let coordinator = try filledContextStore()
    for _ in 0..<5 {
        print(String(format: "fetch all + materialise %.1f ms", try measure { try contextFetchAll(coordinator) }))
    }
}

/// The context's delete of 10%, as ``strataContext()`` times it (fetch, delete, save).
@MainActor @inline(never) func contextDeleteTenPercent(_ coordinator: PersistentStoreCoordinator, from start: Int) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    let predicate = FetchPredicate.and([
        .comparison(Comparison(.key("rank"), .greaterThanOrEqual, .constant(.integer(Int64(start))))),
        .comparison(Comparison(.key("rank"), .lessThan, .constant(.integer(Int64(start + changed))))),
    ])
    let objects = try context.fetch(FetchRequest(entityName: "Record", predicate: predicate))
    for object in objects { context.delete(object) }
    try context.save()
}

/// `--only context-delete`: the context's delete of 10%, five times, after a store is filled.
@MainActor func contextDeleteOnly() throws {
    let coordinator = try filledContextStore()
    for run in 1...5 {
        print(String(format: "delete 10%% %.1f ms", try measure { try contextDeleteTenPercent(coordinator, from: run * changed) }))
    }
}

/// Through a coordinator and a managed object context, as an app uses it.
@MainActor func strataContext() throws -> [Operation: Double] {
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
    try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: temporaryFile("strata-context.sqlite"))))
    var results: [Operation: Double] = [:]
    if ProcessInfo.processInfo.environment["PHASES"] != nil {
        try contextPhases(coordinator)
        exit(0)
    }
    results[.insert] = try measure { try contextInsertAll(coordinator) }
    results[.fetchAll] = try measure { try contextFetchAll(coordinator) }
    results[.filtered] = try measure {
        for _ in 0..<filteredRepeats {
            let context = ManagedObjectContext(coordinator: coordinator)
            sink &+= try context.fetch(FetchRequest(entityName: "Record", predicate: filteredPredicate, sortDescriptors: filteredOrder, fetchLimit: 100)).count
        }
    } / Double(filteredRepeats)
    results[.update] = try measure {
        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try context.fetch(FetchRequest(entityName: "Record", predicate: updatedPredicate))
        for object in objects { object["quantity"] = (object["quantity"] as! Int64) + 1 }
        try context.save()
    }
    results[.delete] = try measure {
        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try context.fetch(FetchRequest(entityName: "Record", predicate: deletedPredicate))
        for object in objects { context.delete(object) }
        try context.save()
    }
    return results
}

// MARK: - Report

print("\(count) objects of a 10-attribute entity; CPU time in ms, best of \(runs) runs (filtered: average of \(filteredRepeats) fetches)")
if only == "library" {
    print(String(format: "library save: best %.1f ms", try best(strataLibrary)[.insert]!))
    removeTemporaryFiles()
    exit(0)
}
if only == "batch" {
    try batchReport()
    exit(0)
}
if only == "context-fetch" {
    try contextFetchOnly()
    removeTemporaryFiles()
    exit(0)
}
if only == "context-insert" {
    try contextInsertOnly()
    removeTemporaryFiles()
    exit(0)
}
if only == "context-delete" {
    try contextDeleteOnly()
    removeTemporaryFiles()
    exit(0)
}
if let only {
    let results = try best(only == "raw" ? rawSQLite : only == "grdb" ? grdb : only == "store" ? strataStore : strataContext)
    for operation in Operation.allCases { print(operation.rawValue, String(format: "%.1f ms", results[operation]!)) }
    for (operation, time) in storeSavesOnly.sorted(by: { $0.key.rawValue > $1.key.rawValue }) { print(operation.rawValue, String(format: "(the save alone) %.1f ms", time)) }
    removeTemporaryFiles()
    exit(0)
}
let raw = try best(rawSQLite)
let grdbResults = try best(grdb)
let store = try best(strataStore)
let context = try best(strataContext)
removeTemporaryFiles()

func cell(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
func ms(_ value: Double) -> String { String(format: "%.1f", value) }
func ratio(_ value: Double, _ base: Double) -> String { String(format: "%.2f×", value / base) }

let header = ["operation", "raw sqlite3", "GRDB", "Strata store", "Strata context", "GRDB/raw", "store/raw", "context/raw"]
let widths = [30, 12, 10, 13, 15, 9, 10, 12]
print("| " + zip(header, widths).map { cell($0, $1) }.joined(separator: " | ") + " |")
print("|" + widths.map { String(repeating: "-", count: $0 + 1) + ":" }.joined(separator: "|") + "|")
for operation in Operation.allCases {
    let r = raw[operation]!, g = grdbResults[operation]!, s = store[operation]!, c = context[operation]!
    let values = [operation.rawValue, ms(r), ms(g), ms(s), ms(c), ratio(g, r), ratio(s, r), ratio(c, r)]
    print("| " + zip(values, widths).map { cell($0, $1) }.joined(separator: " | ") + " |")
}
for operation in [Operation.update, .delete] {
    let time = storeSavesOnly[operation]!
    print("\(operation.rawValue), the store's save without its fetch: \(ms(time)) ms, \(ratio(time, raw[operation]!)) raw")
}
try batchReport()
if sink == 42 { print("") }
