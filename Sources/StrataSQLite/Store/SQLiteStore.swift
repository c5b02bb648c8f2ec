internal import Synchronization
public import Foundation
public import Logging
public import Strata

/// An incremental store on the system's SQLite: every fetch request is compiled to SQL, records
/// are read on demand, to-many relationships load lazily, and each save is one transaction.
///
/// The file is a plain SQLite database that the `sqlite3` shell can read: one table per
/// inheritance root named after the root entity, one column per attribute (see `StoreLayout`
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
    /// This open store, as the `origin` of its rows of `strata_history` (its observer leaves
    /// them out).
    let instanceIdentifier = UUID().uuidString
    private let metadataState: Locked<StoreMetadata>
    /// The model hash the file had when the store was opened: every write checks it still has.
    private let openedModelHash: String
    /// False for a store a migration lends to its custom stages (``init(migrating:url:schema:metadata:)``):
    /// the migration changes the file's model under it, in its own transaction.
    private let checksIdentity: Bool
    /// How many requests were answered in memory because SQL could not express them (tests
    /// assert it stays 0).
    let inMemoryFallbacks = Atomic<Int>(0)
    /// Where the store reports, at `.debug` with the reason, each request it answers in memory
    /// because SQL cannot express it (or SQLite refused the statement for one of its limits).
    public let logger: Logger

    /// How many reader connections a store on a file opens.
    static let readerCount = 3

    /// The option that opens a store for reading only: `options: [SQLiteStore.readOnlyOption: "true"]`.
    /// Saves then fail, and nothing is ever written to the file.
    public static let readOnlyOption = "readOnly"

    /// The option for a file no other process knows yet — one made under a temporary name and
    /// published whole by a link or rename once written (`strata load` builds a new store so):
    /// `options: [SQLiteStore.privateFileOption: "true"]`.
    ///
    /// The file is written with its rollback journal in memory instead of through the
    /// write-ahead log, which writes every page twice — into the log, then into the database at
    /// the checkpoint, read back from the log (for a store built by one large save, a third of
    /// its I/O calls). A save still commits whole or not at all, and the file is synced at each
    /// commit; only a crash in the middle of a save can leave the file torn, which is why no
    /// one else may use it. It has no reader connections, and reads without memory mapping
    /// (rows read back while the save builds its indexes would otherwise count as the
    /// process's resident memory: +43 MiB for a 60 MB store). ``finishPrivateFile()`` switches
    /// it to WAL before it is published.
    public static let privateFileOption = "privateFile"

    /// Opened with ``privateFileOption``.
    let privateFile: Bool

    /// Whether saves are refused: the store was opened with ``readOnlyOption``, or this process
    /// cannot write the file (or create its `-wal` and `-shm` files beside it).
    public let isReadOnly: Bool
    let access: FileAccess?

    /// Opens the store at `url`, creating it when the file does not exist; a nil `url` is a
    /// store in memory.
    ///
    /// An existing file is checked before anything is written to it: a file that is not SQLite,
    /// a truncated database, a SQLite database that is not a Strata store, or a store written
    /// with another model is refused, and the file is left as it was. A file this process
    /// cannot write is opened for reading, as with ``readOnlyOption``.
    ///
    /// Any number of processes may open one file at once: SQLite's locks order their
    /// transactions, and a new file is created whole, under its name only once it holds its
    /// tables, so that two processes creating it at once end up sharing one store.
    ///
    /// When the file is replaced by another store while this one is open (`strata convert
    /// --force`, which copies into it with SQLite's backup API), every write — saves,
    /// ``allocatePrimaryKeys(rootEntity:count:)``, ``setCustomMetadata(_:)`` — is refused with
    /// `storeIO` and writes nothing: each write transaction first checks that the file's
    /// `storeIdentifier` is still this store's. Likewise, once another process has migrated the
    /// store to another model (``SQLiteStoreFactory/migrateStore(at:plan:options:progress:)``),
    /// every write is refused with `incompatibleModel`: the same query reads the file's
    /// `modelVersionHash`. Fetches are not checked (a check per fetch
    /// would cost a query on the hot path, and a read damages nothing) and return what the
    /// file holds now; open the store again to work with it. (A fetch that fails on a migrated
    /// file — a column it names is gone — fails with `incompatibleModel`, saying so.)
    /// - Throws: `StrataError` — `corruptStore`, `incompatibleModel`, `unsupportedModel`
    ///   (a model this layout cannot hold) or `storeIO`, naming the file.
    /// - Parameter url: the database file, or nil for a store in memory.
    /// - Parameter schema: the model; a store written with another model is refused.
    /// - Parameter configurationName: the model configuration whose entities this store holds;
    ///   every entity when nil.
    /// - Parameter options: the store's options, such as ``readOnlyOption``.
    /// - Parameter logger: where the store reports requests it answers in memory.
    public init(
        url: URL?, schema: Schema, configurationName: String? = nil, options: [String: String] = [:],
        logger: Logger = Logger(label: "strata.sqlite")
    ) throws(StrataError) {
        self.logger = logger
        let layout = StoreLayout(schema: schema, configurationName: configurationName)
        guard layout.problems.isEmpty else {
            throw StrataError(.unsupportedModel, "a SQLite store cannot hold model '\(schema.name)': \(layout.problems.joined(separator: "; "))", file: url?.path)
        }
        self.layout = layout
        self.url = url
        self.configurationName = configurationName
        let readOnly = options[Self.readOnlyOption].map { ["true", "1", "yes"].contains($0.lowercased()) } ?? false
        privateFile = url != nil && !readOnly && (options[Self.privateFileOption].map { ["true", "1", "yes"].contains($0.lowercased()) } ?? false)
        var metadata: StoreMetadata
        let writer: Database
        var readers: [Connection] = []
        if let url {
            let path = url.path
            if !Self.exists(path) {
                if readOnly { throw StrataError(.storeIO, "no store at '\(url.relativePath)' to open for reading", file: path) }
                try StoreFile.create(url, layout: layout, metadata: StoreMetadata(newStoreOf: .sqlite, schema: schema, identifier: UUID().uuidString))
            }
            let access = try FileAccess(url, readOnly: readOnly)
            writer = try access.open()
            metadata = try StoreFile.readMetadata(writer)
            if let problem = metadata.incompatibility(with: schema) {
                var error = problem
                error.file = path
                throw error
            }
            if access.canWrite {
                try Self.configure(writer, privateFile: privateFile)
                try StoreLayoutUpgrade.run(on: writer, layout: layout)
                try Self.createMissingTables(layout, writer)
                try layout.reconcileIndexes(writer)
            } else {
                let version = try StoreLayoutUpgrade.version(writer)
                guard version == StoreLayoutUpgrade.currentVersion else {
                    throw StrataError(.storeIO, "the store has the file layout \(version) of an earlier Strata, which is upgraded in place when the store is opened for writing; here it is opened for reading only, so it cannot be read. Open it once where this process can write it (any save or query does), then read it anywhere", file: path)
                }
                try Self.tune(writer)
            }
            for _ in 0..<(privateFile ? 0 : Self.readerCount) {
                let reader = try access.open()
                try Self.tune(reader)
                try reader.execute("PRAGMA query_only = 1")
                readers.append(Connection(reader))
            }
            self.access = access
            isReadOnly = !access.canWrite
            capabilities = [.incrementalFetching, .concurrentReaders, .engineUniqueness, .persistent]
        } else {
            metadata = StoreMetadata(newStoreOf: .sqlite, schema: schema, identifier: UUID().uuidString)
            writer = try Database(path: ":memory:", mode: .init(readOnly: false, create: true))
            try Self.create(layout, metadata, writer)
            access = nil
            isReadOnly = false
            capabilities = [.incrementalFetching, .engineUniqueness]
        }
        storeIdentifier = metadata.storeIdentifier
        openedModelHash = metadata.modelVersionHash
        checksIdentity = true
        metadataState = Locked(metadata)
        pool = ConnectionPool(writer: Connection(writer), readers: readers)
    }

    /// A store over a migration's own connection, inside the migration's transaction, for its
    /// custom stages: reads and saves go through that connection (no readers; the file is not
    /// opened again), and saves nest in the migration's transaction as savepoints, so a throw
    /// anywhere in the migration rolls them back with the rest.
    /// - Parameters:
    ///   - schema: the model the file has at this point of the migration (the step's source
    ///     model before its SQL runs, the destination model after).
    ///   - metadata: the file's metadata, for the store identifier.
    init(migrating database: Database, url: URL, schema: Schema, metadata: StoreMetadata) throws(StrataError) {
        privateFile = false
        let layout = StoreLayout(schema: schema, configurationName: nil)
        guard layout.problems.isEmpty else {
            throw StrataError(.unsupportedModel, "a SQLite store cannot hold model '\(schema.name)': \(layout.problems.joined(separator: "; "))", file: url.path)
        }
        self.layout = layout
        self.url = url
        configurationName = nil
        logger = Logger(label: "strata.sqlite")
        access = try FileAccess(url, readOnly: false)
        isReadOnly = false
        capabilities = [.incrementalFetching, .engineUniqueness, .persistent]
        storeIdentifier = metadata.storeIdentifier
        openedModelHash = schema.versionHash
        checksIdentity = false
        var current = metadata
        current.modelName = schema.name
        current.modelVersionHash = schema.versionHash
        metadataState = Locked(current)
        pool = ConnectionPool(writer: Connection(sharing: database), readers: [])
    }

    /// Whether a file (or a link to one) is at `path`.
    private static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// WAL with `synchronous=NORMAL`: a commit appends to the log without an fsync; the log is
    /// synced at checkpoints, so a crash loses at most the last commits, never consistency
    /// (https://sqlite.org/pragma.html#pragma_synchronous).
    /// With `privateFile` (``privateFileOption``), the rollback journal is kept in memory instead.
    static func configure(_ database: Database, privateFile: Bool = false) throws(StrataError) {
        if privateFile {
            if let stays = try switchJournal(database, to: "memory") {
                throw StrataError(.storeIO, "the private file's journal cannot be kept in memory (it stays in mode \(stays))", file: database.path)
            }
            try database.execute("PRAGMA synchronous = FULL")
            try tune(database, mapped: false)
            return
        }
        try database.retryingWhileBusy { () throws(StrataError) in
            // The switch needs an exclusive lock, which SQLite does not wait for.
            if let stays = try switchJournal(database, to: "wal") {
                throw StrataError(.storeIO, "the database cannot be switched to WAL mode (it stays in mode \(stays)); check that its directory is writable", file: database.path)
            }
        }
        try database.execute("PRAGMA synchronous = NORMAL")
        try tune(database)
    }

    /// Sets the journal mode (lowercase); nil when the database is in it now, else the mode the
    /// pragma answers, which stays the old one when the switch fails.
    private static func switchJournal(_ database: Database, to mode: String) throws(StrataError) -> String? {
        let answer = try database.scalar("PRAGMA journal_mode = \(mode)")
        if case .text(let name) = answer, name.lowercased() == mode { return nil }
        return answer.map { "\($0)" } ?? "unknown"
    }

    /// Reads through memory-mapped I/O, which the connections share through the OS page cache
    /// instead of each copying pages in with read(2) (https://sqlite.org/mmap.html), and a page
    /// cache of 8 MiB per connection. Not `mapped`: read(2) only (``privateFileOption``).
    private static func tune(_ database: Database, mapped: Bool = true) throws(StrataError) {
        try database.execute("PRAGMA mmap_size = \(mapped ? 268435456 : 0)")
        try database.execute("PRAGMA cache_size = -8192")
    }

    static func create(_ layout: StoreLayout, _ metadata: StoreMetadata, _ database: Database) throws(StrataError) {
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

    /// Tables of entities another configuration's store did not create. What exists is read
    /// inside the writing transaction, so that two processes opening the file at once do not
    /// both create a table.
    private static func createMissingTables(_ layout: StoreLayout, _ database: Database) throws(StrataError) {
        let names = "SELECT name FROM sqlite_master"
        let existing = Set(try database.rows(names, []) { $0.text(0) })
        guard layout.namedCreationStatements.contains(where: { !existing.contains($0.name) }) else { return }
        try database.transaction(immediate: true) { () throws(StrataError) in
            let existing = Set(try database.rows(names, []) { $0.text(0) })
            for statement in layout.namedCreationStatements where !existing.contains(statement.name) {
                try database.execute(statement.sql)
            }
            for root in layout.tables.keys.sorted() {
                try database.run("INSERT OR IGNORE INTO \"strata_keys\" (\"entity\", \"last\") VALUES (?, 0)", [.text(root)])
            }
        }
    }

    /// Ends the mode of ``privateFileOption`` before the file is published: the file is switched
    /// to WAL, as every store's file is, so that opening it later finds it as any other (a file
    /// left in rollback mode would be changed by its first opening, and read where its log
    /// could not be made). Nothing for a store opened without the option.
    public func finishPrivateFile() throws(StrataError) {
        guard privateFile else { return }
        try pool.write { (database) throws(StrataError) in try Self.configure(database) }
    }

    /// Refuses a write to a store opened for reading.
    func checkWritable() throws(StrataError) {
        if isReadOnly, let access { throw access.readOnlyError }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`) that first checks, atomically
    /// with the writes, that the file still holds this store: `strata convert --force` copies
    /// another store into the file with SQLite's backup API, which other connections see (as
    /// they should), but whose rows have the versions and keys of another store — an update
    /// of this store's object 7 at version 1 would overwrite the other store's object 7.
    ///
    /// With `journalsInMemory`, statement and savepoint journals (the content of pages before
    /// each statement, so that it alone can be undone) are kept in memory, set outside the
    /// transaction: in temporary files they were more page writes than the rows themselves for
    /// statements of many rows (a bulk load's, a batch insert's). Not on a connection inside a
    /// transaction already — a migration's, whose temporary tables a change of temp_store would
    /// drop.
    func writeTransaction<T>(_ database: Database, journalsInMemory: Bool = false, _ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        let inMemory = journalsInMemory && !database.isInTransaction
        if inMemory { try database.execute("PRAGMA temp_store = MEMORY") }
        defer { if inMemory { try? database.execute("PRAGMA temp_store = DEFAULT") } }
        return try database.transaction(immediate: true) { () throws(StrataError) in
            try checkNotReplaced(database)
            return try body()
        }
    }

    /// The file's store identifier and model hash, read in one cached statement from the
    /// indexed `strata_metadata` table.
    private static let storedIdentitySQL = """
        SELECT (SELECT "value" FROM "strata_metadata" WHERE "key" = '\(StoreMetadata.Key.storeIdentifier)'), \
        (SELECT "value" FROM "strata_metadata" WHERE "key" = '\(StoreMetadata.Key.modelVersionHash)')
        """

    /// Runs `body` on a reader. Reads are not checked up front (a query per fetch on the hot
    /// path), but when one fails and the file's model is no longer the one this store opened
    /// with — another process migrated it, so columns this store's SQL names may be gone or
    /// hold other values — the error says that instead of SQLite's.
    func reading<T: Sendable>(_ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        do {
            return try pool.read(body)
        } catch {
            guard access != nil, checksIdentity,
                  case .text(let stored)? = try? pool.read({ (database) throws(StrataError) -> SQLValue? in try database.scalar(Self.storedModelHashSQL) }),
                  stored != openedModelHash else { throw error }
            throw migratedError(stored, nothing: "nothing was read")
        }
    }

    private static let storedModelHashSQL = "SELECT \"value\" FROM \"strata_metadata\" WHERE \"key\" = '\(StoreMetadata.Key.modelVersionHash)'"

    /// The error for a store another process migrated to the model with hash `stored`.
    private func migratedError(_ stored: String?, nothing: String) -> StrataError {
        StrataError(.incompatibleModel, "the store was migrated to another model (hash \(stored.map { "\($0.prefix(12))…" } ?? "none")) by another process since it was opened with model '\(metadata.modelName)' (hash \(openedModelHash.prefix(12))…); \(nothing). Open it again with the new model", file: url?.path)
    }

    /// Refuses the write when the file now holds another store (or none), or this store
    /// migrated to another model by another process (which changed the tables this store's
    /// statements were written for). A store in memory is never replaced, and is not checked;
    /// nor is a store a migration lends to its custom stages.
    private func checkNotReplaced(_ database: Database) throws(StrataError) {
        guard access != nil, checksIdentity else { return }
        let stored = try database.rows(Self.storedIdentitySQL) { row in
            (row.isNull(0) ? nil : row.text(0), row.isNull(1) ? nil : row.text(1))
        }
        guard let (identifier, hash) = stored.first, let identifier else {
            throw StrataError(.storeIO, "the store file was replaced since it was opened: its strata_metadata has no storeIdentifier now (this store is \(storeIdentifier)); nothing was saved. Open the store again to see what the file holds now", file: url?.path)
        }
        guard identifier == storeIdentifier else {
            throw StrataError(.storeIO, "the store file was replaced by another store (UUID \(identifier), this one is \(storeIdentifier)) since it was opened, by a convert --force or a copy; nothing was saved. Open the store again to work with what it holds now", file: url?.path)
        }
        guard hash == openedModelHash else { throw migratedError(hash, nothing: "nothing was saved") }
    }

    public var metadata: StoreMetadata { metadataState.withLock { $0 } }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        try checkWritable()
        try pool.write { (database) throws(StrataError) in
            try writeTransaction(database) { () throws(StrataError) in try StoreFile.writeCustom(custom, database) }
        }
        metadataState.withLock { $0.custom = custom }
    }

    public func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        guard count > 0 else { return [] }
        try checkWritable()
        guard layout.tables[rootEntity] != nil else {
            throw StrataError(.unknownEntity, "this SQLite store has no hierarchy rooted at '\(rootEntity)'", file: url?.path)
        }
        let last = try pool.write { (database) throws(StrataError) -> SQLValue? in
            try writeTransaction(database) { () throws(StrataError) in
                try database.scalar(
                    "UPDATE \"strata_keys\" SET \"last\" = \"last\" + ?1 WHERE \"entity\" = ?2 RETURNING \"last\"",
                    [.integer(Int64(count)), .text(rootEntity)])
            }
        }
        guard case .integer(let end) = last else {
            throw StrataError(.corruptStore, "strata_keys has no row for '\(rootEntity)'", file: url?.path)
        }
        return Array((end - Int64(count) + 1)...end)
    }
}
