internal import CSQLite
internal import Foundation
package import Strata

/// One SQLite connection: the one owner of its `sqlite3` handle, closed in `deinit`.
///
/// Not `Sendable`: a connection is used by one thread at a time, which ``Connection`` (a mutex
/// around it) guarantees. Prepared statements are cached by SQL text.
package final class Database {
    let handle: OpaquePointer
    /// The file, for error messages.
    package let path: String
    private var cache: [String: Statement] = [:]
    /// When the cache is full it is emptied: statements are cheap to prepare again, and no
    /// bookkeeping slows the common case of a hit.
    private let cacheCapacity = 512
    /// The extended result code of the last error this connection reported (constraint kinds
    /// are told apart by it: https://sqlite.org/rescode.html#extrc).
    private(set) var lastErrorCode: Int32 = SQLITE_OK
    /// The error one of Strata's SQL functions met while a statement ran (a `MATCHES` that
    /// could not be decided): the statement fails, and this error, not SQLite's generic one,
    /// is what the caller gets.
    var functionError: StrataError?
    /// Whether the last error was SQLite refusing a statement as too large or too deep for its
    /// own limits (https://sqlite.org/limits.html): a query the store can answer another way.
    private(set) var lastErrorWasLimit = false

    package struct OpenMode {
        package var readOnly: Bool
        package var create: Bool
        /// Opens the file as `immutable=1` (https://sqlite.org/uri.html#uriimmutable): no locks,
        /// no `-wal` or `-shm`; only for a file nobody can change while it is open.
        package var immutable = false
        /// Opens the file read-only with `readonly_shm=1` (https://sqlite.org/uri.html): the
        /// `-shm` index is opened read-only too, never created or written. Without a writer
        /// holding it, SQLite then reads the `-wal` into private memory
        /// (https://sqlite.org/walformat.html#readonly), so the log is read and no file changes.
        package var readOnlySharedMemory = false

        package init(readOnly: Bool, create: Bool, immutable: Bool = false, readOnlySharedMemory: Bool = false) {
            self.readOnly = readOnly
            self.create = create
            self.immutable = immutable
            self.readOnlySharedMemory = readOnlySharedMemory
        }
    }

    /// How long a connection waits for another connection's lock before it reports
    /// `SQLITE_BUSY` (https://sqlite.org/c3ref/busy_timeout.html), in milliseconds: long enough
    /// for another process's large save to finish (readers of a WAL database never wait for it).
    static let busyTimeout: Int32 = 30_000

    /// Opens a connection. Strata's SQL functions and collations are registered on it.
    package init(path: String, mode: OpenMode) throws(StrataError) {
        var flags = SQLITE_OPEN_NOMUTEX
        if mode.readOnly || mode.immutable || mode.readOnlySharedMemory {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if mode.create { flags |= SQLITE_OPEN_CREATE }
        }
        var name = path
        var parameters: [String] = []
        if mode.immutable { parameters.append("immutable=1") }
        if mode.readOnlySharedMemory { parameters.append("readonly_shm=1") }
        if !parameters.isEmpty {
            flags |= SQLITE_OPEN_URI
            name = Self.uri(path) + "?" + parameters.joined(separator: "&")
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw StrataError(
                Self.code(for: rc), "cannot open the SQLite database: \(message) (code \(rc))", file: path,
                cause: StrataError.Cause(domain: .sqlite, code: rc, message: message))
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeout)
        try SQLFunctions.register(on: self)
        try SQLFunctions.registerOrdering(on: self)
    }

    /// A `file:` URI for a path: the characters a URI gives a meaning to are escaped
    /// (https://sqlite.org/uri.html#uri_filenames_in_sqlite).
    static func uri(_ path: String) -> String {
        var uri = "file:"
        for character in path.unicodeScalars {
            switch character {
            case "%", "?", "#": uri += "%" + String(character.value, radix: 16, uppercase: true)
            default: uri.unicodeScalars.append(character)
            }
        }
        return uri
    }

    deinit {
        // Statements finalize themselves; drop them before the connection goes.
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: - Running SQL

    /// Runs one or more statements with no arguments (DDL, pragmas, transactions).
    package func execute(_ sql: String) throws(StrataError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw error(rc, sql: sql, message: text)
        }
    }

    /// A prepared statement for `sql`, from the cache when it was prepared before.
    func statement(_ sql: String) throws(StrataError) -> Statement {
        if let cached = cache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        if cache.count >= cacheCapacity { cache.removeAll() }
        cache[sql] = statement
        return statement
    }

    /// Drops a statement from the cache (after it failed), so that the next use prepares it anew.
    func forget(_ sql: String) {
        cache[sql] = nil
    }

    /// Runs a cached statement with arguments, ignoring rows.
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StrataError) {
        let statement = try statement(sql)
        do {
            try statement.execute(arguments)
        } catch {
            forget(sql)
            throw error
        }
    }

    /// Rows of a cached statement, each read by `row`.
    package func rows<T>(_ sql: String, _ arguments: [SQLValue] = [], _ row: (Statement) throws(StrataError) -> T) throws(StrataError) -> [T] {
        let statement = try statement(sql)
        do {
            return try statement.rows(arguments, row)
        } catch {
            forget(sql)
            throw error
        }
    }

    /// Calls `body` with each row of a cached statement.
    package func each(_ sql: String, _ arguments: [SQLValue], _ body: (Statement) throws(StrataError) -> Void) throws(StrataError) {
        let statement = try statement(sql)
        do {
            try statement.reset(binding: arguments)
            while try statement.step() { try body(statement) }
            statement.resetAndClearBindings()
        } catch {
            forget(sql)
            throw error
        }
    }

    /// The first column of the first row of a cached statement.
    package func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws(StrataError) -> SQLValue? {
        let statement = try statement(sql)
        do {
            return try statement.scalar(arguments)
        } catch {
            forget(sql)
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes64(handle)) }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The most parameters one statement may have on this connection (SQLITE_LIMIT_VARIABLE_NUMBER).
    var parameterLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// The names of the database's tables.
    package func tableNames() throws(StrataError) -> Set<String> {
        Set(try rows("SELECT name FROM sqlite_master WHERE type = 'table'", []) { $0.text(0) })
    }

    /// The names of a table's columns, in order.
    package func columnNames(of table: String) throws(StrataError) -> [String] {
        try rows("SELECT name FROM pragma_table_info(?1) ORDER BY cid", [.text(table)]) { $0.text(0) }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Inside a transaction already (a migration's custom stage saving through a store on the
    /// migration's connection), `body` runs in a savepoint instead: released when it returns,
    /// rolled back to when it throws, and committed or rolled back with the outer transaction
    /// (https://sqlite.org/lang_savepoint.html).
    func transaction<T>(immediate: Bool, _ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        if isInTransaction { return try savepoint(body) }
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        let result: T
        do {
            result = try body()
        } catch {
            rollback()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint of the open transaction.
    private func savepoint<T>(_ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        try execute("SAVEPOINT \"strata_nested\"")
        let result: T
        do {
            result = try body()
        } catch {
            // Some errors roll the whole transaction back themselves; then there is no
            // savepoint left, and the outer transaction's rollback finds nothing either.
            if isInTransaction {
                sqlite3_exec(handle, "ROLLBACK TO \"strata_nested\"; RELEASE \"strata_nested\"", nil, nil, nil)
            }
            throw error
        }
        try execute("RELEASE \"strata_nested\"")
        return result
    }

    /// Rolls back whatever transaction is open; never fails (a failed statement may already have
    /// rolled it back: https://sqlite.org/lang_transaction.html, "Response To Errors").
    func rollback() {
        if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// Rolls back to a savepoint and releases it; never fails (nothing is left to roll back
    /// when an error rolled the whole transaction back already).
    func rollback(toSavepoint name: String) {
        guard isInTransaction else { return }
        sqlite3_exec(handle, "ROLLBACK TO \(quoted(name)); RELEASE \(quoted(name))", nil, nil, nil)
    }

    /// Runs `body` again while it fails because another connection holds a lock it needs
    /// (`SQLITE_BUSY`, `SQLITE_LOCKED`), for up to the busy timeout. For the few steps
    /// whose lock SQLite does not wait for through the busy handler: the switch to WAL, which
    /// needs an exclusive lock (https://sqlite.org/pragma.html#pragma_journal_mode).
    func retryingWhileBusy<T>(_ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.busyTimeout))
        while true {
            clearLastError()
            do {
                return try body()
            } catch {
                let primary = lastErrorCode & 0xFF
                guard primary == SQLITE_BUSY || primary == SQLITE_LOCKED, ContinuousClock.now < deadline else { throw error }
                rollback()
                usleep(10_000)
            }
        }
    }

    // MARK: - Errors

    func clearLastError() {
        lastErrorCode = SQLITE_OK
        lastErrorWasLimit = false
    }

    /// An error for a failed call, with the SQL (which never contains values: they are bound)
    /// and SQLite's own message, each cut to ``echoLimit`` characters: a statement of a large
    /// model (a `CREATE TABLE` of thousands of columns) would bury the message.
    func error(_ rc: Int32, sql: String?, message: String? = nil) -> StrataError {
        if let functionError {
            self.functionError = nil
            lastErrorCode = rc
            return functionError
        }
        let raw = message ?? String(cString: sqlite3_errmsg(handle))
        lastErrorWasLimit = Self.limitMessages.contains { raw.hasPrefix($0) }
        let text = Self.capped(raw)
        var description = "SQLite error \(rc) (\(String(cString: sqlite3_errstr(rc)))): \(text)"
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            description = "the store is busy: another connection held a lock on it for more than \(Self.busyTimeout / 1000) s (\(description)); try again"
        case SQLITE_READONLY:
            description = "the store is read-only: \(description)"
        default: break
        }
        if let sql { description += "\n  while running: \(Self.capped(sql))" }
        lastErrorCode = rc
        return StrataError(Self.code(for: rc), description, file: path, cause: StrataError.Cause(domain: .sqlite, code: rc, message: raw))
    }

    /// How many characters of a statement or message an error echoes.
    static let echoLimit = 300

    /// `text`, or its first ``echoLimit`` characters and how many there were.
    static func capped(_ text: String) -> String {
        guard text.count > echoLimit else { return text }
        return "\(text.prefix(echoLimit))… (\(text.count) characters in all)"
    }

    /// How SQLite's messages begin when a statement exceeds one of its limits (sqlite3.c:
    /// `sqlite3ExprCheckHeight`, `yyStackOverflow`, `sqlite3WhereBegin`, `sqlite3ExprAssignVarNumber`,
    /// `sqlite3SrcListEnlarge`, `sqlite3ExpandSubquery`, `sqlite3ResolveOrderGroupBy`, ...).
    static let limitMessages = [
        "Expression tree is too large", "parser stack overflow", "at most ", "too many SQL variables",
        "too many FROM clause terms", "too many columns", "too many terms in ", "too many references to",
        "statement too long",
    ]

    /// Extended result codes that Swift does not import (they are macros over expressions).
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)

    static func code(for rc: Int32) -> StrataError.Code {
        switch rc & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corruptStore
        case SQLITE_CONSTRAINT: .validationFailed
        default: .storeIO
        }
    }
}
