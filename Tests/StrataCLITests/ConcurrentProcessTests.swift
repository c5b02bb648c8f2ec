import Foundation
import Strata
import Testing

/// Several `strata` processes writing one XML or binary store at once (issue 10, D2): each save
/// takes the store's lock and rebases onto what the others saved, so nothing a command reported
/// as done is lost.
@Suite("strata processes writing one atomic store")
struct ConcurrentProcessTests {
    /// The atomic store types: SQLite's concurrency is the engine's.
    static let atomicExtensions = ["xml", "plist"]

    /// `count` tags with @ids from `firstID` and names `prefix0`, `prefix1`, ….
    static func tags(_ prefix: String, firstID: Int, count: Int) -> String {
        let objects = (0..<count).map { "{\"@id\": \(firstID + $0), \"name\": \"\(prefix)\($0)\"}" }
        return "{\"objects\": {\"Tag\": [\n" + objects.joined(separator: ",\n") + "\n]}}"
    }

    /// Runs every argument list as its own `strata` process, all at once.
    static func runTogether(_ workspace: Workspace, _ commands: [[String]]) throws -> [StrataRun] {
        let results = Locked<[Int: Result<StrataRun, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: commands.count) { index in
            let result = Result { try workspace.run(commands[index]) }
            results.withLock { $0[index] = result }
        }
        return try results.withLock { results in try commands.indices.map { try results[$0]!.get() } }
    }

    /// The tag names a store holds.
    static func tagNames(_ workspace: Workspace, _ store: String) throws -> Set<String> {
        let objects = try workspace.dumpedObjects(store)
        return Set((objects["Tag"] ?? []).compactMap { $0["name"] as? String })
    }

    /// Before the lock and the rebase, one batch was gone in 10 of 10 runs, both processes
    /// printing "loaded" and exiting 0.
    @Test(arguments: atomicExtensions)
    func twoLoadsAtOnceKeepBothBatches(_ ext: String) throws {
        let batch = 1_000
        let workspace = try Workspace(
            ["a.json": Self.tags("a", firstID: 1, count: batch), "b.json": Self.tags("b", firstID: 100_001, count: batch)],
            schemas: ["TodoList"])
        let expected = Set((0..<batch).map { "a\($0)" } + (0..<batch).map { "b\($0)" })
        for round in 1...3 {
            let store = "round\(round).\(ext)"
            let runs = try Self.runTogether(workspace, [
                ["load", "--schema", "TodoList.json", store, "a.json"],
                ["load", "--schema", "TodoList.json", store, "b.json"],
            ])
            for run in runs {
                #expect(run.status == 0, "round \(round): \(run.stderr)")
                #expect(run.stdout == "loaded \(batch) objects into \(store): Tag \(batch)\n")
            }
            #expect(try Self.tagNames(workspace, store) == expected, "round \(round)")
        }
        // No temporary file is left behind; each store keeps its lock file.
        #expect(try workspace.listing() == ["TodoList.json", "a.json", "b.json"] + (1...3).map { "round\($0).\(ext)" })
        #expect(try workspace.lockFiles() == (1...3).map { "round\($0).\(ext).lock" })
    }

    /// `convert --force` onto a store that `load` is writing: the conversion replaces the whole
    /// store between two saves. Either the load saved before (then the conversion replaced its
    /// batch, as asked), or after (then its batch is added to the converted store whole), or it
    /// failed saying the store was replaced; never half of anything, never an error-free load
    /// into a store that then lacks the converted content.
    @Test(arguments: atomicExtensions)
    func convertForceBesideALoad(_ ext: String) throws {
        let batch = 500
        let workspace = try Workspace(
            ["old.json": Self.tags("old", firstID: 1, count: 50),
             "source.json": Self.tags("source", firstID: 1_001, count: batch),
             "new.json": Self.tags("new", firstID: 10_001, count: batch)],
            schemas: ["TodoList"])
        let loadSource = try workspace.run("load", "--schema", "TodoList.json", "source.\(ext)", "source.json")
        try #require(loadSource.status == 0, "\(loadSource.stderr)")
        let converted = try Self.tagNames(workspace, "source.\(ext)")
        let added = Set((0..<batch).map { "new\($0)" })
        for round in 1...3 {
            let store = "target\(round).\(ext)"
            let seed = try workspace.run("load", "--schema", "TodoList.json", store, "old.json")
            try #require(seed.status == 0, "\(seed.stderr)")
            let runs = try Self.runTogether(workspace, [
                ["load", "--schema", "TodoList.json", store, "new.json"],
                ["convert", "--force", "source.\(ext)", store],
            ])
            let (load, convert) = (runs[0], runs[1])
            #expect(convert.status == 0, "round \(round): \(convert.stderr)")
            let names = try Self.tagNames(workspace, store)
            if load.status == 0 {
                #expect(names == converted || names == converted.union(added), "round \(round): \(names.count) tags")
            } else {
                #expect(load.stderr.contains("was replaced by another store"), "round \(round): \(load.stderr)")
                #expect(names == converted)
            }
        }
    }
}
