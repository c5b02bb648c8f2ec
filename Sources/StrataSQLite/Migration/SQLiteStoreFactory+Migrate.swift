public import Foundation
public import Strata

extension SQLiteStoreFactory {
    /// Migrates the SQLite store at `url` in place, with SQL, in one transaction
    /// (`BEGIN IMMEDIATE`): all of `plan`, or — when a step is refused or fails, or the process
    /// dies at any moment — none of it (SQLite's transaction guarantees it: nothing is written
    /// outside it, no file is copied). A store of an earlier file layout is upgraded first, in
    /// the same transaction.
    ///
    /// Under the write lock the store's model is read again: a store another process migrated
    /// meanwhile to the plan's destination is left alone (`wasAlreadyCurrent`); one at neither
    /// end of the plan is refused with `incompatibleModel`. Readers in other processes see the
    /// old store or the migrated one (WAL); a store another process opened before the
    /// migration refuses to save after it, asking to be opened with the new model.
    ///
    /// Each step runs its custom stage's willMigrate through a store on the source model, then
    /// its SQL (`SQLiteMigration`), then didMigrate through a store on the destination model
    /// — both over the migration's own connection, their saves nested in its transaction —
    /// then the checks of the destination model (required values, to-one counts, uniqueness).
    /// - Throws: `migrationRefused` naming the objects in the way, `migrationFailed` for a
    ///   custom stage that threw, `incompatibleModel`, `storeIO` or `corruptStore`; the store is
    ///   then unchanged.
    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no store at '\(url.relativePath)' to migrate", file: url.path)
        }
        // A model the SQLite layout cannot hold (siblings sharing a table with one property
        // name stored two ways) would leave a file no store opens.
        for step in plan.steps {
            let problems = StoreLayout(schema: step.destination, configurationName: nil).problems
            guard problems.isEmpty else {
                throw StrataError(
                    .migrationRefused,
                    "the step \(step.summary) is refused, and the store is unchanged: a SQLite store cannot hold model \(SchemaVersions.label(step.destination)): \(problems.joined(separator: "; "))",
                    file: url.path)
            }
        }
        let access = try FileAccess(url, readOnly: false)
        guard access.canWrite else { throw access.readOnlyError }
        let database = try access.open()
        _ = try StoreFile.readMetadata(database)
        try SQLiteStore.configure(database)
        var alreadyCurrent = false
        try FileChange.run(on: database) { (database) throws(StrataError) -> FileChange? in
            let metadata = try StoreFile.readMetadata(database)
            let hash = metadata.modelVersionHash
            if hash == plan.destination.versionHash {
                alreadyCurrent = true
                return nil
            }
            guard hash == plan.storeSchema.versionHash else {
                throw StrataError(
                    .incompatibleModel,
                    "the store's model changed since the migration was planned (it has hash \(hash.prefix(12))…, the plan starts from \(SchemaVersions.label(plan.storeSchema))); another process may have migrated it. Plan the migration again",
                    file: url.path)
            }
            var change = try StoreLayoutUpgrade.plan(database, layout: StoreLayout(schema: plan.storeSchema, configurationName: nil))
            for (index, step) in plan.steps.enumerated() {
                change.steps.append(FileChange.Step(failure: nil) { (database) throws(StrataError) in
                    try Self.migrate(step, number: index + 1, of: plan.steps.count, database, url: url, metadata: metadata, progress: progress)
                })
            }
            let migrated = StoreMetadata(newStoreOf: .sqlite, schema: plan.destination, identifier: metadata.storeIdentifier)
            let keys: Set<String> = [
                StoreMetadata.Key.modelName, StoreMetadata.Key.modelVersionHash, StoreMetadata.Key.entityVersionHashes,
                StoreMetadata.Key.schema, StoreMetadata.Key.layoutVersion,
            ]
            change.metadata += StoreFile.rows(migrated).filter { keys.contains($0.0) }.map { (key: $0.0, value: $0.1) }
            return change
        }
        return alreadyCurrent ? MigrationReport(wasAlreadyCurrent: true) : MigrationReport(plan: plan)
    }

    /// One step: willMigrate, the SQL, didMigrate, the checks.
    private static func migrate(
        _ step: MigrationStep, number: Int, of count: Int, _ database: Database, url: URL, metadata: StoreMetadata, progress: MigrationProgress?
    ) throws(StrataError) {
        let report = { (activity: String, completed: Int?) -> Void in
            progress?(MigrationProgressEvent(step: number, stepCount: count, activity: activity, completed: completed))
        }
        report("migrating \(step.summary)", nil)
        /// A part of the custom stage, through a store over the migration's connection.
        func stage(_ part: MigrationStep.StagePart) throws(StrataError) {
            guard step.body(of: part) != nil else { return }
            report("running the custom stage's \(part.rawValue)", nil)
            let store = try SQLiteStore(migrating: database, url: url, schema: step.schema(of: part), metadata: metadata)
            try step.runStage(part, on: store)
        }
        try stage(.willMigrate)
        var migration = SQLiteMigration(step: step, database: database, progress: report)
        try migration.migrate()
        try stage(.didMigrate)
        report("checking the migrated data", nil)
        try migration.check()
    }
}
