import CSQLite
import Foundation

/// A connection opened with `sqlite3_open_v2` and nothing of Strata's registered: what the
/// `sqlite3` shell or any other tool sees.
final class RawSQLite {
    private let handle: OpaquePointer

    init(_ url: URL) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil)
        guard rc == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw RawError(message: "open failed: \(rc)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    struct RawError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Runs `sql` and returns every row, columns joined by `|` (NULL as "NULL"); throws with
    /// SQLite's message when a statement fails.
    @discardableResult
    func rows(_ sql: String) throws -> [String] {
        var result: [String] = []
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RawError(message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw RawError(message: String(cString: sqlite3_errmsg(handle))) }
            var columns: [String] = []
            for index in 0..<sqlite3_column_count(statement) {
                if let text = sqlite3_column_text(statement, index) {
                    columns.append(String(cString: text))
                } else {
                    columns.append("NULL")
                }
            }
            result.append(columns.joined(separator: "|"))
        }
        return result
    }
}
