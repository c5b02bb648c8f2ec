import CSQLiteRaw
import Foundation
import GRDB

/// The raw contenders' database: a sqlite3 handle in WAL mode with `synchronous=NORMAL`, the
/// `record` table and its index on `quantity`, shared by the main table and the batch section.
final class RawDatabase {
    let db: OpaquePointer
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    init(_ name: String) {
        var db: OpaquePointer?
        guard sqlite3_open(temporaryFile(name), &db) == SQLITE_OK, let db else { fatalError("open") }
        self.db = db
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        exec("""
            CREATE TABLE record (id INTEGER PRIMARY KEY, title TEXT, category TEXT, quantity INTEGER, rank INTEGER, price REAL,
            weight REAL, active INTEGER, createdAt REAL, notes TEXT, code INTEGER);
            CREATE INDEX record_quantity ON record (quantity)
            """)
    }

    deinit { sqlite3_close(db) }

    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
    }

    func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(String(cString: sqlite3_errmsg(db))) }
        return statement
    }

    /// Inserts every row with one prepared statement in one transaction.
    func insertAll(_ rows: [Row]) {
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

    /// A GRDB pool on a new file with the same table and index.
    static func grdbPool(_ name: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: temporaryFile(name), configuration: configuration)
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
        return pool
    }
}
