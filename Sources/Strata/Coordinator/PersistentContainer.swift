public import Foundation

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
    ///   - stores: where objects are kept; one in-memory store by default.
    ///   - storeTypes: the store types that may be opened (store modules provide factories).
    ///   - classes: `ManagedObject` subclasses bound to entities.
    public init(
        schema: Schema, stores: [StoreDescription] = [.inMemory()],
        storeTypes: StoreTypeRegistry = StoreTypeRegistry(), classes: [ManagedObject.Type] = []
    ) throws(StrataError) {
        coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: storeTypes, classes: classes)
        storeDescriptions = stores
        for description in stores {
            if let url = description.url {
                let directory = url.deletingLastPathComponent()
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw StrataError(.storeIO, "cannot create the folder '\(directory.path)' for store '\(url.path)': \(error.localizedDescription)")
                }
            }
            try coordinator.addStore(description)
        }
    }

    /// Builds a stack from a configuration file (`strata.json`), so one app runs on any backend
    /// without a code change. `STRATA_STORE` in `environment` overrides the file's stores; see
    /// ``StrataConfiguration``.
    public convenience init(
        configurationFile url: URL, storeTypes: StoreTypeRegistry = StoreTypeRegistry(),
        classes: [ManagedObject.Type] = [], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StrataError) {
        let configuration = try StrataConfiguration(contentsOf: url, environment: environment)
        let schema: Schema
        do {
            schema = try Schema(contentsOf: configuration.schemaURL)
        } catch {
            throw StrataError(.invalidConfiguration, "\(url.relativePath): the schema '\(configuration.schemaURL.relativePath)' does not load:\n\(error)")
        }
        try self.init(schema: schema, stores: configuration.stores, storeTypes: storeTypes, classes: classes)
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
