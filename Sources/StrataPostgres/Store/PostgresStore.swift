public import Foundation
public import Strata

/// An incremental store on a PostgreSQL server, for several app servers, workers and CLIs on
/// one database: each save is one transaction, optimistic locking with a version per row
/// decides between concurrent writers, and fetches read what the server holds now.
///
/// The store lives in its own PostgreSQL schema (``PostgresLocation``), in tables a person can
/// read with `psql`: the SQLite store's layout with PostgreSQL's types (see the module's
/// documentation). Values are kept exactly — a `Date` to the bit, `-0.0`, NaN and infinities,
/// decimals as `numeric`.
///
/// ```swift
/// let types = StoreTypeRegistry([PostgresStoreFactory()])
/// let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
/// try coordinator.addStore(StoreDescription(type: .postgres, url: URL(string: "postgres://app@localhost/shop?schema=orders")!))
/// ```
///
/// Connections: one for saves (a store instance saves one changeset at a time; other
/// processes' saves run concurrently with it) and up to `poolSize` for reads, opened on demand.
public final class PostgresStore: PersistentStore {
    public var type: StoreType { .postgres }
    /// The store's URL (``PostgresLocation``).
    public let url: URL?
    public let configurationName: String?
    public var capabilities: StoreCapabilities { [.incrementalFetching, .concurrentReaders, .engineUniqueness, .persistent] }
    public let storeIdentifier: String

    package let location: PostgresLocation
    let layout: PostgresLayout
    let pool: PGConnectionPool
    private let metadataState: Locked<StoreMetadata>
    /// The model hash the store had when it was opened: every save checks it still has.
    let openedModelHash: String
    /// This store instance's name in `strata_history`, so that its own saves, which its
    /// coordinator announced already, are not announced again as remote ones.
    let instanceIdentifier = UUID().uuidString
    /// What opening the store created (``removeIfCreatedAndUnused()`` takes it away again).
    package let creation: Creation

    /// Opens the store at `location`, creating its schema and tables when they do not exist.
    ///
    /// An existing store written with another model is refused (`incompatibleModel`) before
    /// anything is written. Two processes creating the same store at once end up sharing one:
    /// creation holds a transaction-scoped advisory lock on the schema's name.
    /// - Throws: `storeIO` (the server cannot be reached, or refused a statement),
    ///   `invalidConfiguration` (a bad URL), `incompatibleModel`, `unsupportedModel`.
    public init(location: PostgresLocation, schema: Schema, configurationName: String? = nil) throws(StrataError) {
        let layout = PostgresLayout(schema: schema, configurationName: configurationName)
        guard layout.problems.isEmpty else {
            throw StrataError(.unsupportedModel, "a PostgreSQL store cannot hold model '\(schema.name)': \(layout.problems.joined(separator: "; "))", file: location.description)
        }
        self.location = location
        self.layout = layout
        url = location.url
        self.configurationName = configurationName
        let pool = PGConnectionPool(location: location)
        self.pool = pool
        let (metadata, creation) = try pool.write { (connection) throws(StrataError) -> (StoreMetadata, Creation) in
            try connection.transaction { () throws(StrataError) -> (StoreMetadata, Creation) in
                try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [location.advisoryLockKey])
                // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema
                // exists: a role given a schema of its own, and no more, must open its store.
                let schemaExisted = try connection.run("SELECT 1 FROM pg_namespace WHERE nspname = $1", [location.schema]).count == 1
                if !schemaExisted { try connection.run("CREATE SCHEMA IF NOT EXISTS \(quoted(location.schema))") }
                var metadata: StoreMetadata
                var storedIdentifier: String?
                var creation = Creation.existing
                if let existing = try PostgresMetadata.read(connection, location: location) {
                    metadata = existing
                    storedIdentifier = existing.storeIdentifier
                    if let problem = metadata.incompatibility(with: schema) {
                        var error = problem
                        error.file = location.description
                        throw error
                    }
                } else {
                    metadata = StoreMetadata(newStoreOf: .postgres, schema: schema, identifier: UUID().uuidString)
                    creation = schemaExisted ? .tables : .schema
                }
                // Tables of entities another configuration's store did not create.
                for statement in layout.creationStatements { try connection.run(statement) }
                if metadata.storeIdentifier != storedIdentifier {
                    try PostgresMetadata.write(metadata, connection)
                }
                for root in layout.tables.keys.sorted() {
                    try connection.run("INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES ($1, 0) ON CONFLICT DO NOTHING", [root])
                }
                return (metadata, creation)
            }
        }
        self.creation = creation
        storeIdentifier = metadata.storeIdentifier
        openedModelHash = metadata.modelVersionHash
        metadataState = Locked(metadata)
    }

    /// A store over tables a migration reads and writes on its own connection, inside its
    /// transaction: nothing is connected, created or checked here.
    init(migrating location: PostgresLocation, layout: PostgresLayout, metadata: StoreMetadata) {
        self.location = location
        self.layout = layout
        url = location.url
        configurationName = nil
        pool = PGConnectionPool(location: location)
        storeIdentifier = metadata.storeIdentifier
        openedModelHash = metadata.modelVersionHash
        metadataState = Locked(metadata)
        creation = .existing
    }

    public var metadata: StoreMetadata { metadataState.withLock { $0 } }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        try pool.write { (connection) throws(StrataError) in
            try connection.transaction { () throws(StrataError) in
                try checkIdentity(connection)
                try PostgresMetadata.writeCustom(custom, connection)
            }
        }
        metadataState.withLock { $0.custom = custom }
    }

    /// Keys come from `strata_keys`, one `UPDATE … RETURNING` in its own transaction: every
    /// process and machine on the store draws from the same counter.
    public func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        guard count > 0 else { return [] }
        guard layout.tables[rootEntity] != nil else {
            throw StrataError(.unknownEntity, "this PostgreSQL store has no hierarchy rooted at '\(rootEntity)'", file: location.description)
        }
        let end = try pool.write { (connection) throws(StrataError) -> Int64? in
            try connection.run(
                "INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES ($2, $1::bigint) ON CONFLICT (\"entity\") DO UPDATE SET \"last\" = \"strata_keys\".\"last\" + $1::bigint RETURNING \"last\"",
                [String(count), rootEntity]).int64(0, 0)
        }
        guard let end else { throw StrataError(.corruptStore, "strata_keys gave no key for '\(rootEntity)'", file: location.description) }
        // Filled in a loop: an array made from a closed range of Int64 goes through its generic
        // index (0.8 µs a key).
        var keys: [Int64] = []
        keys.reserveCapacity(count)
        for key in (end - Int64(count) + 1)..<(end + 1) { keys.append(key) }
        return keys
    }

    /// Refuses a write when the schema now holds another store (dropped and made again by a
    /// `convert --force`, say) or was migrated to another model since this store opened it.
    ///
    /// The write's transaction first takes the store's advisory lock in shared mode, held until
    /// it ends: a migration (which takes it exclusively) waits for the writes under way, and a
    /// write waits for a migration under way and then reads the metadata it left. Without it a
    /// save that read the old model's hash could go on, once the migration committed, writing
    /// the old model's columns into the new model's tables.
    /// `beginning` (a `BEGIN`) goes first, in the same round trip.
    func checkIdentity(_ connection: PGConnection, beginning: String? = nil) throws(StrataError) {
        // Two statements (the lock, then a snapshot that sees what a migration it waited for
        // committed), one round trip.
        let result = try connection.pipeline { (pipeline) throws(StrataError) -> PGResult in
            do throws(PGError) {
                if let beginning { try pipeline.send(beginning, PGParameters()) }
                try pipeline.send("SELECT pg_advisory_xact_lock_shared(hashtext($1))", PGParameters([location.advisoryLockKey]))
                try pipeline.send(
                    "SELECT (SELECT \"value\" FROM \"strata_metadata\" WHERE \"key\" = $1), (SELECT \"value\" FROM \"strata_metadata\" WHERE \"key\" = $2)",
                    PGParameters([StoreMetadata.Key.storeIdentifier, StoreMetadata.Key.modelVersionHash]))
                return try pipeline.finish().last!
            } catch {
                throw error.strataError(location: location.description)
            }
        }
        guard result.text(0, 0) == storeIdentifier else {
            throw StrataError(.storeIO, "the schema '\(location.schema)' holds another store now (UUID \(result.text(0, 0) ?? "none"), this one is \(storeIdentifier)); nothing was saved. Open the store again to work with what it holds now", file: location.description)
        }
        guard result.text(0, 1) == openedModelHash else {
            throw StrataError(.incompatibleModel, "the store was migrated to another model since it was opened; nothing was saved. Open it again with the new model", file: location.description)
        }
    }
}

extension StoreType {
    /// A PostgreSQL store (``PostgresStore``), located by a `postgres://` URL.
    public static let postgres: StoreType = "postgres"
}
