import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// `strata convert` SQLite → PostgreSQL → SQLite through the built CLI: the dumps are identical.
@Suite struct PostgresConvertTests {
    /// The `strata` executable SwiftPM built beside the test bundle.
    static func strata() throws -> URL { try BuiltExecutable.url("strata") }

    @discardableResult
    static func run(_ arguments: [String], in directory: URL) throws -> String {
        let run = try execute(arguments, in: directory)
        #expect(run.status == 0, "strata \(arguments.joined(separator: " ")): \(run.output)")
        return run.output
    }

    /// Runs the built `strata` in `directory` (with `environment` instead of the test's, when
    /// given) and returns its exit status and what it printed to stdout and stderr together.
    static func execute(
        _ arguments: [String], in directory: URL, environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String) {
        try BuiltExecutable.run("strata", arguments, in: directory, environment: environment)
    }

    @Test func sqliteToPostgresToSQLiteKeepsEveryObject() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let directory = temporary.url
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let model = repository.appendingPathComponent("Schemas/TodoList.json").path
        try Data("""
            { "objects": {
              "Tag": [ { "@id": 1, "name": "home" }, { "@id": 2, "name": "caf\\u00e9" } ],
              "Todo": [ { "@id": 1, "title": "Buy milk", "createdAt": "2024-05-01T10:00:00.123Z", "priority": 2, "done": false, "tags": [1, 2] },
                        { "@id": 7, "title": "Call", "createdAt": "2024-05-02T00:00:00.000Z", "priority": 0, "done": true, "tags": [] } ] } }
            """.utf8).write(to: directory.appendingPathComponent("data.json"))
        try Self.run(["load", "--schema", model, "todo.sqlite", "data.json"], in: directory)
        try Self.run(["convert", "todo.sqlite", place.url.absoluteString], in: directory)
        try Self.run(["convert", place.url.absoluteString, "back.sqlite"], in: directory)
        let original = try Self.run(["dump", "todo.sqlite"], in: directory)
        #expect(try Self.run(["dump", place.url.absoluteString], in: directory) == original)
        #expect(try Self.run(["dump", "back.sqlite"], in: directory) == original)
        #expect(original.contains("Buy milk"))
        // An existing destination is refused without --force.
        let process = Process()
        process.executableURL = try Self.strata()
        process.arguments = ["convert", "todo.sqlite", place.url.absoluteString]
        process.currentDirectoryURL = directory
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        try Self.run(["convert", "--force", "back.sqlite", place.url.absoluteString], in: directory)
        #expect(try Self.run(["dump", place.url.absoluteString], in: directory) == original)
    }

    @Test func loadQueryAndCheckTakeAPostgresURL() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        defer { temporary.cleanup() }
        let directory = temporary.url
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try Data(#"{ "objects": { "Tag": [ { "@id": 3, "name": "home" }, { "@id": 4, "name": "work" } ] } }"#.utf8)
            .write(to: directory.appendingPathComponent("tags.json"))
        let loaded = try Self.run(["load", "--schema", repository.appendingPathComponent("Schemas/TodoList.json").path, place.url.absoluteString, "tags.json"], in: directory)
        #expect(loaded.hasPrefix("loaded 2 objects into postgres://"))
        #expect(try place.column("SELECT name FROM \"Tag\" ORDER BY \"_pk\"") == ["home", "work"])
        let found = try Self.run(["query", place.url.absoluteString, "Tag", "--where", "name BEGINSWITH 'w'"], in: directory)
        #expect(found.contains("work"))
        #expect(!found.contains("home"))
        let checked = try Self.run(["check", place.url.absoluteString], in: directory)
        #expect(checked.hasSuffix(": sound (postgres store, 2 objects checked)\n"))
    }
}
