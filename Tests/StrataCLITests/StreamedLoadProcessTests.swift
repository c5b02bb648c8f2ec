import Foundation
import Testing

/// `strata load` into an existing, empty SQLite store streams its rows in one transaction
/// (a bulk load, indexes dropped and built again): a kill at any moment must leave the empty
/// store exactly as it was or the whole load, and other processes writing beside it lose
/// nothing.
@Suite("strata load streamed into an empty SQLite store, beside other processes")
struct StreamedLoadProcessTests {
    /// The store's indexes and what `PRAGMA integrity_check` says of it.
    static func shape(_ workspace: Workspace, _ store: String) -> String {
        let path = workspace.file(store).path
        return (Process.runSQLiteShell(path, "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name") ?? "")
            + (Process.runSQLiteShell(path, "PRAGMA integrity_check") ?? "")
    }

    @Test func killedAtAnyMomentLeavesTheEmptyStoreOrTheWholeLoad() throws {
        let workspace = try Workspace(schemas: ["People"])
        let count = 20_000
        try workspace.write("people.json", ConcurrentUseTests.people(from: 1, count: count))
        try workspace.write("nothing.json", #"{"objects": {}}"#)
        let created = try workspace.run("load", "--schema", "People.json", "empty.sqlite", "nothing.json")
        try #require(created.status == 0, "\(created.stderr)")
        let emptyShape = Self.shape(workspace, "empty.sqlite")
        #expect(emptyShape.hasSuffix("ok\n"))

        // One load to the end: how long a load takes here (only to spread the kills over it).
        try workspace.copyStore("empty.sqlite", to: "whole.sqlite")
        let started = ContinuousClock.now
        let whole = try workspace.run("load", "--schema", "People.json", "whole.sqlite", "people.json")
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        try #require(whole.status == 0, "\(whole.stderr)")
        #expect(Self.shape(workspace, "whole.sqlite") == emptyShape)

        var killedWhileRunning = 0
        for fraction in [0.2, 0.4, 0.6, 0.8, 1.0] {
            let store = "crash.sqlite"
            for suffix in ["", "-wal", "-shm", "-journal"] { try? workspace.remove(store + suffix) }
            try workspace.copyStore("empty.sqlite", to: store)
            if try MigrationCrashTests.killed(["load", "--schema", "People.json", store, "people.json"], in: workspace.url, after: seconds * fraction, round: fraction) {
                killedWhileRunning += 1
            }
            // Nothing or everything, with every index and an intact file.
            let stored = try ConcurrentUseTests.count(workspace, store)
            #expect(stored == 0 || stored == count, "round \(fraction): \(stored) people")
            #expect(Self.shape(workspace, store) == emptyShape, "round \(fraction)")
            // A store left empty by a kill takes the load again.
            if stored == 0 {
                let again = try workspace.run("load", "--schema", "People.json", store, "people.json")
                #expect(again.status == 0, "\(again.stderr)")
                #expect(try ConcurrentUseTests.count(workspace, store) == count)
            }
        }
        #expect(killedWhileRunning > 0)
    }

    @Test func aStreamedLoadBesideOtherWritersLosesNothing() throws {
        let workspace = try Workspace(schemas: ["People"])
        let big = 10_000, small = 50, smallLoads = 6
        try workspace.write("big.json", ConcurrentUseTests.people(from: 1, count: big))
        for index in 0..<smallLoads {
            try workspace.write("small\(index).json", ConcurrentUseTests.people(from: 100_001 + index * small, count: small))
        }
        try workspace.write("nothing.json", #"{"objects": {}}"#)
        let created = try workspace.run("load", "--schema", "People.json", "people.sqlite", "nothing.json")
        try #require(created.status == 0, "\(created.stderr)")
        // The big load streams (or, if a small one commits first, loads the ordinary way);
        // the small ones wait for its lock or go first.
        let bigLoad = ConcurrentUseTests.inBackground {
            let run = try workspace.run("load", "--schema", "People.json", "people.sqlite", "big.json")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "loaded \(big) objects into people.sqlite: Person \(big)\n")
        }
        for index in 0..<smallLoads {
            let run = try workspace.run("load", "--schema", "People.json", "people.sqlite", "small\(index).json")
            #expect(run.status == 0, "small load \(index): \(run.stderr)")
        }
        bigLoad.wait()
        #expect(try ConcurrentUseTests.count(workspace, "people.sqlite") == big + small * smallLoads)
        #expect(Process.runSQLiteShell(workspace.file("people.sqlite").path, "PRAGMA integrity_check") == "ok\n")
    }
}
