import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// Saves through a coordinator with a PostgreSQL store beside another store.
@Suite struct PostgresMultiStoreSaveTests {
    /// The outermost store's connection breaks just before its `COMMIT` and its server cannot be
    /// asked since: whether it committed is unknown, so the store nested in it, which committed,
    /// is left as the save left it (the coordinator does not act on a guess), and the error says
    /// which store committed and which cannot tell.
    @Test func anUnknownOutcomeOfTheOutermostCommitLeavesTheOtherStoresCommitted() throws {
        // The outer store in a database of its own, which the test can close to new connections.
        let database = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let server = try TestSchema()
        _ = try server.column("CREATE DATABASE \(database)")
        defer {
            _ = try? server.column("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
            _ = try? server.column("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        }
        var components = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
        components.path = "/\(database)"
        components.queryItems = [URLQueryItem(name: "schema", value: "notes"), URLQueryItem(name: "application_name", value: "outer_\(database)")]
        let outerURL = try #require(components.url)
        let log = try TestSchema()
        defer { log.drop() }

        // Stores are nested in the order of their identifiers: the notes' store goes first.
        let model = MultiStoreSaveChecks.model
        _ = try PostgresStore(location: PostgresLocation(outerURL), schema: model, configurationName: "Notes")
        _ = try PGConnectionPool(location: PostgresLocation(outerURL)).write { (connection) throws(StrataError) in
            try connection.run("UPDATE \"strata_metadata\" SET \"value\" = '00000000-0000-0000-0000-000000000000' WHERE \"key\" = $1", [StoreMetadata.Key.storeIdentifier])
        }
        let coordinator = PersistentStoreCoordinator(schema: model, storeTypes: StoreTypeRegistry([FailingStoreFactory(inner: PostgresStoreFactory()), PostgresStoreFactory()]))
        let outer = try #require(try coordinator.addStore(StoreDescription(type: FailingStoreFactory.type(wrapping: .postgres), url: outerURL, configurationName: "Notes")) as? FailingStore)
        try coordinator.addStore(StoreDescription(type: .postgres, url: log.url, configurationName: "Log"))
        #expect(coordinator.stores.map(\.storeIdentifier).min() == outer.storeIdentifier)

        let context = ManagedObjectContext(coordinator: coordinator)
        let note = try context.insertObject(entityName: "Note")
        note["title"] = "kept"
        let entry = try context.insertObject(entityName: "Entry")
        entry["text"] = "first"
        try context.save()

        outer.beforeCommitting.withLock {
            $0 = {
                // No new connection, then the session ends (waiting until it has).
                _ = try? server.column("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
                _ = try? server.column("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE application_name = 'outer_\(database)' AND state <> 'idle'")
            }
        }
        note["title"] = "changed"
        entry["text"] = "edited"
        let second = try context.insertObject(entityName: "Entry")
        second["text"] = "second"
        let error = #expect(throws: StrataError.self) { try context.save() }
        outer.beforeCommitting.withLock { $0 = nil }
        #expect(error?.code == .commitOutcomeUnknown)
        let message = error?.message ?? ""
        #expect(message.contains("broke during COMMIT"), "\(message)")
        #expect(message.contains("whether the save was committed is unknown"), "\(message)")
        #expect(message.contains("(\(outerURL.absoluteString));"), "\(message)")
        #expect(message.hasSuffix("; the save committed to \(log.url.absoluteString) and was left there: putting it back would be a guess"), "\(message)")

        // The log kept the save; the notes' store rolled it back (its session ended before COMMIT).
        #expect(try log.column("SELECT \"text\" FROM \"Entry\" ORDER BY \"text\"") == ["edited", "second"])
        _ = try server.column("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        let notes = try PGConnectionPool(location: PostgresLocation(outerURL)).read { (connection) throws(StrataError) in
            try connection.run("SELECT \"title\" FROM \"Note\"").text(0, 0)
        }
        #expect(notes == "kept")
    }
}
