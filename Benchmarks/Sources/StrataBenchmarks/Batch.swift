import CSQLiteRaw
import Foundation
import GRDB
import Strata
import StrataSQLite

// Batch requests (issue 15): Strata's BatchInsertRequest, BatchUpdateRequest and
// BatchDeleteRequest through a coordinator, against the same work as plain SQL — one prepared
// INSERT per row in one transaction, one UPDATE … WHERE and one DELETE … WHERE — with the raw
// sqlite3 C API and with GRDB (insert per record, updateAll, deleteAll). The same 100k rows and
// index as the main table; the update sets `quantity` of the first 10% (by rank) to a
// constant, the delete removes the next 10%. `--only batch` runs this section alone.

enum BatchOperation: String, CaseIterable {
    case insert = "batch insert"
    case update = "batch update 10%"
    case delete = "batch delete 10%"
}

/// The constant a batch update sets.
let batchQuantity: Int64 = 7

@MainActor func rawBatch() throws -> [BatchOperation: Double] {
    var db: OpaquePointer?
    guard sqlite3_open(temporaryFile("raw-batch.sqlite"), &db) == SQLITE_OK else { fatalError("open") }
    defer { sqlite3_close(db) }
    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
    }
    func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(String(cString: sqlite3_errmsg(db))) }
        return statement
    }
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
    exec("""
        CREATE TABLE record (id INTEGER PRIMARY KEY, title TEXT, category TEXT, quantity INTEGER, rank INTEGER, price REAL,
        weight REAL, active INTEGER, createdAt REAL, notes TEXT, code INTEGER);
        CREATE INDEX record_quantity ON record (quantity)
        """)
    var results: [BatchOperation: Double] = [:]
    results[.insert] = measure {
        exec("BEGIN")
        let insert = prepare("INSERT INTO record VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for row in rows {
            sqlite3_bind_int64(insert, 1, row.id)
            sqlite3_bind_text(insert, 2, row.title, -1, transient)
            sqlite3_bind_text(insert, 3, row.category, -1, transient)
            sqlite3_bind_int64(insert, 4, row.quantity)
            sqlite3_bind_int64(insert, 5, row.rank)
            sqlite3_bind_double(insert, 6, row.price)
            sqlite3_bind_double(insert, 7, row.weight)
            sqlite3_bind_int64(insert, 8, row.active ? 1 : 0)
            sqlite3_bind_double(insert, 9, row.createdAt)
            sqlite3_bind_text(insert, 10, row.notes, -1, transient)
            sqlite3_bind_int64(insert, 11, row.code)
            guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        exec("COMMIT")
    }
    results[.update] = measure {
        exec("BEGIN")
        let update = prepare("UPDATE record SET quantity = ? WHERE rank < ?")
        sqlite3_bind_int64(update, 1, batchQuantity)
        sqlite3_bind_int64(update, 2, Int64(changed))
        guard sqlite3_step(update) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sink &+= Int(sqlite3_changes(db))
        sqlite3_finalize(update)
        exec("COMMIT")
    }
    results[.delete] = measure {
        exec("BEGIN")
        let delete = prepare("DELETE FROM record WHERE rank >= ? AND rank < ?")
        sqlite3_bind_int64(delete, 1, Int64(changed))
        sqlite3_bind_int64(delete, 2, Int64(2 * changed))
        guard sqlite3_step(delete) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sink &+= Int(sqlite3_changes(db))
        sqlite3_finalize(delete)
        exec("COMMIT")
    }
    return results
}

@MainActor func grdbBatch() throws -> [BatchOperation: Double] {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: temporaryFile("grdb-batch.sqlite"), configuration: configuration)
    try pool.write { db in
        try db.create(table: "record") { table in
            table.primaryKey("id", .integer)
            table.column("title", .text)
            table.column("category", .text)
            table.column("quantity", .integer).indexed()
            table.column("rank", .integer)
            table.column("price", .double)
            table.column("weight", .double)
            table.column("active", .boolean)
            table.column("createdAt", .double)
            table.column("notes", .text)
            table.column("code", .integer)
        }
    }
    var results: [BatchOperation: Double] = [:]
    results[.insert] = try measure {
        try pool.write { db in
            for row in rows { try GRDBRecord(row).insert(db) }
        }
    }
    results[.update] = try measure {
        sink &+= try pool.write { db in
            try GRDBRecord.filter(Column("rank") < changed).updateAll(db, Column("quantity").set(to: batchQuantity))
        }
    }
    results[.delete] = try measure {
        sink &+= try pool.write { db in
            try GRDBRecord.filter(Column("rank") >= changed && Column("rank") < 2 * changed).deleteAll(db)
        }
    }
    return results
}

/// Each row as the dictionary a batch insert takes (made before the clock starts, as the raw
/// contenders' rows are).
let batchObjects: [[String: Any]] = rows.map { row in
    ["title": row.title, "category": row.category, "quantity": row.quantity, "rank": row.rank, "price": row.price,
     "weight": row.weight, "active": row.active, "createdAt": Date(timeIntervalSinceReferenceDate: row.createdAt),
     "notes": row.notes, "code": row.code]
}

@MainActor func strataBatch() throws -> [BatchOperation: Double] {
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
    try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: temporaryFile("strata-batch.sqlite"))))
    var results: [BatchOperation: Double] = [:]
    results[.insert] = try measure {
        sink &+= try coordinator.execute(BatchInsertRequest(entityName: "Record", objects: batchObjects)).count
    }
    results[.update] = try measure {
        sink &+= try coordinator.execute(BatchUpdateRequest(entityName: "Record", predicate: updatedPredicate, propertiesToUpdate: ["quantity": batchQuantity])).count
    }
    results[.delete] = try measure {
        sink &+= try coordinator.execute(BatchDeleteRequest(entityName: "Record", predicate: deletedPredicate)).count
    }
    return results
}

/// The batch table: each contender's best of ``runs`` runs.
@MainActor func batchReport() throws {
    func bestOf(_ contender: @MainActor () throws -> [BatchOperation: Double]) rethrows -> [BatchOperation: Double] {
        var results: [BatchOperation: Double] = [:]
        for _ in 0..<runs {
            for (operation, time) in try contender() { results[operation] = min(results[operation] ?? .infinity, time) }
        }
        return results
    }
    let raw = try bestOf(rawBatch)
    let grdb = try bestOf(grdbBatch)
    let strata = try bestOf(strataBatch)
    removeTemporaryFiles()
    let header = ["batch request", "raw sqlite3", "GRDB", "Strata", "GRDB/raw", "Strata/raw"]
    let widths = [20, 12, 10, 10, 9, 11]
    print("| " + zip(header, widths).map { cell($0, $1) }.joined(separator: " | ") + " |")
    print("|" + widths.map { String(repeating: "-", count: $0 + 1) + ":" }.joined(separator: "|") + "|")
    for operation in BatchOperation.allCases {
        let r = raw[operation]!, g = grdb[operation]!, s = strata[operation]!
        let values = [operation.rawValue, ms(r), ms(g), ms(s), ratio(g, r), ratio(s, r)]
        print("| " + zip(values, widths).map { cell($0, $1) }.joined(separator: " | ") + " |")
    }
}
