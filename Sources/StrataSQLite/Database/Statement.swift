internal import CSQLite
package import Foundation
internal import Strata

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before `sqlite3_bind_*` returns, so
/// the Swift buffers may go away at once (https://sqlite.org/c3ref/bind_blob.html).
var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// A prepared statement. The one owner of its `sqlite3_stmt`: it finalizes it in `deinit`, and
/// nowhere else.
package final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// The connection that prepared the statement; kept alive for as long as the statement is.
    unowned let database: Database

    init(database: Database, sql: String) throws(StrataError) {
        self.database = database
        self.sql = sql
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let rc = sql.withCString { sqlite3_prepare_v3(database.handle, $0, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail) }
        guard rc == SQLITE_OK, let statement else {
            throw database.error(rc, sql: sql)
        }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
            sqlite3_finalize(statement)
            throw StrataError(.invalidPredicate, "only one SQL statement may be run at a time; found more after the first in: \(sql)", file: database.path)
        }
        handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Whether the statement cannot change the database (https://sqlite.org/c3ref/stmt_readonly.html).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    package func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "column\(index + 1)"
    }

    /// Resets the statement and binds `arguments` to parameters 1, 2, …
    func reset(binding arguments: [SQLValue]) throws(StrataError) {
        resetAndClearBindings()
        // Numbered parameters (`?N`) that compiled SQL no longer uses may follow the last one
        // it does; they are not bound.
        for (offset, argument) in arguments.prefix(parameterCount).enumerated() {
            try bind(argument, at: Int32(offset + 1))
        }
    }

    /// Resets the statement for binding one by one. Parameters keep their last values, so the
    /// caller binds every one of them (as the save's statements do).
    func prepareForBinding() throws(StrataError) {
        sqlite3_reset(handle)
    }

    /// Resets the statement and lets go of its bound values.
    func resetAndClearBindings() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Steps until the statement is done, ignoring rows, then resets it.
    func stepToEnd() throws(StrataError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    func bind(_ value: SQLValue, at index: Int32) throws(StrataError) {
        let rc: Int32
        switch value {
        case .integer(let integer): return try bindInteger(integer, at: index)
        case .real(let real): return try bindReal(real, at: index)
        case .text(let text): return try bindText(text, at: index)
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .blob(let data):
            // An empty blob must stay a blob: sqlite3_bind_blob with a NULL pointer binds NULL.
            if data.isEmpty {
                rc = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                rc = data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
            }
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    func bindInteger(_ value: Int64, at index: Int32) throws(StrataError) {
        let rc = sqlite3_bind_int64(handle, index, value)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    func bindReal(_ value: Double, at index: Int32) throws(StrataError) {
        let rc = sqlite3_bind_double(handle, index, value)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    func bindText(_ value: String, at index: Int32) throws(StrataError) {
        var text = value
        // The UTF-8 bytes in place, with their length: no C string is made, no strlen is run,
        // and a NUL inside the text stays. (A NULL pointer would bind NULL, so an empty text
        // gets a pointer to an empty C string.)
        let rc = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else {
                    return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                }
                return sqlite3_bind_text(handle, index, base, Int32(chars.count), sqliteTransient)
            }
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Advances to the next row: true when there is one, false when done.
    func step() throws(StrataError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows (or whose rows are ignored).
    func execute(_ arguments: [SQLValue] = []) throws(StrataError) {
        try reset(binding: arguments)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs a statement whose parameters were bound one by one (after ``prepareForBinding()``);
    /// on failure it is dropped from its connection's cache, as ``run(_:)`` does.
    func runBound() throws(StrataError) {
        do {
            try stepToEnd()
        } catch {
            database.forget(sql)
            throw error
        }
    }

    /// Runs the statement with `arguments`; on failure it is dropped from its connection's cache.
    func run(_ arguments: [SQLValue]) throws(StrataError) {
        do {
            try execute(arguments)
        } catch {
            database.forget(sql)
            throw error
        }
    }

    /// Every row, each read by `row`.
    func rows<T>(_ arguments: [SQLValue] = [], _ row: (Statement) throws(StrataError) -> T) throws(StrataError) -> [T] {
        try reset(binding: arguments)
        var result: [T] = []
        while try step() { result.append(try row(self)) }
        sqlite3_reset(handle)
        return result
    }

    /// The first column of the first row, if any.
    func scalar(_ arguments: [SQLValue] = []) throws(StrataError) -> SQLValue? {
        try reset(binding: arguments)
        defer { sqlite3_reset(handle) }
        return try step() ? value(at: 0) : nil
    }

    // MARK: - Columns

    /// One column of the current row, read through its `sqlite3_value`.
    ///
    /// Each `sqlite3_column_*` call finds the column's value anew, through the statement's
    /// checks, a (no-op: connections are opened `NOMUTEX`) mutex call and the API's exit check;
    /// reading the value once and then its type and contents with the `sqlite3_value_*`
    /// functions does that once per column instead of twice or three times (a fetch reads
    /// every column of every row this way). The value is valid until the statement steps,
    /// resets or is finalized; a connection is used by one thread at a time (``Connection``),
    /// which the value, unprotected by any mutex, asks for.
    package struct Column {
        let value: OpaquePointer

        package var type: Int32 { sqlite3_value_type(value) }
        package var int64: Int64 { sqlite3_value_int64(value) }
        package var double: Double { sqlite3_value_double(value) }

        /// Calls `body` with the UTF-8 bytes of the value in place.
        func withText<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            let bytes = sqlite3_value_text(value)
            let count = Int(sqlite3_value_bytes(value))
            return body(UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
        }

        /// The text, or nil when it is not valid UTF-8 (``Statement/text(_:)`` would repair it).
        package var validText: String? {
            withText { bytes in
                // ASCII (most text) is valid UTF-8: decoded without the validating
                // initializer's slower path.
                StringMatching.isASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
            }
        }

        package var blob: Data {
            guard let bytes = sqlite3_value_blob(value) else { return Data() }
            let count = Int(sqlite3_value_bytes(value))
            return count > 0 ? Data(bytes: bytes, count: count) : Data()
        }
    }

    /// The column at `index` of the current row.
    package func column(_ index: Int32) -> Column {
        Column(value: sqlite3_column_value(handle, index))
    }

    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    package func type(_ index: Int32) -> Int32 { sqlite3_column_type(handle, index) }

    package func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    package func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    package func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    package func blob(_ index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    package func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(text(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }
}
