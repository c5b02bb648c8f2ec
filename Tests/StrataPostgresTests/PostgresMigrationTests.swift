import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// Migration on PostgreSQL: one transaction, under an advisory lock, keeping keys, versions and
/// the store's identity.
@Suite struct PostgresMigrationTests {
    static let v1 = """
        { "name": "Notes", "version": "1", "entities": [ { "name": "Note",
          "attributes": [ { "name": "title", "type": "string" }, { "name": "body", "type": "string", "optional": true } ] } ] }
        """
    /// `body` renamed `text`, a new attribute with a default, a uniqueness constraint on titles.
    static let v2 = """
        { "name": "Notes", "version": "2", "entities": [ { "name": "Note",
          "attributes": [ { "name": "title", "type": "string" },
                          { "name": "text", "type": "string", "optional": true, "renamingIdentifier": "body" },
                          { "name": "pinned", "type": "bool", "default": false } ],
          "uniquenessConstraints": [["title"]] } ] }
        """

    /// A store of model v1 with notes titled `titles` (the second saved twice: version 2).
    private func storeOfV1(_ place: TestSchema, titles: [String]) throws -> (identifier: String, ids: [ObjectID]) {
        let context = ManagedObjectContext(coordinator: try place.coordinator(try Models.schema(Self.v1)))
        var notes: [ManagedObject] = []
        for title in titles {
            let note = try context.insertObject(entityName: "Note")
            note["title"] = title
            note["body"] = "about \(title)"
            notes.append(note)
        }
        try context.save()
        notes[1]["body"] = "changed"
        try context.save()
        return (context.coordinator.stores[0].storeIdentifier, notes.map(\.objectID))
    }

    @Test func aStoreIsMigratedInPlaceKeepingKeysVersionsAndIdentity() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let (identifier, ids) = try storeOfV1(place, titles: ["a", "b"])
        let v2 = try Models.schema(Self.v2)
        let report = try StoreMigrator(storeTypes: .withPostgres).migrateStore(at: place.url, versions: SchemaVersions([try Models.schema(Self.v1), v2]))
        #expect(report.steps.count == 1)
        #expect(!report.wasAlreadyCurrent)
        let store = try place.store(v2)
        #expect(store.storeIdentifier == identifier)
        let records = try store.records(for: ids)
        #expect(records[ids[0]]?.attributes["text"] == .string("about a"))
        #expect(records[ids[1]]?.attributes["text"] == .string("changed"))
        #expect(records[ids[1]]?.attributes["pinned"] == .bool(false))
        #expect(records[ids[1]]?.version == 2)
        #expect(try place.column("SELECT column_name FROM information_schema.columns WHERE table_schema = '\(place.name)' AND table_name = 'Note' ORDER BY ordinal_position")
            == ["_pk", "_version", "title", "text", "pinned"])
        // New keys continue after the old ones.
        #expect(try store.allocatePrimaryKeys(rootEntity: "Note", count: 1) == [3])
    }

    @Test func strataMigrateTakesAPostgresURL() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let (_, ids) = try storeOfV1(place, titles: ["a", "b"])
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let directory = temporary.url
        try Data(Self.v1.utf8).write(to: directory.appendingPathComponent("v1.json"))
        try Data(Self.v2.utf8).write(to: directory.appendingPathComponent("v2.json"))
        try PostgresConvertTests.run(["migrate", "--schema", "v2.json", "--via", "v1.json", place.url.absoluteString], in: directory)
        #expect(try place.store(try Models.schema(Self.v2)).records(for: ids)[ids[0]]?.attributes["text"] == .string("about a"))
    }

    @Test func twoProcessesMigratingAtOnceMigrateOnce() async throws {
        let place = try TestSchema()
        defer { place.drop() }
        _ = try storeOfV1(place, titles: ["a", "b"])
        let versions = try SchemaVersions([try Models.schema(Self.v1), try Models.schema(Self.v2)])
        let reports = try await withThrowingTaskGroup(of: MigrationReport.self) { group in
            for _ in 0..<2 {
                group.addTask { try StoreMigrator(storeTypes: .withPostgres).migrateStore(at: place.url, versions: versions) }
            }
            var reports: [MigrationReport] = []
            for try await report in group { reports.append(report) }
            return reports
        }
        #expect(reports.filter { !$0.wasAlreadyCurrent }.count == 1)
        #expect(try place.column("SELECT count(*) FROM \"Note\"") == ["2"])
    }

    @Test func aRefusedMigrationLeavesTheStoreAsItWas() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let (_, ids) = try storeOfV1(place, titles: ["same", "same"])
        let error = #expect(throws: StrataError.self) {
            try StoreMigrator(storeTypes: .withPostgres).migrateStore(at: place.url, versions: SchemaVersions([try Models.schema(Self.v1), try Models.schema(Self.v2)]))
        }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("is refused; the store is unchanged") == true)
        let store = try place.store(try Models.schema(Self.v1))
        #expect(try store.records(for: ids).count == 2)
        #expect(try place.column("SELECT column_name FROM information_schema.columns WHERE table_schema = '\(place.name)' AND table_name = 'Note' ORDER BY ordinal_position")
            == ["_pk", "_version", "title", "body"])
    }

    /// A save of the old model that started while a migration ran must not write into the
    /// migrated store once the migration commits. The migration here takes the locks
    /// `migrateStore` takes (the advisory lock, the tables `EXCLUSIVE`) and changes the model's
    /// hash; the save waits for it, then is refused.
    @Test func aSaveWaitingForAMigrationIsRefusedAfterIt() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let (url, applicationName) = place.url(applicationName: "old")
        let store = try PostgresStore(location: PostgresLocation(url), schema: try Models.schema(Self.v1))
        let key = try store.allocatePrimaryKeys(rootEntity: "Note", count: 1)[0]
        let id = ObjectID(entityName: "Note", storeIdentifier: store.storeIdentifier, primaryKey: key)
        let location = try PostgresLocation(place.url)
        let migration = try PGConnectionPool(location: location).connect()
        try migration.run("BEGIN")
        try migration.run("SELECT pg_advisory_xact_lock(hashtext($1))", [location.advisoryLockKey])
        try migration.run("LOCK TABLE \"Note\", \"strata_keys\", \"strata_metadata\" IN EXCLUSIVE MODE")
        try migration.run("UPDATE \"strata_metadata\" SET \"value\" = 'migrated' WHERE \"key\" = $1", [StoreMetadata.Key.modelVersionHash])
        let outcome = Locked<StrataError??>(nil)
        Thread {
            do throws(StrataError) {
                _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["title": .string("old model")])]))
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some(error) }
            }
        }.start()
        waitUntil { place.waitsForALock(applicationName) }
        try migration.run("COMMIT")
        waitUntil { outcome.withLock { $0 != nil } }
        #expect(outcome.withLock { $0??.code } == .incompatibleModel)
        #expect(try place.column("SELECT count(*) FROM \"Note\"") == ["0"])
    }
}
