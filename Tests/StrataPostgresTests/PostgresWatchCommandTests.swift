import Foundation
import StrataTestKit
import Testing

/// `strata watch` on a postgres:// URL, spawned, while other `strata` processes change the store.
@Suite struct PostgresWatchCommandTests {
    @Test func printsALinePerSaveThatChangesTheResults() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let temporary = try TemporaryDirectory(prefix: "postgres")
        let directory = temporary.url
        try Data("""
            { "name": "Notes", "version": "1", "entities": [
              { "name": "Note", "attributes": [ { "name": "text", "type": "string" }, { "name": "done", "type": "bool", "default": false } ] } ] }
            """.utf8).write(to: directory.appendingPathComponent("notes.json"))
        try Data(#"{ "objects": { "Note": [ { "@id": 1, "text": "a" }, { "@id": 2, "text": "b" } ] } }"#.utf8)
            .write(to: directory.appendingPathComponent("data.json"))
        try Data(#"{ "objects": { "Note": [ { "@id": 3, "text": "c" } ] } }"#.utf8).write(to: directory.appendingPathComponent("more.json"))
        let store = place.url.absoluteString
        try PostgresConvertTests.run(["load", "--schema", "notes.json", store, "data.json"], in: directory)

        let process = Process()
        process.executableURL = try PostgresConvertTests.strata()
        process.arguments = ["watch", store, "Note", "--where", "done == NO"]
        process.currentDirectoryURL = directory
        let stdoutURL = directory.appendingPathComponent("watch.out")
        let stderrURL = directory.appendingPathComponent("watch.err")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func text(_ url: URL) -> String { String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self) }
        func lines() -> [String] { text(stdoutURL).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        // At most 30 s each, so that a broken command fails instead of hanging (the test then
        // checks what it must; no timing is asserted).
        func wait(_ condition: () -> Bool) {
            let deadline = Date().addingTimeInterval(30)
            while !condition(), process.isRunning, Date() < deadline { usleep(10_000) }
        }
        wait { text(stderrURL).contains("watching") }
        try PostgresConvertTests.run(["update", store, "Note", "--where", "text == 'a'", "--set", "done=true"], in: directory)
        wait { lines().count >= 1 }
        try PostgresConvertTests.run(["update", store, "Note", "--where", "text == 'b'", "--set", "text=bb"], in: directory)
        wait { lines().count >= 2 }
        try PostgresConvertTests.run(["load", "--schema", "notes.json", store, "more.json"], in: directory)
        wait { lines().count >= 3 }
        try PostgresConvertTests.run(["delete", store, "Note", "--where", "text == 'bb'"], in: directory)
        wait { lines().count >= 4 }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(lines() == [
            #"{"inserted": [], "updated": [], "deleted": [1]}"#,
            #"{"inserted": [], "updated": [2], "deleted": []}"#,
            #"{"inserted": [3], "updated": [], "deleted": []}"#,
            #"{"inserted": [], "updated": [], "deleted": [2]}"#,
        ])
    }
}
