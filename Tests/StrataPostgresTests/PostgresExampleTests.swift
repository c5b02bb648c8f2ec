import Foundation
import StrataTestKit
import Testing

/// The README's `STRATA_STORE='postgres://…' swift run todo-example`: the example runs on a
/// PostgreSQL store named by the environment, without a code change, twice (the second run
/// finds the first run's to-dos).
@Suite struct PostgresExampleTests {
    @Test func theToDoExampleRunsOnAStoreTheEnvironmentNames() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres-example")
        defer { temporary.cleanup() }
        var environment = ProcessInfo.processInfo.environment
        environment["STRATA_STORE"] = place.url.absoluteString
        let first = try BuiltExecutable.run("todo-example", [], in: temporary.url, environment: environment)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.hasPrefix("Store: postgres"), "\(first.output)")
        #expect(first.output.contains("""
            Open, most important first:
              [3] Write the report  (work)
              [2] Buy milk  (home, shopping) @ Corner shop
              [0] Water the plants  (home)
            """), "\(first.output)")
        #expect(first.output.contains("  + row 2: Call the plumber"), "\(first.output)")
        let second = try BuiltExecutable.run("todo-example", [], in: temporary.url, environment: environment)
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.contains("  [2] Call the plumber  (home)"), "the first run's to-dos are stored: \(second.output)")
    }
}
