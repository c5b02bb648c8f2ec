import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// A seeded graph of every attribute type and relationship storage survives a migration that
/// renames entities and attributes (moving a join table to the other side) and the migration
/// back: the canonical dumps are byte-identical.
@Suite struct SQLiteMigrationRoundTripTests {
    static func dump(_ url: URL, _ schema: Schema) throws -> String {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        return try DataExporter.dump(coordinator)
    }

    /// A store of the Library model holding a seeded graph; returns its dump.
    static func libraryStore(_ url: URL, seed: UInt64, items: Int) throws -> String {
        let schema = try LibraryFixture.schema()
        let store = try SQLiteStore(url: url, schema: schema)
        let graph = LibraryGraph(schema: schema, storeIdentifier: store.metadata.storeIdentifier, seed: seed, items: items)
        _ = try store.save(StoreChangeset(inserted: graph.all))
        return try dump(url, schema)
    }

    @Test func renamesThereAndBackKeepEveryValueKeyAndOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("library.sqlite")
        let v1 = try LibraryFixture.schema()
        // "Tag" sorts before "Thing": the many-to-many Item.tags ↔ Tag.items changes sides.
        let v2 = try Fixtures.schema(json: LibraryFixture.json
            .replacingOccurrences(of: #"{ "name": "Item","#, with: #"{ "name": "Thing", "renamingIdentifier": "Item","#)
            .replacingOccurrences(of: #""destination": "Item""#, with: #""destination": "Thing""#)
            .replacingOccurrences(of: #""parent": "Item""#, with: #""parent": "Thing""#)
            .replacingOccurrences(of: #"{ "name": "label", "type": "string", "optional": true }"#, with: #"{ "name": "caption", "type": "string", "optional": true, "renamingIdentifier": "label" }"#))
        let before = try Self.libraryStore(url, seed: 11, items: 40)
        try MigrationTesting.migrate(url, from: v1, to: v2)
        #expect(try MigrationTesting.problems(url) == [])
        #expect(try RawSQLite(url).rows(#"SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%.%' ORDER BY 1"#) == ["Tag.items", "Thing.related"])
        let migrated = try Self.dump(url, v2)
        #expect(migrated.contains(#""Thing":"#) && migrated.contains(#""caption":"#))
        try MigrationTesting.migrate(url, from: v2, to: v1)
        #expect(try MigrationTesting.problems(url) == [])
        #expect(try Self.dump(url, v1) == before)
    }

    @Test func aParentAddedAndRemovedRebuildsTheTableKeepingEveryValueKeyAndOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("library.sqlite")
        let v1 = try LibraryFixture.schema()
        // Part (the ordered side of Item.parts) moves under a new abstract root: its table is
        // rebuilt as "Base", with an "_entity" column.
        let v2 = try Fixtures.schema(json: LibraryFixture.json
            .replacingOccurrences(of: #"{ "name": "Part","#, with: #"{ "name": "Base", "abstract": true }, { "name": "Part", "parent": "Base","#))
        let before = try Self.libraryStore(url, seed: 5, items: 30)
        let events = MigrationTesting.Events()
        try MigrationTesting.migrate(url, from: v1, to: v2, events: events)
        #expect(events.all.contains { $0.activity == "Base: copied 30 rows from Part" && $0.completed == 30 })
        #expect(try MigrationTesting.problems(url) == [])
        #expect(try RawSQLite(url).rows(#"SELECT DISTINCT "_entity" FROM "Base""#) == ["Part"])
        #expect(try Self.dump(url, v2) == before)
        try MigrationTesting.migrate(url, from: v2, to: v1)
        #expect(try MigrationTesting.problems(url) == [])
        #expect(try Self.dump(url, v1) == before)
    }
}
