internal import Strata
internal import Synchronization

/// One connection behind a lock: used by one thread at a time, from any thread.
final class Connection: Sendable {
    private let database: Locked<Database>

    init(_ database: consuming sending Database) {
        self.database = Locked(database)
    }

    /// A second lock around a connection its creator keeps using: a migration's connection,
    /// lent to the stores its custom stages save through. Safe because the migration calls
    /// those stores synchronously on its own thread and touches the connection itself only
    /// between their calls, never at the same time.
    init(sharing database: Database) {
        nonisolated(unsafe) let shared = database
        self.database = Locked(shared)
    }

    func use<T: Sendable>(_ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        try database.withLock { (database: inout Database) throws(StrataError) -> T in try body(database) }
    }

    /// Runs `body` if the connection is free; nil when another thread holds it.
    func useIfAvailable<T: Sendable>(_ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T? {
        try database.withLockIfAvailable { (database: inout Database) throws(StrataError) -> T in try body(database) }
    }
}

/// One writer connection and a few reader connections (WAL lets readers read the last
/// committed state while the writer writes: https://sqlite.org/wal.html).
final class ConnectionPool: Sendable {
    let writer: Connection
    let readers: [Connection]
    private let next = Atomic<Int>(0)

    init(writer: Connection, readers: [Connection]) {
        self.writer = writer
        self.readers = readers
    }

    /// Runs `body` on the first free reader — so that one task reading alone keeps using one
    /// connection, with its cache warm — or waits for one; on the writer when there are no
    /// readers (a store in memory).
    func read<T: Sendable>(_ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        guard !readers.isEmpty else { return try writer.use(body) }
        for reader in readers {
            if let result = try reader.useIfAvailable(body) { return result }
        }
        let start = next.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max
        return try readers[start % readers.count].use(body)
    }

    func write<T: Sendable>(_ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        try writer.use(body)
    }
}
