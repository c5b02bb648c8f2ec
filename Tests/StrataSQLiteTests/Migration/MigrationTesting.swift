import Foundation
import Strata
import Testing
@testable import StrataSQLite

/// Stores written with one model, migrated in place, read with the next.
enum MigrationTesting {
    /// A one-file model named `Moody` from its entities' JSON.
    static func model(_ version: String, _ entities: String) throws -> Schema {
        try Fixtures.schema(json: #"{ "name": "Moody", "version": "\#(version)", "entities": [\#(entities)] }"#)
    }

    /// A new store at `url` written with `schema`, filled by `fill` in one save.
    static func makeStore(_ url: URL, _ schema: Schema, _ fill: (ManagedObjectContext) throws -> Void) throws {
        let context = try self.context(url, schema)
        try fill(context)
        try context.save()
    }

    static func context(_ url: URL, _ schema: Schema) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        return ManagedObjectContext(coordinator: coordinator)
    }

    /// Migrates the store at `url` from `from` to `to` in one step.
    @discardableResult
    static func migrate(_ url: URL, from: Schema, to: Schema, stage: MigrationStage? = nil, events: Events? = nil) throws -> MigrationReport {
        let plan = try MigrationPlan(storeSchema: from, versions: SchemaVersions([from, to]), stages: stage.map { [$0] } ?? [])
        return try SQLiteStoreFactory().migrateStore(at: url, plan: plan, options: [:], progress: events.map { events in { @Sendable event in events.append(event) } })
    }

    /// The objects of an entity, by primary key.
    static func objects(_ context: ManagedObjectContext, _ entity: String) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: entity)).sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
    }

    /// `strata check`'s problems with the store, read with the model stored in it.
    static func problems(_ url: URL) throws -> [String] {
        try StoreChecker.check(storeAt: url, type: .sqlite, storeTypes: .withSQLite).problems.map { "\($0)" }
    }

    /// The database file's bytes once every connection is closed and the log is folded in, and
    /// the log's size (0 or none: nothing is waiting in it).
    static func settledBytes(_ url: URL) throws -> (Data, Int64) {
        do {
            let raw = try RawSQLite(url)
            try raw.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return (try bytes(of: url), FileAccess.size(url.path + "-wal") ?? 0)
    }

    /// Migration progress events, collected from the migrating thread.
    final class Events: @unchecked Sendable {
        // Locked: the events arrive on the migrating thread, the test reads them after.
        private let lock = NSLock()
        private var events: [MigrationProgressEvent] = []
        func append(_ event: MigrationProgressEvent) { lock.withLock { events.append(event) } }
        var all: [MigrationProgressEvent] { lock.withLock { events } }
    }
}
