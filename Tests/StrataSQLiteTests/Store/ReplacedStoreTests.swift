import Foundation
@testable import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// A store whose file is replaced under it — by `strata convert --force`, which copies another
/// store into the file with SQLite's backup API — refuses every write, as the atomic stores do.
@Suite struct ReplacedStoreTests {
    let directory: TemporaryDirectory
    let schema: Schema

    init() throws {
        directory = try TemporaryDirectory()
        schema = try Fixtures.schema("TodoList")
    }

    func todo(_ store: SQLiteStore, _ key: Int64, _ title: String, version: Int64 = 0) -> StoreRecord {
        StoreRecord(
            objectID: ObjectID(entityName: "Todo", storeIdentifier: store.storeIdentifier, primaryKey: key),
            attributes: ["title": .string(title), "createdAt": .date(Date(timeIntervalSinceReferenceDate: 0)), "priority": .integer(0), "done": .bool(false)],
            version: version)
    }

    /// Every row of every table, as the `sqlite3` shell sees them.
    func dump(_ url: URL) throws -> [String] {
        let raw = try RawSQLite(url)
        var lines: [String] = []
        for table in try raw.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            lines.append("table \(table)")
            lines += try raw.rows("SELECT * FROM \"\(table)\"").sorted()
        }
        return lines
    }

    @Test func everyWriteOfAStoreWhoseFileWasReplacedIsRefusedAndChangesNothing() throws {
        defer { directory.cleanup() }
        let url = directory.file("app.sqlite")
        let store = try SQLiteStore(url: url, schema: schema)
        _ = try store.save(StoreChangeset(inserted: [todo(store, 1, "mine")]))
        #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 1) == [2])

        // The converted data: another store (another UUID), with its own object at key 1.
        let convertedURL = directory.file("converted.sqlite")
        let convertedIdentifier: String
        do {
            let converted = try SQLiteStore(url: convertedURL, schema: schema)
            convertedIdentifier = converted.storeIdentifier
            _ = try converted.save(StoreChangeset(inserted: [todo(converted, 1, "theirs")]))
        }
        #expect(convertedIdentifier != store.storeIdentifier)
        #expect(try SQLiteStoreFactory().replaceStoreContents(at: url, from: convertedURL))
        let before = try dump(url)
        #expect(try RawSQLite(url).rows("SELECT \"_pk\", \"_version\", \"title\" FROM \"Todo\"") == ["1|1|theirs"])

        let expected = StrataError(
            .storeIO,
            "the store file was replaced by another store (UUID \(convertedIdentifier), this one is \(store.storeIdentifier)) since it was opened, by a convert --force or a copy; nothing was saved. Open the store again to work with what it holds now",
            file: url.path)
        // The object read at version 1 before the replacement: without the check, this update
        // would overwrite the converted object at key 1, whose version is 1 too.
        let update = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(updated: [todo(store, 1, "mine, edited", version: 1)]))
        }
        #expect(update == expected)
        let insert = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(inserted: [todo(store, 2, "new")]))
        }
        #expect(insert == expected)
        let keys = #expect(throws: StrataError.self) { try store.allocatePrimaryKeys(rootEntity: "Todo", count: 3) }
        #expect(keys == expected)
        let custom = #expect(throws: StrataError.self) { try store.setCustomMetadata(["owner": "app"]) }
        #expect(custom == expected)
        #expect(store.metadata.custom == [:])

        #expect(try dump(url) == before)
        // Reads are not checked: they see what the file holds now.
        let titles = try store.fetch(StoreFetchRequest(entityNames: ["Todo"])).map { $0.attributes["title"] }
        #expect(titles == [.string("theirs")])
        // A store opened now works with what the file holds.
        let reopened = try SQLiteStore(url: url, schema: schema)
        #expect(reopened.storeIdentifier == convertedIdentifier)
        #expect(try reopened.allocatePrimaryKeys(rootEntity: "Todo", count: 1) == [2])
    }

    @Test func aFileWhoseMetadataLostItsStoreIdentifierRefusesWrites() throws {
        defer { directory.cleanup() }
        let url = directory.file("app.sqlite")
        let store = try SQLiteStore(url: url, schema: schema)
        _ = try store.save(StoreChangeset(inserted: [todo(store, 1, "mine")]))
        try RawSQLite(url).rows("DELETE FROM \"strata_metadata\" WHERE \"key\" = 'storeIdentifier'")
        let before = try dump(url)
        let error = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(updated: [todo(store, 1, "edited", version: 1)]))
        }
        #expect(error == StrataError(
            .storeIO,
            "the store file was replaced since it was opened: its strata_metadata has no storeIdentifier now (this store is \(store.storeIdentifier)); nothing was saved. Open the store again to see what the file holds now",
            file: url.path))
        #expect(try dump(url) == before)
    }
}
