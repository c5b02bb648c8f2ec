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
    let raw = RawDatabase("raw-batch.sqlite")
    let db = raw.db
    func exec(_ sql: String) { raw.exec(sql) }
    func prepare(_ sql: String) -> OpaquePointer { raw.prepare(sql) }
    var results: [BatchOperation: Double] = [:]
    results[.insert] = measure { raw.insertAll(rows) }
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
    let pool = try RawDatabase.grdbPool("grdb-batch.sqlite")
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
@MainActor let batchObjects: [[String: Any]] = rows.map { row in
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
