public import Foundation

/// Migrates store files of any registered type: plans the steps from the model a store was
/// written with to the current version, and has the store's factory carry them out (the role of
/// Core Data's `NSMigrationManager` with inferred mapping models).
///
/// ```swift
/// let migrator = StoreMigrator(storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
/// let versions = try SchemaVersions(contentsOf: [v1, v2, v3])
/// let report = try migrator.migrateStore(at: storeURL, versions: versions)
/// ```
public struct StoreMigrator: Sendable {
    public let storeTypes: StoreTypeRegistry

    public init(storeTypes: StoreTypeRegistry) {
        self.storeTypes = storeTypes
    }

    /// The steps that would migrate the store at `url` to `versions.current`; nothing is
    /// changed. An empty plan means the store is current.
    /// - Parameter url: the store file.
    /// - Parameter versions: every version of the model, oldest first.
    /// - Parameter stages: custom stages between adjacent versions.
    /// - Parameter unlisted: what to do when the store's model is none of `versions`.
    /// - Parameter type: the store's type; nil tells it from the file.
    /// - Throws: what reading the store's metadata throws, or ``MigrationPlan``'s refusals.
    public func plan(
        forStoreAt url: URL, type: StoreType? = nil, versions: SchemaVersions, stages: [MigrationStage] = [],
        unlisted: MigrationPlan.UnlistedModel = .inferToCurrent
    ) throws(StrataError) -> MigrationPlan {
        let factory = try self.factory(type, url)
        let metadata = try factory.metadata(at: url)
        var stored: Schema
        do {
            stored = try metadata.schema()
        } catch {
            var located = error
            located.file = url.path
            throw located
        }
        do {
            return try MigrationPlan(storeSchema: stored, versions: versions, stages: stages, unlisted: unlisted)
        } catch {
            var located = error
            located.file = located.file ?? url.path
            throw located
        }
    }

    private func factory(_ type: StoreType?, _ url: URL) throws(StrataError) -> any PersistentStoreFactory {
        if let type { return try storeTypes.factory(for: type) }
        return try storeTypes.factory(for: storeTypes.type(of: url))
    }

    /// Carries out a plan made by ``plan(forStoreAt:type:versions:stages:unlisted:)``.
    public func migrateStore(
        at url: URL, type: StoreType? = nil, plan: MigrationPlan, options: [String: String] = [:], progress: MigrationProgress? = nil
    ) throws(StrataError) -> MigrationReport {
        guard !plan.isEmpty else { return MigrationReport(wasAlreadyCurrent: true) }
        let factory = try self.factory(type, url)
        return try factory.migrateStore(at: url, plan: plan, options: options, progress: progress)
    }

    /// Plans and migrates the store at `url` to `versions.current`. When another process
    /// migrates the store between the planning and the migration, the plan is made again.
    public func migrateStore(
        at url: URL, type: StoreType? = nil, versions: SchemaVersions, stages: [MigrationStage] = [],
        unlisted: MigrationPlan.UnlistedModel = .inferToCurrent, options: [String: String] = [:], progress: MigrationProgress? = nil
    ) throws(StrataError) -> MigrationReport {
        var attempts = 0
        while true {
            let plan = try plan(forStoreAt: url, type: type, versions: versions, stages: stages, unlisted: unlisted)
            do {
                return try migrateStore(at: url, type: type, plan: plan, options: options, progress: progress)
            } catch where error.code == .incompatibleModel && attempts < 2 {
                attempts += 1
            }
        }
    }
}
