import ArgumentParser
import Foundation
import Strata
import StrataCoreData

/// `strata migrate`: migrates a store in place to a new version of its model, inferring each
/// step (Core Data's lightweight migration), all-or-nothing.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store in place to a new version of its model (inferred steps, all or nothing).",
        discussion: """
            Example: strata migrate --schema Moody-v3.json --via Moody-v2.json moody.sqlite
            Migrates the store from the model stored in it to the --schema model: through the \
            --via models in order, each step inferred (a store already at one of them starts \
            there), or in one inferred step without --via. Matched entities and properties keep \
            their values (renamed ones, matched by renamingIdentifier, under their new names), \
            added attributes take their default value or nil, removed ones are dropped, and \
            primary keys are kept. A change that cannot be inferred (int16 → string, say), or \
            data that the new model refuses (nil values of an attribute that becomes required \
            without a default, duplicates under a new uniqueness constraint), refuses the whole \
            migration, naming Entity.property and why. A SQLite store migrates in one transaction, \
            an XML or binary store through one atomic replacement of the file: a crash leaves the \
            old store or the migrated one. The model files are only read; the store must exist.
            --dry-run prints the plan (each step, then its changes, one a line) and changes \
            nothing. Otherwise one line per step done and a summary are printed; at a terminal, \
            progress is shown on standard error.
            Exit status: 0 when the store was migrated or already had the model, 1 when the \
            migration was refused or failed (the store is unchanged), 2 for a usage error, a \
            model file with errors, or a store that cannot be read.
            """
    )

    @Option(help: "The store type (sqlite, xml, binary); by default from the file.")
    var type: String?

    @Option(help: "The model to migrate the store to.")
    var schema: String

    @Option(help: ArgumentHelp("A model version to migrate through, oldest first; repeat for several.", valueName: "model"))
    var via: [String] = []

    @Flag(help: "Print the plan and change nothing.")
    var dryRun = false

    @Argument(help: "The store file.")
    var store: String

    func run() throws {
        try runReportingErrors { try migrate() }
    }

    private func migrate() throws {
        let url = StoreAccess.location(store)
        guard !url.isFileURL || FileManager.default.fileExists(atPath: store) else {
            throw CLIError.unreadable("no store at '\(Echo.value(store))'; strata migrate changes an existing store and never creates one")
        }
        try Self.unreadable { () throws(StrataError) in try FileIdentity.requireRegularFile(url) }
        if let type, StoreType(rawValue: type) == .inMemory {
            throw CLIError.unreadable("--type memory names no file; migrate a file store (--type sqlite, xml or binary)")
        }
        let files = via + [schema]
        for file in files { try StoreAccess.refuseSameFile(file, role: "the model file", store: store) }
        try StoreAccess.refuseReadOnlyStore(store, type: type, command: "migrate")
        let models = try files.map(Self.loadModel)
        let versions = try Self.unreadable { () throws(StrataError) in try SchemaVersions(models) }
        let storeType = try StoreAccess.type(of: store, given: type)
        let migrator = StoreMigrator(storeTypes: StoreAccess.registry)
        // Planned here for the dry run and for the exit statuses of a refusal (1) or a store
        // whose model cannot be read (2). The migrator plans again, and the store checks the
        // plan under its lock, in case another process migrates the store meanwhile.
        let plan = try Self.planning { () throws(StrataError) in
            try migrator.plan(forStoreAt: url, type: storeType, versions: versions, unlisted: .throughEveryVersion)
        }
        if dryRun {
            printPlan(plan, current: versions.current)
            return
        }
        let line = ProgressLine.forTerminal()
        defer { line?.clear() }
        var progress: MigrationProgress?
        if let line {
            progress = { event in line.show(Self.progressText(event), force: event.completed == nil) }
        }
        let report = try Self.migrating { () throws(StrataError) in
            try migrator.migrateStore(at: url, type: storeType, versions: versions, unlisted: .throughEveryVersion, progress: progress)
        }
        line?.clear()
        if report.wasAlreadyCurrent {
            Console.print("\(store): already at \(SchemaVersions.label(versions.current)); nothing to migrate")
            return
        }
        for step in report.steps {
            Console.print("migrated \(step.summary): \(Self.count(step.changeCount, "change"))")
        }
        Console.print("\(store): migrated to \(SchemaVersions.label(versions.current)) in \(Self.count(report.steps.count, "step"))")
    }

    /// `--dry-run`: every step, then its changes, indented, one a line; then a summary.
    private func printPlan(_ plan: MigrationPlan, current: Schema) {
        guard !plan.isEmpty else {
            Console.print("\(store): already at \(SchemaVersions.label(current)); nothing to migrate")
            return
        }
        for step in plan.steps {
            Console.print(step.summary)
            if step.diff.changes.isEmpty { Console.print("  (no change to the entities)") }
            for change in step.diff.changes { Console.print("  " + Echo.line(change.description)) }
        }
        Console.print("\(store): would migrate from \(SchemaVersions.label(plan.storeSchema)) to \(SchemaVersions.label(plan.destination)) in \(Self.count(plan.steps.count, "step")) (dry run: nothing changed)")
    }

    /// Loads a model file (or imports an Xcode model's current version); a file that cannot be
    /// read or has errors is a usage error (exit 2), its diagnostics printed on standard error as
    /// `strata validate` prints them.
    private static func loadModel(_ path: String) throws -> Schema {
        if XCDataModelImporter.isModel(at: URL(fileURLWithPath: path)) {
            do { return try StoreAccess.loadSchema(path) } catch let error as CLIError { throw CLIError.unreadable(error.description) }
        }
        let result: SchemaLoadResult
        do {
            result = try Schema.load(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.unreadable(error.description)
        }
        guard let schema = result.schema else {
            for diagnostic in result.diagnostics { Console.note(diagnostic.description) }
            let errors = result.diagnostics.errors.count
            throw CLIError.unreadable("the model file '\(Echo.value(path))' has \(count(errors, "error")); nothing was migrated")
        }
        return schema
    }

    /// "migrating: step 1/2: Mood: copying rows 1200/5000 (24%)".
    static func progressText(_ event: MigrationProgressEvent) -> String {
        var text = "migrating: step \(event.step)/\(event.stepCount): \(event.activity)"
        if let completed = event.completed, let total = event.total, total > 0 {
            text += " \(completed)/\(total) (\(completed * 100 / total)%)"
        }
        return text
    }

    // MARK: - Exit statuses

    /// Runs `body`, making any error a usage error (exit 2).
    private static func unreadable<T>(_ body: () throws(StrataError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIError.unreadable(error.description)
        }
    }

    /// Planning: a refusal exits 1; anything else (the store or its model unreadable) exits 2.
    private static func planning(_ body: () throws(StrataError) -> MigrationPlan) throws -> MigrationPlan {
        do {
            return try body()
        } catch where error.code == .migrationRefused {
            throw error
        } catch {
            throw CLIError.unreadable(error.description)
        }
    }

    /// Migrating: a store that cannot be read or written exits 2; a refusal or a failure exits 1.
    private static func migrating(_ body: () throws(StrataError) -> MigrationReport) throws -> MigrationReport {
        do {
            return try body()
        } catch where [.storeIO, .noStore, .corruptStore, .invalidConfiguration].contains(error.code) {
            throw CLIError.unreadable(error.description)
        }
    }

    private static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }
}
