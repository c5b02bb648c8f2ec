public import Foundation
internal import Logging

/// A whole stack in one object: the model, a coordinator with its stores, a main-actor
/// `viewContext`, and background contexts.
///
/// ```swift
/// let container = try PersistentContainer(configurationFile: URL(fileURLWithPath: "strata.json"))
/// try await container.performBackgroundTask { context in
///     let todo = try context.insertObject(entityName: "Todo")
///     todo["title"] = "Buy milk"
///     try context.save()
/// }
/// ```
/// The container is `Sendable`; each context it makes belongs to the task that uses it.
public final class PersistentContainer: Sendable {
    public let coordinator: PersistentStoreCoordinator
    public var schema: Schema { coordinator.schema }
    /// The stores, as they were described.
    public let storeDescriptions: [StoreDescription]

    @MainActor private var mainContext: ManagedObjectContext?

    /// Builds a stack and opens its stores.
    /// - Parameters:
    ///   - schema: the model.
    ///   - stores: where objects are kept; one in-memory store by default.
    ///   - storeTypes: the store types that may be opened (store modules provide factories).
    ///   - classes: `ManagedObject` subclasses bound to entities, checked against the model
    ///     (`classMismatch` names every property that does not fit).
    ///   - onModelMismatch: what to do with a store written with another model: refuse it
    ///     (`incompatibleModel`, the default), or, in development only, erase it.
    public convenience init(
        schema: Schema, stores: [StoreDescription] = [.inMemory()],
        storeTypes: StoreTypeRegistry = StoreTypeRegistry(), classes: [ManagedObject.Type] = [],
        onModelMismatch: ModelMismatchPolicy = .refuse
    ) throws(StrataError) {
        try self.init(
            schema: schema, versions: nil, stages: [], stores: stores, storeTypes: storeTypes, classes: classes,
            onModelMismatch: onModelMismatch, progress: nil)
    }

    /// Builds a stack on the current version of a versioned model, migrating every store written
    /// with an earlier version when it is opened — Core Data's
    /// `shouldMigrateStoreAutomatically` with `shouldInferMappingModelAutomatically`.
    ///
    /// A store's version is found by the model hash stored in it; the migration walks from there
    /// through every later version (``MigrationPlan``), inferred, or with the custom stage given
    /// for a pair of versions. A store whose model is none of the versions is migrated in one
    /// inferred step from the model it keeps, unless that would remove entities or properties
    /// (the store may come from a newer version of the app): then opening fails and the store is
    /// untouched. A migration that is refused or fails leaves the store as it was and throws.
    /// - Parameters:
    ///   - versions: every version of the model, oldest first; the last is the one the stack uses.
    ///   - stages: custom stages between adjacent versions.
    ///   - stores: where objects are kept; one in-memory store by default.
    ///   - storeTypes: the store types that may be opened (store modules provide factories).
    ///   - classes: `ManagedObject` subclasses bound to entities.
    ///   - onModelMismatch: `.migrate` (the default), or `.refuse`/`.eraseStore`.
    ///   - progress: receives the migrations' progress.
    public convenience init(
        versions: SchemaVersions, stages: [MigrationStage] = [], stores: [StoreDescription] = [.inMemory()],
        storeTypes: StoreTypeRegistry = StoreTypeRegistry(), classes: [ManagedObject.Type] = [],
        onModelMismatch: ModelMismatchPolicy = .migrate, progress: MigrationProgress? = nil
    ) throws(StrataError) {
        try self.init(
            schema: versions.current, versions: versions, stages: stages, stores: stores, storeTypes: storeTypes,
            classes: classes, onModelMismatch: onModelMismatch, progress: progress)
    }

    private init(
        schema: Schema, versions: SchemaVersions?, stages: [MigrationStage], stores: [StoreDescription],
        storeTypes: StoreTypeRegistry, classes: [ManagedObject.Type], onModelMismatch: ModelMismatchPolicy,
        progress: MigrationProgress?
    ) throws(StrataError) {
        try PersistentStoreCoordinator.checkClasses(classes, against: schema)
        coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: storeTypes, classes: classes)
        storeDescriptions = stores
        for description in stores {
            if let url = description.url, url.isFileURL {
                let directory = url.deletingLastPathComponent()
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw StrataError(.storeIO, "cannot create the folder '\(directory.path)' for store '\(url.path)': \(error.localizedDescription)")
                }
            }
            // Opening checks the store's model before it writes anything; only a store written
            // with another model costs more than the open.
            do {
                try coordinator.addStore(description)
            } catch where error.code == .incompatibleModel && onModelMismatch != .refuse && description.url != nil {
                try Self.resolveMismatch(
                    description, at: description.url!, versions: versions ?? SchemaVersions(schema: schema), stages: stages,
                    storeTypes: storeTypes, policy: onModelMismatch, progress: progress, logger: coordinator.logger)
                try coordinator.addStore(description)
            }
        }
    }

    /// Builds a stack from a configuration file (`strata.json`), so one app runs on any backend
    /// without a code change. `STRATA_STORE` in `environment` overrides the file's stores; see
    /// ``StrataConfiguration``. When the file lists earlier model `versions`, stores written with
    /// them are migrated at open, with `stages` for the pairs that need code.
    public convenience init(
        configurationFile url: URL, storeTypes: StoreTypeRegistry = StoreTypeRegistry(),
        classes: [ManagedObject.Type] = [], stages: [MigrationStage] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment, progress: MigrationProgress? = nil
    ) throws(StrataError) {
        let configuration = try StrataConfiguration(contentsOf: url, environment: environment)
        var schemas: [Schema] = []
        for schemaURL in configuration.versionURLs + [configuration.schemaURL] {
            do {
                schemas.append(try Schema(contentsOf: schemaURL))
            } catch {
                throw StrataError(.invalidConfiguration, "\(url.relativePath): the schema '\(schemaURL.relativePath)' does not load:\n\(error)")
            }
        }
        let policy: ModelMismatchPolicy = configuration.erasesStoreOnModelMismatch ? .eraseStore : (schemas.count > 1 || !stages.isEmpty ? .migrate : .refuse)
        try self.init(
            schema: schemas[schemas.count - 1], versions: try SchemaVersions(schemas), stages: stages, stores: configuration.stores,
            storeTypes: storeTypes, classes: classes, onModelMismatch: policy, progress: progress)
    }

    /// Migrates or erases the store file at `url`, which opening found written with another model.
    private static func resolveMismatch(
        _ description: StoreDescription, at url: URL, versions: SchemaVersions, stages: [MigrationStage],
        storeTypes: StoreTypeRegistry, policy: ModelMismatchPolicy, progress: MigrationProgress?, logger: Logger
    ) throws(StrataError) {
        switch policy {
        case .refuse:
            return
        case .migrate:
            let report = try StoreMigrator(storeTypes: storeTypes).migrateStore(
                at: url, type: description.type, versions: versions, stages: stages, options: description.options, progress: progress)
            logger.info("migrated store", metadata: ["url": "\(url.path)", "steps": "\(report.steps.map(\.summary))"])
        case .eraseStore:
            let metadata = try? storeTypes.factory(for: description.type).metadata(at: url)
            logger.warning("erasing a store written with another model (eraseStore, a development option)", metadata: ["url": "\(url.path)", "storeModel": "\(metadata.map { "\($0.modelName) \($0.modelVersionHash.prefix(12))" } ?? "unreadable")"])
            do {
                try storeTypes.factory(for: description.type).destroyStore(at: url)
            } catch {
                throw StrataError(.storeIO, "cannot erase the store written with another model: \(error.message)", file: error.file, cause: error.cause)
            }
        }
    }

    /// The context of the main actor, for UI; made on first use.
    @MainActor public var viewContext: ManagedObjectContext {
        if let mainContext { return mainContext }
        let context = ManagedObjectContext(coordinator: coordinator)
        context.name = "viewContext"
        context.automaticallyMergesChangesFromParent = true
        mainContext = context
        return context
    }

    /// A new context for the task that calls this; it belongs to that task.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(coordinator: coordinator)
        context.name = "background"
        return context
    }

    /// Runs `body` with a new context on a background task and returns its result.
    public func performBackgroundTask<T: Sendable>(
        _ body: @escaping @Sendable (ManagedObjectContext) throws -> T
    ) async throws -> T {
        let coordinator = self.coordinator
        return try await Task.detached {
            let context = ManagedObjectContext(coordinator: coordinator)
            context.name = "background task"
            return try body(context)
        }.value
    }
}

/// What a container does with a store written with another model than its own.
public enum ModelMismatchPolicy: Sendable, Hashable {
    /// Opening fails with `incompatibleModel`, naming the entities that differ; the store is
    /// untouched.
    case refuse
    /// The store is migrated to the container's model (given its versions) and then opened.
    case migrate
    /// **For development only.** The store file is deleted (with its `-wal`, `-shm` and
    /// `-journal`) and a new, empty one is created: every object in it is lost. Like GRDB's
    /// `eraseDatabaseOnSchemaChange`, for the days when a model changes by the hour; never
    /// ship it. Other processes must not have the store open.
    case eraseStore
}
