import Foundation
import StrataTestKit
import Testing

/// The examples (`swift run <name>`), run as built next to `strata`: each exits 0 and prints
/// what it did. They are documentation; these tests keep them working.
@Suite("Examples")
struct ExampleTests {
    /// Runs a built example with `arguments` in an empty folder; its standard output (a failure
    /// is recorded when it does not exit 0).
    static func run(_ name: String, _ arguments: [String] = []) throws -> String {
        let strata = try #require(StrataExecutable.url, "the strata executable was not found; build with `swift build --build-tests`")
        let executable = strata.deletingLastPathComponent().appendingPathComponent(name)
        let temporary = try TemporaryDirectory(prefix: "example")
        let directory = temporary.url
        let stdout = directory.appendingPathComponent("stdout"), stderr = directory.appendingPathComponent("stderr")
        try Data().write(to: stdout)
        try Data().write(to: stderr)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let output = try String(contentsOf: stdout, encoding: .utf8)
        let errors = try String(contentsOf: stderr, encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(name) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus):\n\(errors)")
        // Only the example's own files, in a temporary folder it removes: none are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["stderr", "stdout"])
        return output
    }

    @Test func theToDoList() throws {
        let output = try Self.run("todo-example")
        #expect(output.contains("""
            Open, most important first:
              [3] Write the report  (work)
              [2] Buy milk  (home, shopping) @ Corner shop
              [0] Water the plants  (home)
            """))
        #expect(output.contains(".title: 0 characters is shorter than the minimum length 1\n"))
        // The live list hears of the to-do an edit sheet (a child context) saved into its context.
        #expect(output.contains("""
            Live list: 3 open

            The sheet saves into the list's context:
              + row 2: Call the plumber
            """))
        #expect(output.hasSuffix("A dropped sheet leaves the list as it was: unchanged\n"))
    }

    @Test(arguments: ["memory", "sqlite", "xml", "binary"])
    func theCustomersOnEveryStore(_ store: String) throws {
        let output = try Self.run("customers-example", ["--store", store])
        #expect(output.hasPrefix("Store: \(store)\n"))
        #expect(output.contains("""
            Delete Grace:
              Ada Lovelace <ada@example.com>, 36
              Alan Turing <alan@example.org>, 41
            """))
        #expect(output.contains("'email' must be unique"))
        #expect(output.contains("Read back from the") == (store != "memory"))
        if store != "memory" {
            #expect(output.hasSuffix("""
                Read back from the \(store) file by a new container:
                  Ada Lovelace <ada@example.com>, 36
                  Alan Turing <alan@example.org>, 41

                """))
        }
    }

    @Test func theCustomersRefuseAnUnknownStore() throws {
        let strata = try #require(StrataExecutable.url)
        let process = Process()
        process.executableURL = strata.deletingLastPathComponent().appendingPathComponent("customers-example")
        process.arguments = ["--store", "paper"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
    }

    @Test func moodyMigratesItsFirstVersionsStore() throws {
        let output = try Self.run("moody-example")
        #expect(output.contains("\n  2 Continent, 3 Country, 5 Mood\n"))
        #expect(output.contains("  step 2 of 2: running the custom stage's didMigrate\n"))
        #expect(output.contains("""
            Moods, newest first, with their colours, country and continent (typed classes):
              2024-01-05  #808080 #808080  -, -
              2024-01-04  #FFFFFF #000000  Germany, Europe
              2024-01-03  #123456 #789ABC  France, Europe
              2024-01-02  #0000FF #808080  Japan, Asia
              2024-01-01  #FF0000 #00FF00  France, Europe
            """))
        #expect(output.contains("""
              AS  Asia (continent, moods: 1)
              DE  Germany (country, moods: 1)
              EU  Europe (continent, moods: 3)
              FR  France (country, moods: 2)
              JP  Japan (country, moods: 1)
            """))
        #expect(output.contains("  favourites: 1\n"))
        #expect(output.contains("'code' must be unique"))
    }

    @Test func thePeopleArchive() throws {
        let output = try Self.run("people-example")
        #expect(output.contains("beginning 'bplist'"))
        #expect(output.hasSuffix("""
            Restore them with a new container, sorted by last name:
              Mary Jackson
              Katherine Johnson
              Dorothy Vaughan

            Remove Dorothy, save, restore again:
              Mary Jackson, Katherine Johnson

            """))
    }
}
