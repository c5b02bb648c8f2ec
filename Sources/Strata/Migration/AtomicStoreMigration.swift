public import Foundation

/// Migrates atomic stores (XML, binary, in memory): every record is transformed in memory, and
/// a file store is written once, through the same atomic replacement as a save (a temporary
/// file, fsync, rename): a crash leaves the old file or the migrated one.
public enum AtomicStoreMigration {
    /// Carries `contents` through every step of `plan`: custom stages run with contexts on
    /// stores in memory holding the records, inferred changes transform the records
    /// (`RecordMigration`), and each step ends checking what the destination model requires.
    /// - Returns: the migrated contents, with the destination model's metadata (store identifier
    ///   and custom metadata kept).
    /// - Throws: `incompatibleModel` when `contents` were not written with the plan's store
    ///   model; `migrationRefused` when the data does not allow a step; a custom stage's error.
    ///   `contents` are never changed.
    public static func migrate(_ contents: AtomicStoreContents, plan: MigrationPlan, type: StoreType, progress: MigrationProgress? = nil) throws(StrataError) -> AtomicStoreContents {
        guard !plan.isEmpty else { return contents }
        guard contents.metadata.modelVersionHash == plan.storeSchema.versionHash else {
            throw StrataError(
                .incompatibleModel,
                "the store was written with model '\(contents.metadata.modelName)' (hash \(contents.metadata.modelVersionHash.prefix(12))…), not with \(SchemaVersions.label(plan.storeSchema)), where the migration plan starts. Plan the migration from the store's own model (its metadata's schema)")
        }
        var current = contents
        for (index, step) in plan.steps.enumerated() {
            let report = { (activity: String) in
                progress?(MigrationProgressEvent(step: index + 1, stepCount: plan.steps.count, activity: activity, completed: nil, total: current.recordCount))
            }
            /// A part of the custom stage, with a context on a store in memory holding the records.
            func stage(_ part: MigrationStep.StagePart) throws(StrataError) {
                guard step.body(of: part) != nil else { return }
                report("running the custom stage's \(part.rawValue)")
                let store = AtomicStore(inMemory: current, type: type, schema: step.schema(of: part))
                try step.runStage(part, on: store)
                current = store.snapshot
            }
            try stage(.willMigrate)
            report("transforming \(current.recordCount) records")
            current = try RecordMigration.apply(step, to: current)
            try stage(.didMigrate)
            report("checking the migrated records")
            try RecordMigration.checkRequirements(step, current)
        }
        return current
    }

    /// Migrates the store file at `url` in place: under the store's writer lock (``FileLock``),
    /// reads it, checks its model, migrates the records, and replaces the file atomically.
    static func migrateFile(at url: URL, format: any AtomicStoreFormat, plan: MigrationPlan, progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        let fileURL = try FileSync.resolvingSymlinks(url)
        return try FileLock.withLock(of: fileURL) { () throws(StrataError) -> MigrationReport in
            AtomicStore.removeStaleTemporaryFiles(of: fileURL)
            let (contents, _) = try AtomicStore.load(fileURL, format: format)
            let hash = contents.metadata.modelVersionHash
            if hash == plan.destination.versionHash { return MigrationReport(wasAlreadyCurrent: true) }
            guard hash == plan.storeSchema.versionHash else {
                throw StrataError(
                    .incompatibleModel,
                    "the store's model changed since the migration was planned (it has hash \(hash.prefix(12))…, the plan starts from \(SchemaVersions.label(plan.storeSchema))); another process may have migrated it. Plan the migration again",
                    file: url.path)
            }
            let migrated: AtomicStoreContents
            do throws(StrataError) {
                migrated = try migrate(contents, plan: plan, type: format.type, progress: progress)
            } catch {
                var located = error
                located.file = located.file ?? url.path
                throw located
            }
            _ = try AtomicStore.writeAtomically(migrated, format: format, to: fileURL, exclusive: false)
            return MigrationReport(plan: plan)
        }
    }
}

extension AtomicStoreFactory {
    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        try AtomicStoreMigration.migrateFile(at: url, format: format, plan: plan, progress: progress)
    }
}
