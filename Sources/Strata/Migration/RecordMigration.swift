/// The inferred changes of a migration step, applied to records in memory (the atomic stores'
/// way to migrate).
///
/// Every record of the source model becomes a record of the destination model, by the
/// matching of the step's ``SchemaDiff``:
/// - an object keeps its primary key and values, under its entity's and properties' new names
///   (object IDs carry the entity name, so every reference to a renamed entity changes);
///   objects of removed entities are dropped with every reference to them;
/// - attributes: added ones (and ones whose change is not inferable, in a custom step) take the
///   destination's default value or nil; int16 → int32 → int64 keep their values, float →
///   double converts them; a required attribute's nil becomes its default;
/// - relationships: to-one ↔ to-many (a to-one from a to-many needs at most one member),
///   unordered → ordered (members by primary key), and both sides of every inverse pair end
///   consistent (a new inverse is filled from the side that exists);
/// - hierarchies: primary keys are unique per inheritance hierarchy; when a step merges two
///   (a parent added) and keys collide, the merged-in objects that collide get new keys and
///   every reference follows (see `RecordMigration+Keys.swift`);
/// - metadata: the destination model's name, hashes and schema; store identifier, store type
///   and custom metadata kept.
///
/// ``checkRequirements(_:_:)`` then checks what the destination model requires of the data,
/// after any `didMigrate` had its chance to fill values.
struct RecordMigration {
    let step: MigrationStep
    let contents: AtomicStoreContents
    var source: Schema { step.source }
    var destination: Schema { step.destination }
    /// Source entity name → destination entity name, for every matched entity.
    let entityMap: [String: String]
    /// The properties whose change the diff says cannot be inferred (`Entity.property`, by
    /// destination names): a custom step carries them out as removed and added.
    let uninferablePaths: [String: SchemaChange]
    /// Source concrete entity → (old key → new key), for objects renumbered by a hierarchy merge.
    var renumbered: [String: [Int64: Int64]] = [:]
    /// Destination concrete entity name → the names of it and its descendants (the entities a
    /// relationship to it may hold).
    var families: [String: Set<String>] = [:]

    private init(step: MigrationStep, contents: AtomicStoreContents) {
        self.step = step
        self.contents = contents
        var entityMap: [String: String] = [:]
        for (destinationName, sourceName) in step.diff.entityMatches { entityMap[sourceName] = destinationName }
        self.entityMap = entityMap
        uninferablePaths = Dictionary(
            step.diff.uninferableChanges.filter { $0.property != nil }.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in step.destination.entities {
            families[entity.name] = Set(step.destination.entityAndDescendants(of: entity.name).map(\.name))
        }
    }

    /// Transforms every record of `contents` from the step's source model to its destination
    /// model, and gives the contents the destination model's metadata.
    /// - Throws: `migrationRefused` (nothing is changed) when the data does not allow the
    ///   step: a to-many becoming to-one, or a to-one gaining an inverse, while an object holds
    ///   more than one member; objects of an entity that becomes abstract; or, in a step without
    ///   a custom stage, a change of a property that cannot be carried (the plan refuses those
    ///   first, from the diff).
    static func apply(_ step: MigrationStep, to contents: AtomicStoreContents) throws(StrataError) -> AtomicStoreContents {
        var migration = RecordMigration(step: step, contents: contents)
        try migration.checkEntities()
        let plans = try migration.recordPlans()
        migration.planKeys()
        var records = try migration.transformRecords(plans)
        try migration.reconcileInverses(&records)
        var metadata = StoreMetadata(newStoreOf: contents.metadata.storeType, schema: step.destination, identifier: contents.metadata.storeIdentifier)
        metadata.custom = contents.metadata.custom
        return AtomicStoreContents(metadata: metadata, records: records, keySequences: migration.keySequences(of: records))
    }

    /// Checks that the migrated records meet what the destination model requires of them:
    /// a value for every required attribute, a destination for every required to-one
    /// relationship (Core Data validates the migrated objects too), and every uniqueness
    /// constraint.
    /// - Throws: `migrationRefused` naming the objects that stand in the way.
    static func checkRequirements(_ step: MigrationStep, _ contents: AtomicStoreContents) throws(StrataError) {
        let problems = requiredValueProblems(step.destination, contents) + uniquenessProblems(step.destination, contents)
        guard !problems.isEmpty else { return }
        throw refusal(step, problems)
    }

    // MARK: - Entities

    /// Refuses objects of an entity that becomes abstract (they would have no entity).
    private func checkEntities() throws(StrataError) {
        var problems: [String] = []
        for (sourceName, records) in contents.records.sorted(by: { $0.key < $1.key }) where !records.isEmpty {
            guard let destinationName = entityMap[sourceName], destination.entity(named: destinationName)?.isAbstract == true else { continue }
            problems.append(
                "\(destinationName) becomes abstract, but the store holds \(Self.count(records.count, "object")) of it: \(Self.list(records.keys.sorted(), Self.name)) (delete them, or move their data to a subentity, in a custom stage's willMigrate)")
        }
        if !problems.isEmpty { throw Self.refusal(step, problems) }
    }

    /// The destination ID of a source object; nil when its entity was removed.
    func map(_ id: ObjectID) -> ObjectID? {
        guard let entityName = entityMap[id.entityName], let key = id.primaryKey else { return nil }
        let newKey = renumbered.isEmpty ? key : renumbered[id.entityName]?[key] ?? key
        if entityName == id.entityName && newKey == key { return id }
        return ObjectID(entityName: entityName, storeIdentifier: id.storeIdentifier ?? contents.metadata.storeIdentifier, primaryKey: newKey)
    }

    // MARK: - Messages

    /// `Mood 3`: an object as a refusal names it.
    static func name(_ id: ObjectID) -> String {
        "\(id.entityName) \(id.primaryKey.map(String.init) ?? "(temporary)")"
    }

    /// At most 20 items, then "and N more".
    static func list<T>(_ items: [T], _ describe: (T) -> String) -> String {
        MigrationStep.objectList(items.prefix(MigrationStep.listedObjects).map(describe), total: items.count)
    }

    /// "1 object", "3 objects".
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// The refusal of a step, one line per problem.
    static func refusal(_ step: MigrationStep, _ problems: [String]) -> StrataError {
        StrataError(
            .migrationRefused,
            "the migration \(step.summary) is refused; the store is unchanged:\n  \(problems.joined(separator: "\n  "))")
    }
}
