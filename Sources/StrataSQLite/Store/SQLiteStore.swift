internal import Synchronization
public import Foundation
public import Strata

/// An incremental store on the system's SQLite: every fetch request is compiled to SQL, records
/// are read on demand, to-many relationships load lazily, and each save is one transaction.
///
/// The file is a plain SQLite database that the `sqlite3` shell can read: one table per
/// inheritance root named after the root entity, one column per attribute (see ``StoreLayout``
/// in the source for the whole layout). The store uses one writer connection and a few reader
/// connections in WAL mode, so fetches run while a save is in progress.
///
/// ```swift
/// var types = StoreTypeRegistry([SQLiteStoreFactory()])
/// let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
/// try coordinator.addStore(StoreDescription(type: .sqlite, url: URL(fileURLWithPath: "todos.sqlite")))
/// ```
public final class SQLiteStore: PersistentStore {
    public var type: StoreType { .sqlite }
    public let url: URL?
    public let configurationName: String?
    public let capabilities: StoreCapabilities

    let layout: StoreLayout
    let pool: ConnectionPool
    public let storeIdentifier: String
    private let metadataState: Locked<StoreMetadata>
    /// How many requests were answered in memory because SQL could not express them (tests
    /// assert it stays 0).
    let inMemoryFallbacks = Atomic<Int>(0)

    /// How many reader connections a store on a file opens.
    static let readerCount = 3

    /// Opens the store at `url`, creating it when the file does not exist; a nil `url` is a
    /// store in memory.
    ///
    /// An existing file is checked before anything is written to it: a file that is not SQLite,
    /// a truncated database, a SQLite database that is not a Strata store, or a store written
    /// with another model is refused, and the file is left as it was.
    /// - Throws: ``StrataError`` — `corruptStore`, `incompatibleModel`, `unsupportedModel`
    ///   (a model this layout cannot hold) or `storeIO`, naming the file.
    public init(url: URL?, schema: Schema, configurationName: String? = nil, options: [String: String] = [:]) throws(StrataError) {
        let layout = StoreLayout(schema: schema, configurationName: configurationName)
        guard layout.problems.isEmpty else {
            throw StrataError(.unsupportedModel, "a SQLite store cannot hold model '\(schema.name)': \(layout.problems.joined(separator: "; "))", file: url?.path)
        }
        self.layout = layout
        self.url = url
        self.configurationName = configurationName
        var metadata: StoreMetadata
        let writer: Database
        var readers: [Connection] = []
        if let url {
            let path = url.path
            if FileManager.default.fileExists(atPath: path) {
                metadata = try StoreFile.readMetadata(url)
                if let problem = metadata.incompatibility(with: schema) {
                    var error = problem
                    error.file = path
                    throw error
                }
                writer = try Database(path: path, mode: .init(readOnly: false, create: false))
                try Self.configure(writer)
                try StoreLayoutUpgrade.run(on: writer, layout: layout)
                try Self.createMissingTables(layout, writer)
            } else {
                metadata = StoreMetadata(newStoreOf: .sqlite, schema: schema, identifier: UUID().uuidString)
                do {
                    writer = try Database(path: path, mode: .init(readOnly: false, create: true))
                    try Self.configure(writer)
                    try Self.create(layout, metadata, writer)
                } catch {
                    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                    throw error
                }
            }
            for _ in 0..<Self.readerCount {
                let reader = try Database(path: path, mode: .init(readOnly: false, create: false))
                try Self.tune(reader)
                try reader.execute("PRAGMA query_only = 1")
                readers.append(Connection(reader))
            }
            capabilities = [.incrementalFetching, .concurrentReaders, .engineUniqueness, .persistent]
        } else {
            metadata = StoreMetadata(newStoreOf: .sqlite, schema: schema, identifier: UUID().uuidString)
            writer = try Database(path: ":memory:", mode: .init(readOnly: false, create: true))
            try Self.create(layout, metadata, writer)
            capabilities = [.incrementalFetching, .engineUniqueness]
        }
        storeIdentifier = metadata.storeIdentifier
        metadataState = Locked(metadata)
        pool = ConnectionPool(writer: Connection(writer), readers: readers)
    }

    /// WAL with `synchronous=NORMAL`: a commit appends to the log without an fsync; the log is
    /// synced at checkpoints, so a crash loses at most the last commits, never consistency
    /// (https://sqlite.org/pragma.html#pragma_synchronous).
    private static func configure(_ database: Database) throws(StrataError) {
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        try tune(database)
    }

    /// Reads through memory-mapped I/O, which the connections share through the OS page cache
    /// instead of each copying pages in with read(2) (https://sqlite.org/mmap.html), and a page
    /// cache of 8 MiB per connection.
    private static func tune(_ database: Database) throws(StrataError) {
        try database.execute("PRAGMA mmap_size = 268435456")
        try database.execute("PRAGMA cache_size = -8192")
    }

    private static func create(_ layout: StoreLayout, _ metadata: StoreMetadata, _ database: Database) throws(StrataError) {
        try database.transaction(immediate: true) { () throws(StrataError) in
            for statement in layout.creationStatements { try database.execute(statement) }
            for (key, value) in StoreFile.rows(metadata) {
                try database.run("INSERT INTO \"strata_metadata\" (\"key\", \"value\") VALUES (?, ?)", [.text(key), .text(value)])
            }
            for root in layout.tables.keys.sorted() {
                try database.run("INSERT OR IGNORE INTO \"strata_keys\" (\"entity\", \"last\") VALUES (?, 0)", [.text(root)])
            }
        }
    }

    /// Tables of entities another configuration's store did not create.
    private static func createMissingTables(_ layout: StoreLayout, _ database: Database) throws(StrataError) {
        let existing = Set(try database.rows("SELECT name FROM sqlite_master", []) { $0.text(0) })
        let missing = layout.namedCreationStatements.filter { !existing.contains($0.name) }
        guard !missing.isEmpty else { return }
        try database.transaction(immediate: true) { () throws(StrataError) in
            for statement in missing { try database.execute(statement.sql) }
            for root in layout.tables.keys.sorted() {
                try database.run("INSERT OR IGNORE INTO \"strata_keys\" (\"entity\", \"last\") VALUES (?, 0)", [.text(root)])
            }
        }
    }

    public var metadata: StoreMetadata { metadataState.withLock { $0 } }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        try pool.write { (database) throws(StrataError) in
            try database.transaction(immediate: true) { () throws(StrataError) in try StoreFile.writeCustom(custom, database) }
        }
        metadataState.withLock { $0.custom = custom }
    }

    public func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        guard count > 0 else { return [] }
        guard layout.tables[rootEntity] != nil else {
            throw StrataError(.unknownEntity, "this SQLite store has no hierarchy rooted at '\(rootEntity)'", file: url?.path)
        }
        let last = try pool.write { (database) throws(StrataError) -> SQLValue? in
            try database.scalar(
                "UPDATE \"strata_keys\" SET \"last\" = \"last\" + ?1 WHERE \"entity\" = ?2 RETURNING \"last\"",
                [.integer(Int64(count)), .text(rootEntity)])
        }
        guard case .integer(let end) = last else {
            throw StrataError(.corruptStore, "strata_keys has no row for '\(rootEntity)'", file: url?.path)
        }
        return Array((end - Int64(count) + 1)...end)
    }
}
