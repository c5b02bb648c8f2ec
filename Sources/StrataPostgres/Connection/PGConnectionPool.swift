internal import Foundation
internal import Strata

/// The connections of one store: one writer, used by one save at a time, and up to
/// ``PostgresLocation/poolSize`` readers, opened on demand and kept for reuse.
///
/// A reader is taken for the whole of one request and given back after; when every reader is
/// busy, the request waits for one. A connection that broke (server restart, network) is
/// dropped instead of given back, and the next request opens a fresh one.
final class PGConnectionPool: @unchecked Sendable {
    // @unchecked: every connection is reached only under `condition` (idle ones) or by the one
    // caller that took it out; the writer only under `writerLock`.
    private let location: PostgresLocation
    private let condition = NSCondition()
    private var idle: [PGConnection] = []
    private var open = 0
    private let writerLock = NSLock()
    private var writer: PGConnection?

    init(location: PostgresLocation) {
        self.location = location
    }

    /// A new connection with the store's session settings: UTF-8, UTC, the statement timeout,
    /// and the store's schema first on the search path.
    func connect() throws(StrataError) -> PGConnection {
        let connection = try PGConnection(conninfo: location.conninfo, location: location.description)
        try connection.run("SET client_encoding = 'UTF8'")
        // libpq prints notices ("relation … already exists, skipping") on standard error.
        try connection.run("SET client_min_messages = warning")
        try connection.run("SET TIME ZONE 'UTC'")
        try connection.run("SET search_path TO \(quoted(location.schema))")
        try connection.run("SET statement_timeout = \(location.statementTimeout)")
        // Floats printed with every digit they need (shortest exact digits since PostgreSQL 12
        // for any value above 0; 3 gives enough digits on older servers too), set for servers
        // configured otherwise; likewise bytea in hex, the only output the store reads.
        try connection.run("SET extra_float_digits = 3")
        try connection.run("SET bytea_output = 'hex'")
        return connection
    }

    /// Runs `body` on a reader connection.
    func read<T>(_ body: (PGConnection) throws(StrataError) -> T) throws(StrataError) -> T {
        let connection = try take()
        var healthy = true
        defer { give(connection, healthy: healthy) }
        do {
            return try body(connection)
        } catch {
            healthy = connection.isHealthy && !connection.isInTransaction
            throw error
        }
    }

    /// Runs `body` on the writer connection, alone.
    func write<T>(_ body: (PGConnection) throws(StrataError) -> T) throws(StrataError) -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        // A writer that broke, or that an error left inside a transaction (its ROLLBACK
        // failed), is not used again: its next BEGIN would go on in that transaction.
        if let writer, !writer.isHealthy || writer.isInTransaction { self.writer = nil }
        let connection: PGConnection
        if let writer { connection = writer } else {
            connection = try connect()
            writer = connection
        }
        return try body(connection)
    }

    private func take() throws(StrataError) -> PGConnection {
        condition.lock()
        while idle.isEmpty && open >= location.poolSize { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        open += 1
        condition.unlock()
        do {
            return try connect()
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ connection: PGConnection, healthy: Bool) {
        condition.lock()
        if healthy && connection.isHealthy {
            idle.append(connection)
        } else {
            open -= 1
        }
        condition.signal()
        condition.unlock()
    }
}
