import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// `strata inspect` and `strata load` on a server store, through the built CLI.
@Suite struct PostgresCLITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let todoModel = repository.appendingPathComponent("Schemas/TodoList.json").path

    /// The size `inspect` shows is what the server counts for the schema's tables with their
    /// indexes and TOAST; the store is named by its URL without a password.
    @Test func inspectShowsTheSizeOfTheStoresTablesOnTheServer() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        try Data(#"{ "objects": { "Tag": [ { "@id": 3, "name": "home" }, { "@id": 4, "name": "work" } ] } }"#.utf8)
            .write(to: temporary.url.appendingPathComponent("tags.json"))
        try PostgresConvertTests.run(["load", "--schema", Self.todoModel, place.url.absoluteString, "tags.json"], in: temporary.url)

        let output = try PostgresConvertTests.run(["inspect", place.url.absoluteString], in: temporary.url)
        let size = try #require(try place.column(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(place.name)' AND c.relkind = 'r'").first ?? nil)
        let uuid = try #require(try place.column("SELECT value FROM strata_metadata WHERE key = 'storeIdentifier'").first ?? nil)
        #expect(Int(size) ?? 0 > 8192 * 5)
        #expect(output == """
            store:       \(place.url.absoluteString)
            type:        postgres
            size:        \(size) bytes (the schema's tables and indexes on the server)
            UUID:        \(uuid)
            model:       TodoList
            model hash:  f3a489fb1665b67e726fceb43c07d99391ac1002cc820a931f776811c660fce1
            objects:     2
            entities:
              Location  0         7d404ff07aaa83a97807e1246d1ecda63d688330f152b6a6d3a92cd942bba180
              Tag       2         9811373f5f1ec976f211a04dfa2da80365b0822d1be919955961b6dfb85149bb
              Todo      0         012bb43eabc5229803e68429dd2f9062bea9cf63f402c0e7fdcbbd28966073f5

            """)
    }

    /// A load that fails into a store it created takes the store away again — its schema, or
    /// its tables in a schema that was there before — as a failed load into a new file leaves
    /// no file; a load that fails into an existing store leaves it as it was.
    @Test func aFailedLoadLeavesNoNewServerStoreBehind() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let directory = temporary.url
        // The second to-do names tag 9, which is in neither the file nor the store.
        try Data("""
            { "objects": {
              "Tag": [ { "@id": 1, "name": "home" } ],
              "Todo": [ { "@id": 1, "title": "Buy milk", "createdAt": "2024-05-01T10:00:00Z", "tags": [1] },
                        { "@id": 2, "title": "Call", "createdAt": "2024-05-02T10:00:00Z", "tags": [9] } ] } }
            """.utf8).write(to: directory.appendingPathComponent("bad.json"))
        try Data(#"{ "objects": { "Tag": [ { "@id": 3, "name": "work" } ] } }"#.utf8).write(to: directory.appendingPathComponent("good.json"))
        let schemaExists = { try place.column("SELECT count(*) FROM pg_namespace WHERE nspname = '\(place.name)'") == ["1"] }

        let failed = try BuiltExecutable.run("strata", ["load", "--schema", Self.todoModel, place.url.absoluteString, "bad.json"], in: directory)
        #expect(failed.status == 1)
        #expect(failed.output.contains("bad.json:4:"), "\(failed.output)")
        #expect(try !schemaExists())

        // A schema made beforehand (by an administrator, with its grants) stays, without the tables.
        _ = try place.column("CREATE SCHEMA \(place.name)")
        let intoSchema = try BuiltExecutable.run("strata", ["load", "--schema", Self.todoModel, place.url.absoluteString, "bad.json"], in: directory)
        #expect(intoSchema.status == 1)
        #expect(try schemaExists())
        #expect(try place.column("SELECT count(*) FROM pg_tables WHERE schemaname = '\(place.name)'") == ["0"])

        // An existing store is left as it was.
        try PostgresConvertTests.run(["load", "--schema", Self.todoModel, place.url.absoluteString, "good.json"], in: directory)
        let again = try BuiltExecutable.run("strata", ["load", "--schema", Self.todoModel, place.url.absoluteString, "bad.json"], in: directory)
        #expect(again.status == 1)
        #expect(try place.column("SELECT name FROM \"Tag\" ORDER BY \"_pk\"") == ["work"])
    }
}
