import Foundation
import Testing

/// Several `strata` processes on one SQLite store at once: readers beside writers, writers beside
/// writers. Every committed object must be there at the end (issue 10, D1).
@Suite("strata on one SQLite store from several processes")
struct ConcurrentUseTests {
    /// `count` people with `@id`s from `first` on, in the data format.
    static func people(from first: Int, count: Int) -> String {
        let objects = (first..<(first + count)).map { #"{"@id": \#($0), "firstName": "p\#($0)", "lastName": "batch"}"# }
        return #"{"objects": {"Person": [\#(objects.joined(separator: ", "))]}}"#
    }

    /// Runs `body` on a thread of its own, so that the test can spawn processes from two places at once.
    static func inBackground(_ body: @escaping @Sendable () throws -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            do { try body() } catch { Issue.record("background work failed: \(error)") }
            group.leave()
        }
        return group
    }

    /// The number of people `inspect --format json` counts in `store`.
    static func count(_ workspace: Workspace, _ store: String) throws -> Int {
        let run = try workspace.run("inspect", "--format", "json", store)
        try #require(run.status == 0, "inspect failed: \(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let counts = try #require(report["objectCounts"] as? [String: Int])
        return try #require(counts["Person"])
    }

    @Test func readersBesideAWriterLoseNothing() throws {
        let workspace = try Workspace(schemas: ["People"])
        let loads = 15, batch = 100
        for index in 0..<loads {
            try workspace.write("batch\(index).json", Self.people(from: index * batch + 1, count: batch))
        }
        let done = Flag()
        // Readers loop until the loads are over; each only opens, reads and closes the store.
        let readers = (0..<2).map { reader in
            Self.inBackground {
                var runs = 0
                while !done.isSet || runs == 0 {
                    let run = try workspace.run(reader == 0 ? "inspect" : "dump", "people.sqlite")
                    // Before the first load has created the store there is nothing to read.
                    if run.status != 0 { #expect(run.stderr.contains("no store at"), "\(run.stderr)") }
                    runs += 1
                }
            }
        }
        for index in 0..<loads {
            let run = try workspace.run("load", "--schema", "People.json", "people.sqlite", "batch\(index).json")
            #expect(run.status == 0, "load \(index): \(run.stderr)")
            #expect(run.stdout == "loaded \(batch) objects into people.sqlite: Person \(batch)\n")
        }
        done.set()
        for reader in readers { reader.wait() }
        #expect(try Self.count(workspace, "people.sqlite") == loads * batch)
        let integrity = Process.runSQLiteShell(workspace.file("people.sqlite").path, "PRAGMA integrity_check")
        #expect(integrity == "ok\n")
    }

    @Test func twoLoadsAtOnceIntoANewStoreKeepBothBatches() throws {
        let workspace = try Workspace(schemas: ["People"])
        let rounds = 4, batch = 200
        for round in 0..<rounds {
            let store = "people\(round).sqlite"
            try workspace.write("a\(round).json", Self.people(from: 1, count: batch))
            try workspace.write("b\(round).json", Self.people(from: batch + 1, count: batch))
            let second = SharedValue<StrataRun?>(nil)
            let other = Self.inBackground {
                let run = try workspace.run("load", "--schema", "People.json", store, "b\(round).json")
                second.set(run)
            }
            let first = try workspace.run("load", "--schema", "People.json", store, "a\(round).json")
            other.wait()
            #expect(first.status == 0, "\(first.stderr)")
            #expect(second.get()?.status == 0, "\(second.get()?.stderr ?? "")")
            #expect(try Self.count(workspace, store) == 2 * batch, "round \(round)")
        }
        // Only the stores are left: no temporary files, logs or indexes of a store nobody has open.
        #expect(try workspace.listing().filter { $0.contains("sqlite") } == (0..<rounds).map { "people\($0).sqlite" })
    }

    /// Two loads of the same `@id`s at once into an existing store: one wins whole, the other
    /// fails saying which key is taken (whether it saw the other's objects before its save or
    /// met them in it), and nothing of it is written.
    @Test func twoLoadsOfTheSameKeysAtOnceKeepOneWholeAndSayWhy() throws {
        let workspace = try Workspace(schemas: ["People"])
        let batch = 300
        try workspace.write("empty.json", #"{"objects": {}}"#)
        try workspace.write("a.json", Self.people(from: 1, count: batch))
        try workspace.write("b.json", Self.people(from: 1, count: batch).replacingOccurrences(of: "\"batch\"", with: "\"other\""))
        for round in 0..<4 {
            let store = "people\(round).sqlite"
            #expect(try workspace.run("load", "--schema", "People.json", store, "empty.json").status == 0)
            let second = SharedValue<StrataRun?>(nil)
            let other = Self.inBackground { second.set(try workspace.run("load", "--schema", "People.json", store, "b.json")) }
            let first = try workspace.run("load", "--schema", "People.json", store, "a.json")
            other.wait()
            let runs = [first, try #require(second.get())]
            #expect(runs.map(\.status).sorted() == [0, 1], "round \(round): \(runs.map(\.stderr))")
            let failed = try #require(runs.first { $0.status != 0 })
            #expect(failed.stderr.contains("already exists"), "round \(round): \(failed.stderr)")
            #expect(try Self.count(workspace, store) == batch)
            let lastNames = try workspace.run("query", store, "Person", "--format", "json")
            let winner = runs[0].status == 0 ? "batch" : "other"
            #expect(lastNames.stdout.components(separatedBy: "\"lastName\": \"\(winner)\"").count - 1 == batch, "round \(round)")
        }
    }
}

/// A flag one thread sets and others read.
private final class Flag: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}

/// A value one thread writes and another reads after joining it.
private final class SharedValue<Value>: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }

    func set(_ new: Value) { lock.withLock { value = new } }
}

extension Process {
    /// Runs the `sqlite3` shell on `path` with `sql`; its output, or nil when there is no shell.
    static func runSQLiteShell(_ path: String, _ sql: String) -> String? {
        let shell = "/usr/bin/sqlite3"
        guard FileManager.default.isExecutableFile(atPath: shell) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = [path, sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
