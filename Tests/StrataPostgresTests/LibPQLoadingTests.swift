import Foundation
import StrataTestKit
import Testing

/// libpq is loaded when a PostgreSQL store first connects, not linked (``LibPQ``): `strata`
/// starts without it, works with every other store where it is missing, and says what to
/// install when a PostgreSQL store is opened without it.
@Suite struct LibPQLoadingTests {
    /// Runs the built `strata` with `STRATA_LIBPQ` set to a file that does not exist.
    static func runWithoutLibPQ(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["STRATA_LIBPQ"] = directory.appendingPathComponent("no-libpq.so").path
        environment.removeValue(forKey: "STRATA_STORE")
        return try PostgresConvertTests.execute(arguments, in: directory, environment: environment)
    }

    static let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Schemas/TodoList.json").path

    @Test func everyOtherStoreWorksWithoutLibPQ() throws {
        let temporary = try TemporaryDirectory(prefix: "libpq")
        defer { temporary.cleanup() }
        try Data(#"{ "objects": { "Tag": [ { "@id": 1, "name": "home" } ] } }"#.utf8)
            .write(to: temporary.url.appendingPathComponent("data.json"))
        let load = try Self.runWithoutLibPQ(["load", "--schema", Self.model, "todo.sqlite", "data.json"], in: temporary.url)
        #expect(load.status == 0, "\(load.output)")
        let query = try Self.runWithoutLibPQ(["query", "todo.sqlite", "Tag", "--format", "json"], in: temporary.url)
        #expect(query.status == 0, "\(query.output)")
        #expect(query.output.contains(#""name" : "home""#) || query.output.contains(#""name": "home""#), "\(query.output)")
    }

    @Test func aPostgresStoreWithoutLibPQSaysWhatToInstall() throws {
        let temporary = try TemporaryDirectory(prefix: "libpq")
        defer { temporary.cleanup() }
        // No server is needed: the library is loaded before anything connects.
        let run = try Self.runWithoutLibPQ(["inspect", "postgres://strata@127.0.0.1:1/none?schema=missing"], in: temporary.url)
        #expect(run.status != 0)
        #expect(run.output.contains("cannot load the PostgreSQL client library libpq"), "\(run.output)")
        #expect(run.output.contains(temporary.url.appendingPathComponent("no-libpq.so").path), "\(run.output)")
        #expect(run.output.contains("apt-get install libpq5"), "\(run.output)")
        #expect(run.output.contains("postgres://strata@127.0.0.1:1/none"), "the error names the store: \(run.output)")
    }

    #if os(Linux)
    /// The dynamic loader does not load libpq when `strata` starts (it would, with everything
    /// it needs, if `strata` were linked with it).
    @Test func strataIsNotLinkedWithLibPQ() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [try PostgresConvertTests.strata().path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(output.contains("libsqlite3"), "ldd lists the libraries strata links: \(output)")
        #expect(!output.contains("libpq"), "\(output)")
    }
    #endif
}
