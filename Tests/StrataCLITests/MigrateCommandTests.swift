import Foundation
import Strata
import Testing

/// `strata migrate` on the Moody versions of `Schemas/` (Docs/MoodyVersions.md): v1 → v2 renames
/// `Mood.date` to `recordedAt` and adds `Mood.isFavorite`; v3 adds `Mood.continent`.
@Suite("strata migrate")
struct MigrateCommandTests {
    static let v1Data = packageRoot.appendingPathComponent("Examples/Data/moody-v1.json").path

    /// A workspace with `Moody-v1.json` … `Moody-v3.json` and `moody.<ext>` loaded with
    /// `Examples/Data/moody-v1.json` through the v1 model.
    static func moodyV1(_ ext: String) throws -> Workspace {
        let workspace = try Workspace(schemas: ["Moody-v1", "Moody-v2", "Moody-v3"])
        let load = try workspace.run("load", "--schema", "Moody-v1.json", "moody.\(ext)", v1Data)
        try #require(load.status == 0, "\(load.stderr)")
        return workspace
    }

    /// `Moody 2 (0123456789ab…)`, as `migrate` names a model.
    static func label(_ workspace: Workspace, _ file: String) throws -> String {
        let schema = try Schema(contentsOf: workspace.file(file))
        return "\(schema.name) \(schema.version ?? "") (\(schema.versionHash.prefix(12))…)"
    }

    static func schema(_ workspace: Workspace, _ file: String) throws -> Schema {
        try Schema(contentsOf: workspace.file(file))
    }

    static func changes(_ count: Int) -> String {
        "\(count) change\(count == 1 ? "" : "s")"
    }

    /// `strata inspect --format json`, parsed.
    static func inspect(_ workspace: Workspace, _ store: String) throws -> [String: Any] {
        let run = try workspace.run("inspect", "--format", "json", store)
        try #require(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    /// The same objects as `Examples/Data/moody-v1.json` written for v2 by hand (`date` spelt
    /// `recordedAt`, `isFavorite` left to its default), loaded into a v2 store and dumped: what a
    /// migrated store must dump, byte for byte.
    static func expectedDump(_ workspace: Workspace, schema: String, ext: String) throws -> String {
        let v1 = try String(contentsOfFile: v1Data, encoding: .utf8)
        try workspace.write("expected.json", v1.replacingOccurrences(of: "\"date\":", with: "\"recordedAt\":"))
        let store = "expected-\(schema).\(ext)"
        let load = try workspace.run("load", "--schema", schema, store, "expected.json")
        try #require(load.status == 0, "\(load.stderr)")
        return try workspace.dump(store)
    }

    @Test(arguments: storeExtensions)
    func v1ToV2InOneStep(_ ext: String) throws {
        let workspace = try Self.moodyV1(ext)
        let store = "moody.\(ext)"
        let before = try Self.inspect(workspace, store)
        let (v1, v2) = (try Self.label(workspace, "Moody-v1.json"), try Self.label(workspace, "Moody-v2.json"))
        let changeCount = SchemaDiff(from: try Self.schema(workspace, "Moody-v1.json"), to: try Self.schema(workspace, "Moody-v2.json")).changes.count

        let run = try workspace.run("migrate", "--schema", "Moody-v2.json", store)
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(run.stdout == "migrated \(v1) → \(v2): \(Self.changes(changeCount))\n\(store): migrated to \(v2) in 1 step\n")

        // Exact values: every object, the renamed attribute under its new name, the added one
        // with its default, primary keys kept.
        let dump = try workspace.dump(store)
        #expect(dump == (try Self.expectedDump(workspace, schema: "Moody-v2.json", ext: ext)))
        try golden.expect(dump, matches: "moody-v2.dump.json")
        let moods = try #require(try parseObjects(dump)["Mood"])
        #expect(moods.ids == [1, 2, 3, 4, 5])
        #expect(moods[id: 3]?["recordedAt"] as? String == "2024-01-03T18:45:00.000Z")
        #expect(moods[id: 3]?["isFavorite"] as? Bool == false)
        #expect(moods[id: 3]?["date"] == nil)
        #expect(moods[id: 3]?["colors"] as? String == "EjRWeJq8")
        #expect(moods[id: 3]?["country"] as? Int == 10)

        // The metadata: the v2 model, the same store, the same counts.
        let v2Schema = try Self.schema(workspace, "Moody-v2.json")
        let after = try Self.inspect(workspace, store)
        #expect(after["modelVersionHash"] as? String == v2Schema.versionHash)
        #expect(after["entityVersionHashes"] as? [String: String] == v2Schema.entityVersionHashes)
        #expect(after["storeIdentifier"] as? String == before["storeIdentifier"] as? String)
        #expect(after["objectCounts"] as? [String: Int] == ["Continent": 2, "Country": 3, "Mood": 5])
        #expect(try workspace.run("check", store).status == 0)
        // The model files are only read.
        #expect(try workspace.contents("Moody-v2.json") == Data(contentsOf: packageRoot.appendingPathComponent("Schemas/Moody-v2.json")))

        // Again: nothing to do.
        let again = try workspace.run("migrate", "--schema", "Moody-v2.json", store)
        #expect(again.status == 0)
        #expect(again.stderr == "")
        #expect(again.stdout == "\(store): already at \(v2); nothing to migrate\n")
    }

    @Test(arguments: storeExtensions)
    func v1ToV3ThroughV2(_ ext: String) throws {
        let workspace = try Self.moodyV1(ext)
        let store = "moody.\(ext)"
        let labels = try ["Moody-v1.json", "Moody-v2.json", "Moody-v3.json"].map { try Self.label(workspace, $0) }
        let schemas = try ["Moody-v1.json", "Moody-v2.json", "Moody-v3.json"].map { try Self.schema(workspace, $0) }
        let counts = [SchemaDiff(from: schemas[0], to: schemas[1]).changes.count, SchemaDiff(from: schemas[1], to: schemas[2]).changes.count]

        let run = try workspace.run("migrate", "--schema", "Moody-v3.json", "--via", "Moody-v2.json", store)
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(run.stdout == """
            migrated \(labels[0]) → \(labels[1]): \(Self.changes(counts[0]))
            migrated \(labels[1]) → \(labels[2]): \(Self.changes(counts[1]))
            \(store): migrated to \(labels[2]) in 2 steps

            """)
        // The relationship v3 adds is empty: only a custom stage could fill it.
        let dump = try workspace.dump(store)
        #expect(dump == (try Self.expectedDump(workspace, schema: "Moody-v3.json", ext: ext)))
        try golden.expect(dump, matches: "moody-v3.dump.json")
        let objects = try parseObjects(dump)
        #expect(objects["Mood"]?.map { $0["continent"] is NSNull } == [true, true, true, true, true])
        #expect(objects["Continent"]?.map { $0["moods"] as? [Int] } == [[], []])
        #expect(try Self.inspect(workspace, store)["modelVersionHash"] as? String == schemas[2].versionHash)
    }

    /// A store already at a --via version starts there: v2 → v3 only.
    @Test func aStoreAtAViaVersionStartsThere() throws {
        let workspace = try Self.moodyV1("xml")
        try #require(try workspace.run("migrate", "--schema", "Moody-v2.json", "moody.xml").status == 0)
        let run = try workspace.run("migrate", "--schema", "Moody-v3.json", "--via", "Moody-v1.json", "--via", "Moody-v2.json", "moody.xml")
        #expect(run.status == 0, "\(run.stderr)")
        let (v2, v3) = (try Self.label(workspace, "Moody-v2.json"), try Self.label(workspace, "Moody-v3.json"))
        #expect(run.stdout.hasPrefix("migrated \(v2) → \(v3): "))
        #expect(run.stdout.hasSuffix("moody.xml: migrated to \(v3) in 1 step\n"))
    }

    @Test(arguments: storeExtensions)
    func dryRunPrintsThePlanAndChangesNothing(_ ext: String) throws {
        let workspace = try Self.moodyV1(ext)
        let store = "moody.\(ext)"
        let bytes = try #require(workspace.contents(store))
        let listing = try workspace.listing()
        let labels = try ["Moody-v1.json", "Moody-v2.json", "Moody-v3.json"].map { try Self.label(workspace, $0) }
        let schemas = try ["Moody-v1.json", "Moody-v2.json", "Moody-v3.json"].map { try Self.schema(workspace, $0) }

        let run = try workspace.run("migrate", "--dry-run", "--schema", "Moody-v3.json", "--via", "Moody-v2.json", store)
        #expect(run.stderr == "")
        #expect(run.status == 0)
        func changeLines(_ diff: SchemaDiff) -> [String] {
            diff.changes.isEmpty ? ["  (no change to the entities)"] : diff.changes.map { "  \($0)" }
        }
        var expected = ["\(labels[0]) → \(labels[1])"] + changeLines(SchemaDiff(from: schemas[0], to: schemas[1]))
        expected += ["\(labels[1]) → \(labels[2])"] + changeLines(SchemaDiff(from: schemas[1], to: schemas[2]))
        expected.append("\(store): would migrate from \(labels[0]) to \(labels[2]) in 2 steps (dry run: nothing changed)")
        #expect(run.stdout == expected.joined(separator: "\n") + "\n")
        // What the diff finds (SchemaChangeDetector): the rename, the additions, by name.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  Mood.recordedAt: ") && $0.contains("date") })
        #expect(lines.contains { $0.hasPrefix("  Mood.isFavorite: ") })
        #expect(lines.contains { $0.hasPrefix("  Mood.continent: ") })

        #expect(workspace.contents(store) == bytes)
        #expect(try workspace.listing() == listing)
    }

    // MARK: - Refusals and usage errors

    /// A model whose `Counter.value` is an optional int16; `variant` rewrites it.
    static func counterModel(_ version: String, value: String) -> String {
        """
        { "name": "Counters", "version": "\(version)", "entities": [ { "name": "Counter", "attributes": [
          { "name": "name", "type": "string" }, \(value) ] } ] }
        """
    }

    static let counters = """
        {"objects": {"Counter": [{"@id": 1, "name": "a", "value": 7}, {"@id": 2, "name": "b", "value": null},
                                 {"@id": 3, "name": "c", "value": null}]}}
        """

    /// int16 → string is not inferable: refused when planning, so `--dry-run` refuses it too.
    /// Optional → required without a default is refused by the data (the nil values), which only
    /// the migration sees: `--dry-run` prints the plan. Either way the migration exits 1 naming
    /// `Counter.value`, and the store stays byte-identical.
    @Test(arguments: storeExtensions, ["typeChange", "requiredWithoutDefault"])
    func aRefusedMigrationExits1AndChangesNothing(_ ext: String, _ change: String) throws {
        let workspace = try Workspace([
            "v1.json": Self.counterModel("1", value: #"{ "name": "value", "type": "int16", "optional": true }"#),
            "v2.json": Self.counterModel("2", value: change == "typeChange"
                ? #"{ "name": "value", "type": "string", "optional": true }"#
                : #"{ "name": "value", "type": "int16" }"#),
        ])
        let store = "counters.\(ext)"
        try workspace.load(store, schema: "v1.json", data: [("counters.json", Self.counters)])
        let bytes = try #require(workspace.contents(store))
        let listing = try workspace.listing()

        let dryRun = try workspace.run("migrate", "--dry-run", "--schema", "v2.json", store)
        if change == "typeChange" {
            #expect(dryRun.status == 1, "\(dryRun.stdout)\(dryRun.stderr)")
            #expect(dryRun.stderr.contains("Counter.value"), "\(dryRun.stderr)")
        } else {
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(dryRun.stdout.contains("\n  Counter.value: "), "\(dryRun.stdout)")
        }
        #expect(workspace.contents(store) == bytes)

        let run = try workspace.run("migrate", "--schema", "v2.json", store)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.hasPrefix("strata: error: "))
        #expect(run.stderr.contains("Counter.value"), "\(run.stderr)")
        if change == "requiredWithoutDefault" {
            // The objects whose nil stands in the way.
            #expect(run.stderr.contains("Counter 2") && run.stderr.contains("Counter 3"), "\(run.stderr)")
        }
        #expect(workspace.contents(store) == bytes)
        #expect(try workspace.listing() == listing)
    }

    @Test func aMissingStoreIsAUsageErrorAndIsNotCreated() throws {
        let workspace = try Workspace(schemas: ["Moody-v2"])
        let run = try workspace.run("migrate", "--schema", "Moody-v2.json", "none.sqlite")
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == "strata: error: no store at 'none.sqlite'; strata migrate changes an existing store and never creates one\n")
        #expect(try workspace.listing() == ["Moody-v2.json"])
    }

    @Test func aStoreThatIsNotARegularFileIsAUsageError() throws {
        let workspace = try Workspace(schemas: ["Moody-v2"])
        try FileManager.default.createDirectory(at: workspace.file("dir.xml"), withIntermediateDirectories: false)
        let run = try workspace.run("migrate", "--schema", "Moody-v2.json", "dir.xml")
        #expect(run.status == 2)
        #expect(run.stderr.contains("'dir.xml' is a directory, not a regular file"), "\(run.stderr)")
    }

    /// A model with errors: its diagnostics as `strata validate` prints them, exit 2, the store
    /// untouched.
    @Test func aBadModelPrintsItsDiagnosticsAndExits2() throws {
        let workspace = try Self.moodyV1("xml")
        try workspace.write("bad.json", #"{ "name": "Moody", "entities": [ { "name": "Mood", "atributes": [] } ] }"#)
        let bytes = try #require(workspace.contents("moody.xml"))
        let validate = try workspace.run("validate", "bad.json")
        let diagnostics = validate.stdout.split(separator: "\n").filter { $0.contains(": error: ") || $0.contains(": warning: ") }
        try #require(!diagnostics.isEmpty)

        let run = try workspace.run("migrate", "--schema", "Moody-v3.json", "--via", "bad.json", "moody.xml")
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == diagnostics.joined(separator: "\n") + "\nstrata: error: the model file 'bad.json' has 1 error; nothing was migrated\n")
        #expect(workspace.contents("moody.xml") == bytes)

        let missing = try workspace.run("migrate", "--schema", "missing.json", "moody.xml")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing.json"), "\(missing.stderr)")
    }

    @Test func theStoreCannotBeItsOwnModel() throws {
        let workspace = try Self.moodyV1("xml")
        let bytes = try #require(workspace.contents("moody.xml"))
        let run = try workspace.run("migrate", "--schema", "moody.xml", "moody.xml")
        #expect(run.status == 2)
        #expect(run.stderr.contains("the model file 'moody.xml' is the store"), "\(run.stderr)")
        #expect(workspace.contents("moody.xml") == bytes)
    }

    // MARK: - Processes

    /// Two `strata migrate` at once on one store: both exit 0, one migrates, the other finds the
    /// store current (it waits for the first one's lock, or plans after it), and the store is
    /// migrated once.
    @Test(arguments: storeExtensions)
    func twoMigrationsAtOnce(_ ext: String) throws {
        let workspace = try Self.moodyV1(ext)
        let store = "moody.\(ext)"
        let v2 = try Self.label(workspace, "Moody-v2.json")
        let expected = try Self.expectedDump(workspace, schema: "Moody-v2.json", ext: ext)
        for round in 1...3 {
            let copy = "round\(round).\(ext)"
            try workspace.copyStore(store, to: copy)
            let runs = try ConcurrentProcessTests.runTogether(workspace, [
                ["migrate", "--schema", "Moody-v2.json", copy],
                ["migrate", "--schema", "Moody-v2.json", copy],
            ])
            #expect(runs.map(\.status) == [0, 0], "\(runs.map(\.stderr))")
            #expect(runs.map(\.stderr) == ["", ""])
            let outputs = runs.map(\.stdout).sorted { $0.hasPrefix("migrated") && !$1.hasPrefix("migrated") }
            #expect(outputs[0].hasSuffix("\(copy): migrated to \(v2) in 1 step\n"), "\(outputs)")
            #expect(outputs[1] == "\(copy): already at \(v2); nothing to migrate\n", "\(outputs)")
            #expect(try workspace.dump(copy) == expected)
        }
    }

    /// At a terminal (a pseudo-terminal made by script(1)), progress is drawn on standard error as
    /// one line rewritten in place and erased at the end; tests and pipes see none (the other
    /// tests expect an empty standard error).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressAtATerminal() throws {
        let workspace = try Self.moodyV1("xml")
        let executable = try #require(StrataExecutable.url)
        // Standard output goes to a file; only standard error is the terminal.
        let command = "\(executable.path) migrate --schema Moody-v2.json moody.xml > out.txt"
        let run = try ScriptRun.run(["-qec", command, "/dev/null"], in: workspace.url)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("\r\u{1B}[Kmigrating: step 1/1: "), "\(run.stdout.debugDescription)")
        #expect(run.stdout.hasSuffix("\r\u{1B}[K"), "\(run.stdout.debugDescription)")
        #expect(workspace.text("out.txt")?.hasSuffix("moody.xml: migrated to \(try Self.label(workspace, "Moody-v2.json")) in 1 step\n") == true)
    }
}

/// Runs a program other than `strata` (script(1)), capturing its output.
enum ScriptRun {
    static func run(_ arguments: [String], in directory: URL) throws -> StrataRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return StrataRun(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }
}
