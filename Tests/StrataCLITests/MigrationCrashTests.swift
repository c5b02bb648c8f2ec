import Foundation
import Strata
import Testing

/// kill -9 during `strata migrate` (issue 11, D3): a real `strata migrate` process on a store of
/// tens of thousands of objects is killed with SIGKILL at points spread over the migration's
/// length; after each kill the store opens and is either the old model with every old object or
/// the new model with every object migrated — never an error, never fewer objects.
@Suite("strata migrate killed with SIGKILL", .sharedWorkspace { try Workspace.manyMoods() })
struct MigrationCrashTests {
    /// Starts `strata arguments…` in `directory` without waiting for it.
    static func start(_ arguments: [String], in directory: URL) throws -> Process {
        let executable: URL = try #require(StrataExecutable.url)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts `strata arguments…`, kills it with SIGKILL after `seconds`, and says whether it
    /// was still running then; one that had finished must have succeeded.
    static func killed(_ arguments: [String], in directory: URL, after seconds: Double, round: Double) throws -> Bool {
        let process = try start(arguments, in: directory)
        Thread.sleep(forTimeInterval: seconds)
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if wasRunning && process.terminationReason == .uncaughtSignal { return true }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "round \(round): exit \(process.terminationStatus)")
        return false
    }

    /// `strata inspect --format json` of `store` (model hash, object counts), which must succeed.
    static func inspect(_ workspace: Workspace, _ store: String) throws -> [String: Any] {
        let run = try workspace.run("inspect", "--format", "json", store)
        try #require(run.status == 0, "the store does not open after the kill: \(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test(arguments: storeExtensions)
    func killedAtAnyMomentLeavesTheOldOrTheMigratedStore(_ ext: String) throws {
        let workspace = try SharedWorkspace.get()
        let original = "original-\(ext).\(ext)"
        let converted = try workspace.run("convert", "original.xml", original)
        try #require(converted.status == 0, "\(converted.stderr)")
        let (v1, v2) = (try Schema(contentsOf: workspace.file("Moody-v1.json")), try Schema(contentsOf: workspace.file("Moody-v2.json")))
        let (oldDump, newDump) = (try #require(workspace.text("old.dump.json")), try #require(workspace.text("new.dump.json")))

        // One migration to the end: it gives the new dump, and roughly how long a migration
        // takes here (only to spread the kills over it; nothing is asserted about time).
        try workspace.copyStore(original, to: "whole.\(ext)")
        let started = ContinuousClock.now
        let whole = try workspace.run("migrate", "--schema", "Moody-v2.json", "whole.\(ext)")
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        try #require(whole.status == 0, "\(whole.stderr)")
        #expect(try workspace.dump("whole.\(ext)") == newDump)

        let store = "crash.\(ext)"
        var killedWhileRunning = 0
        var outcomes: [String] = []
        for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
            // Each round starts from the v1 store (the files SQLite keeps beside it removed: no
            // process has this copy open).
            for suffix in ["", "-wal", "-shm", "-journal"] { try? workspace.remove(store + suffix) }
            try workspace.copyStore(original, to: store)
            if try Self.killed(["migrate", "--schema", "Moody-v2.json", store], in: workspace.url, after: seconds * fraction, round: fraction) {
                killedWhileRunning += 1
            }

            // The store opens, with one of the two models and every object. Its whole contents
            // are compared the first time each model is seen (a dump of every object is slow).
            let report = try Self.inspect(workspace, store)
            #expect(report["objectCounts"] as? [String: Int] == ["Continent": 2, "Country": 3, "Mood": Workspace.manyMoodsCount], "round \(fraction)")
            let hash = report["modelVersionHash"] as? String
            let outcome = hash == v1.versionHash ? "old" : hash == v2.versionHash ? "new" : "neither"
            guard outcome != "neither" else {
                Issue.record("round \(fraction): the store has model hash \(hash ?? "nil"), neither v1's nor v2's")
                continue
            }
            if !outcomes.contains(outcome) {
                #expect(try workspace.dump(store) == (outcome == "old" ? oldDump : newDump), "round \(fraction): \(outcome) model")
            }
            outcomes.append(outcome)
        }
        // The early kills land while the migration runs.
        #expect(killedWhileRunning > 0, "\(outcomes)")

        // A store left by a kill migrates to the end.
        let resumed = try workspace.run("migrate", "--schema", "Moody-v2.json", store)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try workspace.dump(store) == newDump)
    }
}

extension Workspace {
    static let manyMoodsCount = 20_000

    /// Moody v1 data: two continents, three countries, ``manyMoodsCount`` moods spread over them.
    static var manyMoodsData: String {
        var moods: [String] = []
        moods.reserveCapacity(manyMoodsCount)
        let colors = ["/wAAAP8A", "AAD/gICA", "EjRWeJq8", "////AAAA"]
        for index in 1...manyMoodsCount {
            let date = 1_704_067_200 + index * 3_600
            moods.append(#"{"@id": \#(index), "date": \#(date), "colors": "\#(colors[index % 4])", "country": \#(10 + index % 3)}"#)
        }
        return """
            {"objects": {
              "Continent": [{"@id": 1, "name": "Europe", "code": "EU"}, {"@id": 2, "name": "Asia", "code": "AS"}],
              "Country": [{"@id": 10, "name": "France", "code": "FR", "continent": 1},
                          {"@id": 11, "name": "Japan", "code": "JP", "continent": 2},
                          {"@id": 12, "name": "Germany", "code": "DE", "continent": 1}],
              "Mood": [
            \(moods.joined(separator: ",\n"))
            ]}}
            """
    }

    /// The two models, `original.xml` (v1, loaded with ``data``) and what it dumps before
    /// (`old.dump.json`) and after the migration (`new.dump.json`, written from the old dump by
    /// hand: `date` spelt `recordedAt`, `isFavorite` false). Dumps are the same for every store
    /// type, so each test converts the XML store to its type instead of loading it again.
    static func manyMoods() throws -> Workspace {
        let workspace = try Workspace(schemas: ["Moody-v1", "Moody-v2"])
        try workspace.load("original.xml", schema: "Moody-v1.json", data: [("moods.json", manyMoodsData)])
        let oldDump = try workspace.dump("original.xml")
        try workspace.write("old.dump.json", oldDump)
        let newDump = oldDump.replacingOccurrences(
            of: #"\n( *)"date": ("[^"]*")"#, with: "\n$1\"isFavorite\": false,\n$1\"recordedAt\": $2", options: .regularExpression)
        try #require(newDump.components(separatedBy: "\"recordedAt\"").count == manyMoodsCount + 1)
        try workspace.write("new.dump.json", newDump)
        return workspace
    }

    /// Copies a store that no process has open: the file and a SQLite WAL beside it, if any.
    func copyStore(_ store: String, to copy: String) throws {
        for suffix in ["", "-wal"] where exists(store + suffix) {
            try FileManager.default.copyItem(at: file(store + suffix), to: file(copy + suffix))
        }
    }
}
