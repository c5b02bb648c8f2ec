public import Foundation
public import Strata

extension PostgresStoreFactory {
    /// Migrates the store at `url` in one transaction, guarded by an advisory lock on the
    /// store's schema, so that two servers starting at once do not both migrate: the second
    /// waits, then finds the store migrated and leaves it (`wasAlreadyCurrent`).
    ///
    /// The store's tables are locked against saves (`EXCLUSIVE`: reads go on), every record is
    /// read, carried through the plan by the migration every store shares (custom stages
    /// included: `AtomicStoreMigration`), and written into the destination model's tables with
    /// its versions, keys, store identifier and custom metadata kept. Any failure rolls the
    /// whole transaction back: the store is as it was.
    /// - Throws: `storeIO` when there is no store at `url`; `incompatibleModel` when the store's
    ///   model is at neither end of the plan; `migrationRefused` when its data does not allow a
    ///   step; a custom stage's error.
    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        let location = try PostgresLocation(url)
        let pool = PGConnectionPool(location: location)
        return try pool.write { (connection) throws(StrataError) -> MigrationReport in
            try connection.transaction { () throws(StrataError) -> MigrationReport in
                try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [location.advisoryLockKey])
                guard let metadata = try PostgresMetadata.read(connection, location: location) else {
                    throw StrataError(.storeIO, "no store at '\(location.description)' to migrate", file: location.description)
                }
                if metadata.modelVersionHash == plan.destination.versionHash { return MigrationReport(wasAlreadyCurrent: true) }
                guard metadata.modelVersionHash == plan.storeSchema.versionHash else {
                    throw StrataError(
                        .incompatibleModel,
                        "the store's model (hash \(metadata.modelVersionHash.prefix(12))…) is not the one the migration plan starts from; another process may have migrated it. Plan the migration again",
                        file: location.description)
                }
                let old = PostgresLayout(schema: plan.storeSchema, configurationName: nil)
                let tables = old.tables.keys.sorted() + old.joinTables.map(\.name) + ["strata_keys", "strata_metadata"]
                try connection.run("LOCK TABLE \(tables.map(quoted).joined(separator: ", ")) IN EXCLUSIVE MODE")
                let contents = try Self.contents(of: PostgresStore(migrating: location, layout: old, metadata: metadata), connection)
                let migrated: AtomicStoreContents
                do throws(StrataError) {
                    migrated = try AtomicStoreMigration.migrate(contents, plan: plan, type: .postgres, progress: progress)
                } catch {
                    var located = error
                    located.file = located.file ?? location.description
                    throw located
                }
                // The destination's tables, in place of the source's.
                for table in old.tables.keys.sorted() + old.joinTables.map(\.name) {
                    try connection.run("DROP TABLE IF EXISTS \(quoted(table)) CASCADE")
                }
                try connection.run("DELETE FROM \"strata_metadata\"")
                try PostgresMetadata.write(migrated.metadata, connection)
                let new = PostgresLayout(schema: plan.destination, configurationName: nil)
                guard new.problems.isEmpty else {
                    throw StrataError(.unsupportedModel, "a PostgreSQL store cannot hold model '\(plan.destination.name)': \(new.problems.joined(separator: "; "))", file: location.description)
                }
                for statement in new.creationStatements { try connection.run(statement) }
                try connection.run("DELETE FROM \"strata_keys\"")
                for root in new.tables.keys.sorted() {
                    try connection.run(
                        "INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES ($1, $2::bigint)",
                        [root, String(migrated.keySequences[root] ?? 0)])
                }
                var changes = StoreChangeset(inserted: migrated.records.keys.sorted().flatMap { migrated.records[$0]!.values.sorted { $0.objectID < $1.objectID } })
                changes.restoresVersions = true
                let writer = PostgresStore(migrating: location, layout: new, metadata: migrated.metadata)
                _ = try writer.apply(changes, connection)
                do throws(PGError) {
                    try connection.query("SET CONSTRAINTS ALL IMMEDIATE")
                } catch {
                    throw StrataError(.migrationRefused, "the migrated data breaks a uniqueness constraint of model '\(plan.destination.name)': \(error.message); nothing was changed", file: location.description)
                }
                return MigrationReport(plan: plan)
            }
        }
    }

    /// Every record of a store, with its to-many relationships loaded, and its key counters.
    private static func contents(of store: PostgresStore, _ connection: PGConnection) throws(StrataError) -> AtomicStoreContents {
        var contents = AtomicStoreContents(metadata: store.metadata)
        for (name, entity) in store.layout.entities.sorted(by: { $0.key < $1.key }) where !entity.description.isAbstract {
            for var record in try store.rows(of: [name], connection) {
                for relationship in record.lazyToMany {
                    record.toMany[relationship] = try store.members(of: record.objectID, relationship, connection)
                }
                record.lazyToMany = []
                contents.records[name, default: [:]][record.objectID] = record
            }
        }
        let keys = try connection.run("SELECT \"entity\", \"last\" FROM \"strata_keys\"")
        for row in 0..<keys.count {
            if let entity = keys.text(row, 0), let last = keys.int64(row, 1) { contents.keySequences[entity] = last }
        }
        return contents
    }
}
