import Foundation
import Strata
import StrataSQLite
import StrataTestKit
import Testing
@testable import StrataPostgres

/// Connections: failures say what and where, the statement timeout reaches the server, a
/// container opens a PostgreSQL store from STRATA_STORE.
@Suite struct PostgresConnectionTests {
    @Test func aServerThatIsNotThereIsAClearErrorWithoutThePassword() throws {
        let url = URL(string: "postgres://strata:secret@127.0.0.1:1/postgres?schema=nowhere&connect_timeout=2")!
        let error = #expect(throws: StrataError.self) { _ = try PostgresStore(location: PostgresLocation(url), schema: try Models.shop()) }
        #expect(error?.code == .storeIO)
        #expect(error?.message.hasPrefix("cannot connect to PostgreSQL:") == true)
        #expect(error?.file == "postgres://strata:***@127.0.0.1:1/postgres?schema=nowhere&connect_timeout=2")
    }

    @Test func theStatementTimeoutIsTheServers() throws {
        let place = try TestSchema()
        let location = try PostgresLocation(URL(string: place.url.absoluteString + "&statementTimeout=50")!)
        let error = #expect(throws: StrataError.self) {
            try PGConnectionPool(location: location).read { (connection) throws(StrataError) in
                _ = try connection.run("SELECT pg_sleep(5)")
            }
        }
        #expect(error?.message.contains("statement timeout") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("SQLSTATE 57014") == true)
    }

    @Test func aContainerOpensThePostgreSQLStoreThatSTRATA_STORENames() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let directory = temporary.url
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = directory.appendingPathComponent("strata.json")
        try Data(#"{ "schema": "\#(repository.path)/Schemas/TodoList.json", "stores": [ { "type": "sqlite", "path": "app.sqlite" } ] }"#.utf8).write(to: file)
        let container = try PersistentContainer(
            configurationFile: file, storeTypes: StoreTypeRegistry([PostgresStoreFactory()]),
            environment: [StrataConfiguration.environmentVariable: place.url.absoluteString])
        let context = container.newBackgroundContext()
        let tag = try context.insertObject(entityName: "Tag")
        tag["name"] = "work"
        try context.save()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("app.sqlite").path))
        #expect(try place.column("SELECT name FROM \"Tag\"") == ["work"])
        #expect(try place.column("SELECT value FROM strata_metadata WHERE key = 'storeType'") == ["postgres"])
    }

    /// Moving an app from SQLite is one line of strata.json: the store's type and its URL.
    @Test func aStoreOfStrataJSONWithAPostgresURLIsOpenedOnTheServer() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = temporary.url.appendingPathComponent("strata.json")
        try Data(#"{ "schema": "\#(repository.path)/Schemas/TodoList.json", "stores": [ { "type": "postgres", "path": "\#(place.url.absoluteString)" } ] }"#.utf8).write(to: file)
        let container = try PersistentContainer(
            configurationFile: file, storeTypes: StoreTypeRegistry([SQLiteStoreFactory(), PostgresStoreFactory()]), environment: [:])
        let context = container.newBackgroundContext()
        let tag = try context.insertObject(entityName: "Tag")
        tag["name"] = "home"
        try context.save()
        #expect(try place.column("SELECT name FROM \"Tag\"") == ["home"])
        #expect(container.coordinator.stores.map(\.type) == [.postgres])
    }

    /// A role that may not create schemas in the database opens (and creates) its store in a
    /// schema made for it beforehand.
    @Test func aRoleOwningASchemaMadeForItOpensItsStoreThere() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let role = "r_" + place.name
        _ = try place.column("CREATE ROLE \(role) LOGIN")
        defer {
            place.drop()
            _ = try? place.column("DROP ROLE IF EXISTS \(role)")
        }
        _ = try place.column("CREATE SCHEMA \(place.name) AUTHORIZATION \(role)")
        #expect(try place.column("SELECT has_database_privilege('\(role)', current_database(), 'CREATE')::text") == ["false"])
        var components = try #require(URLComponents(url: place.url, resolvingAgainstBaseURL: false))
        components.user = role
        let store = try PostgresStore(location: PostgresLocation(try #require(components.url)), schema: try Models.shop())
        let key = try store.allocatePrimaryKeys(rootEntity: "Maker", count: 1)[0]
        let id = ObjectID(entityName: "Maker", storeIdentifier: store.storeIdentifier, primaryKey: key)
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["name": .string("m")])]))
        #expect(try place.column("SELECT tableowner::text FROM pg_tables WHERE schemaname = '\(place.name)' AND tablename = 'Maker'") == [role])
        #expect(try place.column("SELECT name FROM \"Maker\"") == ["m"])
    }
}
