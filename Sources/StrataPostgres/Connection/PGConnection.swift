internal import CLibPQ
internal import Foundation
internal import Strata

/// One libpq connection: blocking calls, values sent as text parameters (`$1`, `$2`, …) of a
/// statement PostgreSQL types from its context, results read as text; a save's rows and a
/// fetch's records go in the binary format, many statements a round trip
/// (PGConnection+Binary.swift).
///
/// Not thread-safe: a connection is used by one caller at a time (``PGConnectionPool`` hands it
/// out). Closed when released.
final class PGConnection {
    let handle: OpaquePointer
    let pq: LibPQ
    /// What errors name as the place: the store's URL without its password.
    let location: String

    /// A value of a parameter: text, or SQL NULL.
    typealias Parameter = String?

    /// Connects with a libpq connection string (`postgresql://…` URI or `key=value` pairs).
    /// - Throws: `storeIO` with libpq's message, or when libpq cannot be loaded (``LibPQ``).
    init(conninfo: String, location: String) throws(StrataError) {
        self.location = location
        let pq = try LibPQ.load(for: location)
        self.pq = pq
        guard let connection = pq.connectdb(conninfo) else {
            throw StrataError(.storeIO, "cannot connect to PostgreSQL: libpq is out of memory", file: location)
        }
        guard pq.status(connection) == CONNECTION_OK else {
            let message = Self.message(pq.errorMessage(connection))
            pq.finish(connection)
            throw StrataError(.storeIO, "cannot connect to PostgreSQL: \(message)", file: location)
        }
        handle = connection
    }

    deinit { pq.finish(handle) }

    /// Whether the connection is still usable (a server restart or a network failure breaks it).
    var isHealthy: Bool { pq.status(handle) == CONNECTION_OK }

    /// Whether a transaction is open on the connection (also one that failed and waits for its
    /// `ROLLBACK`).
    var isInTransaction: Bool {
        let status = pq.transactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs one statement and returns its rows (none for a command).
    /// - Throws: ``PGError`` with the server's SQLSTATE and message.
    @discardableResult
    func query(_ sql: String, _ parameters: [Parameter] = []) throws(PGError) -> PGResult {
        let result: OpaquePointer?
        if parameters.isEmpty {
            result = pq.execParams(handle, sql, 0, nil, nil, nil, nil, 0)
        } else {
            // Every parameter as a NUL-terminated C string, alive until the call returns.
            var storage: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
            defer { for pointer in storage { free(pointer) } }
            result = storage.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                    pq.execParams(handle, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
                }
            }
        }
        guard let result else {
            throw PGError(state: "", message: Self.message(pq.errorMessage(handle)))
        }
        let status = pq.resultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = pq.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = Self.message(pq.resultErrorMessage(result))
            pq.clear(result)
            throw PGError(state: state, message: message.isEmpty ? Self.message(pq.errorMessage(handle)) : message)
        }
        return PGResult(result, pq)
    }

    /// Runs `body` in a transaction (`BEGIN` with `mode`, then `COMMIT`); any error rolls it back.
    func transaction<T>(_ mode: String = "", _ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        try run("BEGIN\(mode.isEmpty ? "" : " ")\(mode)")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            if isInTransaction { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    /// Runs a statement, turning a server error into a `StrataError` naming the store.
    @discardableResult
    func run(_ sql: String, _ parameters: [Parameter] = []) throws(StrataError) -> PGResult {
        do {
            return try query(sql, parameters)
        } catch {
            throw error.strataError(location: location)
        }
    }

    /// Waits up to `milliseconds` for notifications of the channels this connection `LISTEN`s
    /// to, and returns their payloads (none when the time ran out).
    /// - Throws: ``PGError`` when the connection broke.
    func notifications(waitingUpTo milliseconds: Int32) throws(PGError) -> [String] {
        var descriptor = pollfd(fd: pq.socket(handle), events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, milliseconds) > 0 || pq.status(handle) != CONNECTION_OK {
            guard pq.consumeInput(handle) == 1, pq.status(handle) == CONNECTION_OK else {
                throw PGError(state: "", message: Self.message(pq.errorMessage(handle)))
            }
        }
        var payloads: [String] = []
        while let notification = pq.notifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            pq.freemem(notification)
        }
        return payloads
    }

    /// A string literal for the few statements that take no parameters (`SET`): single quotes,
    /// a quote inside doubled. Values of saves and fetches are always parameters.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
    }
}

/// An error the server (or libpq) reported: its SQLSTATE code and message.
struct PGError: Error {
    /// The five-character SQLSTATE (`23505` unique violation, `40P01` deadlock, …); empty when
    /// libpq failed without reaching the server.
    var state: String
    var message: String
    /// The server's detail line (`Key ("_pk")=(7) already exists.`); empty when it gave none.
    var detail = ""

    static let uniqueViolation = "23505"
    /// What a uniqueness constraint (an exclusion constraint) reports.
    static let exclusionViolation = "23P01"
    static let deadlock = "40P01"
    static let serializationFailure = "40001"

    func strataError(location: String) -> StrataError {
        StrataError(.storeIO, "PostgreSQL: \(message)\(state.isEmpty ? "" : " (SQLSTATE \(state))")", file: location)
    }
}

/// The rows of a statement, read as text; freed when released.
final class PGResult {
    let result: OpaquePointer
    let pq: LibPQ

    init(_ result: OpaquePointer, _ pq: LibPQ) {
        self.result = result
        self.pq = pq
    }

    deinit { pq.clear(result) }

    var count: Int { Int(pq.ntuples(result)) }
    /// Rows a command changed (`UPDATE`, `DELETE`, `INSERT`).
    var affectedRows: Int { pq.cmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { pq.getisnull(result, Int32(row), Int32(column)) == 1 }

    /// The text of a value; nil for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column), let value = pq.getvalue(result, Int32(row), Int32(column)) else { return nil }
        return String(cString: value)
    }

    func int64(_ row: Int, _ column: Int) -> Int64? { text(row, column).flatMap { Int64($0) } }
}
