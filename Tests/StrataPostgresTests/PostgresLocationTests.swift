import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// Store URLs: Strata's items read, the rest passed to libpq; no server needed.
@Suite struct PostgresLocationTests {
    @Test func strataItemsAreReadAndTheRestPassedToLibpq() throws {
        let location = try PostgresLocation(URL(string: "postgres://app@db.example.com:6543/shop?schema=orders&sslmode=verify-full&poolSize=2&statementTimeout=500&application_name=web")!)
        #expect(location.schema == "orders")
        #expect(location.poolSize == 2)
        #expect(location.statementTimeout == 500)
        #expect(location.conninfo == "postgresql://app@db.example.com:6543/shop?sslmode=verify-full&application_name=web&connect_timeout=10&keepalives_idle=30&keepalives_interval=10&keepalives_count=3")
    }

    @Test func defaultsAndAUnixSocketHost() throws {
        let location = try PostgresLocation(URL(string: "postgresql://app@/shop?host=/var/run/postgresql&connect_timeout=3&keepalives=0")!)
        #expect(location.schema == "strata")
        #expect(location.poolSize == 4)
        #expect(location.statementTimeout == 60_000)
        #expect(location.conninfo == "postgresql://app@/shop?host=/var/run/postgresql&connect_timeout=3&keepalives=0")
    }

    @Test(arguments: [
        ("postgres://h/db?schema=1abc", "schema=1abc"),
        ("postgres://h/db?schema=pg_catalog", "schema=pg_catalog"),
        ("postgres://h/db?schema=a%22b", "is not a schema name"),
        ("postgres://h/db?poolSize=0", "poolSize=0"),
        ("postgres://h/db?statementTimeout=-1", "statementTimeout=-1"),
        ("mysql://h/db", "is not a PostgreSQL URL"),
    ])
    func badURLsAreRefusedSayingWhatIsWrong(_ text: String, _ expected: String) throws {
        let error = #expect(throws: StrataError.self) { _ = try PostgresLocation(URL(string: text)!) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }

    @Test func passwordsNeverReachMessages() throws {
        let location = try PostgresLocation(URL(string: "postgres://app:secret@h/db?password=other")!)
        #expect(!location.description.contains("secret"))
        #expect(!location.description.contains("other"))
    }

    @Test func strataStoreAndStrataJSONTakeAPostgresURL() throws {
        let store = try StrataConfiguration.store(fromEnvironment: "postgresql://app@h:5432/db?schema=s")
        #expect(store.type == .postgres)
        #expect(store.url?.absoluteString == "postgresql://app@h:5432/db?schema=s")
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let directory = temporary.url
        let file = directory.appendingPathComponent("strata.json")
        try Data(#"{ "schema": "m.json", "stores": [ { "type": "postgres", "path": "postgres://app@h/db?schema=s" } ] }"#.utf8).write(to: file)
        let configuration = try StrataConfiguration(contentsOf: file, environment: [:])
        #expect(configuration.stores.map(\.url?.absoluteString) == ["postgres://app@h/db?schema=s"])
        #expect(try StoreTypeRegistry([PostgresStoreFactory()]).type(of: URL(string: "postgres://h/db")!) == .postgres)
    }
}
