/// One step of a migration: from one model version to the next, inferred, or custom when a
/// ``MigrationStage`` was given for the pair.
///
/// A store type carries a step out its own way (``PersistentStoreFactory/migrateStore(at:plan:options:progress:)``):
/// 1. ``willMigrate`` (custom steps) through ``runStage(_:on:)`` with a store opened on the source model;
/// 2. the changes of ``diff``: matched entities and properties keep their values (renamed ones
///    under their new names), added ones get their default value or nil, removed ones are
///    dropped, numbers are widened; a change the diff marks not inferable is carried out as the
///    removal of the old property and the addition of the new one;
/// 3. ``didMigrate`` (custom steps) with a store on the destination model;
/// 4. the checks the data must pass (`checkRequirements`-style rules each store applies:
///    required values present, to-one relationships with at most one member, uniqueness).
public struct MigrationStep: Sendable {
    public let source: Schema
    public let destination: Schema
    public let diff: SchemaDiff
    public let willMigrate: MigrationStage.Body?
    public let didMigrate: MigrationStage.Body?
    /// The custom stage's value transformers.
    public let transformers: [String: any AttributeTransformer]

    public init(source: Schema, destination: Schema, stage: MigrationStage? = nil) {
        self.source = source
        self.destination = destination
        diff = SchemaDiff(from: source, to: destination)
        willMigrate = stage?.willMigrate
        didMigrate = stage?.didMigrate
        transformers = stage?.transformers ?? [:]
    }

    /// Whether app code runs in this step.
    public var isCustom: Bool { willMigrate != nil || didMigrate != nil }

    /// `Moody 1 (…) → Moody 2 (…)`.
    public var summary: String {
        "\(SchemaVersions.label(source)) → \(SchemaVersions.label(destination))\(isCustom ? " (custom stage)" : "")"
    }

    /// The two closures of a custom stage.
    public enum StagePart: String, Sendable {
        /// Runs on the source model, before the step's inferred changes.
        case willMigrate
        /// Runs on the destination model, after them.
        case didMigrate
    }

    /// The closure of a part of the custom stage; nil when the step has none.
    public func body(of part: StagePart) -> MigrationStage.Body? {
        part == .willMigrate ? willMigrate : didMigrate
    }

    /// The model a part of the stage sees the store in: the source for ``willMigrate``, the
    /// destination for ``didMigrate``.
    public func schema(of part: StagePart) -> Schema {
        part == .willMigrate ? source : destination
    }

    /// Runs a part of the custom stage with a new context on a coordinator whose only store is
    /// `store` (opened on ``schema(of:)``), then saves what the closure left unsaved; nothing
    /// when the step has no such closure.
    /// - Throws: the closure's error as `migrationFailed` (a ``StrataError`` it throws keeps its
    ///   code and message, with the step named), or the save's error.
    public func runStage(_ part: StagePart, on store: any PersistentStore) throws(StrataError) {
        guard let body = body(of: part) else { return }
        let schema = schema(of: part)
        let coordinator = PersistentStoreCoordinator(schema: schema)
        coordinator.attachOpenedStore(store)
        for (name, transformer) in transformers { coordinator.attributeTransformers.register(transformer, name: name) }
        let context = ManagedObjectContext(coordinator: coordinator)
        context.name = "migration"
        do {
            try body(context)
            if context.hasChanges { try context.save() }
        } catch let error as StrataError {
            var located = error
            located.message = "the custom stage \(summary) failed: \(error.message)"
            throw located
        } catch {
            throw StrataError(.migrationFailed, "the custom stage \(summary) failed: \(error)")
        }
    }

    /// How many objects a refusal names before "and N more".
    package static let listedObjects = 20

    /// `Mood 3, Mood 7 and 12 more`: the objects a refusal names (at most ``listedObjects`` of
    /// `total`), the same in every store's refusals.
    package static func objectList(_ shown: [String], total: Int) -> String {
        let listed = shown.prefix(listedObjects).joined(separator: ", ")
        return total > listedObjects ? "\(listed) and \(total - listedObjects) more" : listed
    }
}
