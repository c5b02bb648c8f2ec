public import Foundation
public import Logging
internal import Synchronization

/// Where a coordinator finds a store: its type, its file, the configuration it holds, options.
public struct StoreDescription: Sendable, Hashable {
    public var type: StoreType
    /// The file; nil for an in-memory store.
    public var url: URL?
    /// A configuration of the model (a subset of its entities); nil for every entity.
    public var configurationName: String?
    public var options: [String: String]

    public init(type: StoreType, url: URL? = nil, configurationName: String? = nil, options: [String: String] = [:]) {
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
    }

    public static func inMemory(configurationName: String? = nil) -> StoreDescription {
        StoreDescription(type: .inMemory, configurationName: configurationName)
    }
}

/// What one save changed, as IDs and new records: `Sendable`, for other contexts to merge.
public struct SaveNotification: Sendable {
    public var inserted: Set<ObjectID>
    public var updated: Set<ObjectID>
    public var deleted: Set<ObjectID>
    /// The keys each updated object changed.
    public var changedKeys: [ObjectID: Set<String>]
    /// The saved state of every inserted and updated object.
    public var records: [ObjectID: StoreRecord]
    /// The context that saved.
    public var sourceContext: UUID?
    /// Entities some of whose objects another process changed without listing them (see
    /// ``StoreRemoteChanges/unlistedEntities``): what shows them is read again.
    public var unlistedEntities: Set<String> = []
}

/// The center of a stack: owns the model and the stores, routes each entity to its store, keeps
/// a cache of saved rows, hands out permanent IDs, and broadcasts each save.
///
/// A coordinator is `Sendable`: share one between every context and task.
public final class PersistentStoreCoordinator: Sendable {
    public let schema: Schema
    public let storeTypes: StoreTypeRegistry
    /// Transformers for `transformable` attributes, by the names the model uses.
    public let attributeTransformers = AttributeTransformerRegistry()
    public let logger: Logger

    private struct State {
        var stores: [any PersistentStore] = []
        var classes: [String: ManagedObject.Type] = [:]
        var observers: [UUID: @Sendable (SaveNotification) -> Void] = [:]
    }

    private let state = Locked(State())
    private let rowCache: Locked<RowCache>
    /// The entities a uniqueness constraint covers (declared on them or an ancestor): a save
    /// that changes none of them has nothing to check against stored data.
    private let constrainedEntities: Set<String>
    /// The app's validation rules by the entity they were added for
    /// (``addValidationRule(forEntity:key:_:)``).
    let validationRules = Locked<[String: [(key: String, rule: ValidationRule)]]>([:])

    /// - Parameters:
    ///   - schema: the model every store and context of this coordinator uses.
    ///   - storeTypes: the store types this coordinator can open (the in-memory store always).
    ///   - classes: `ManagedObject` subclasses, each bound to the entity its `entityName` names.
    ///   - rowCacheCapacity: how many saved rows the row cache that every context shares keeps
    ///     before it drops the least recently used half: between `rowCacheCapacity` and twice
    ///     as many rows stay in memory.
    ///   - logger: where the coordinator logs (stores added, saves), at `.debug` and above.
    public init(
        schema: Schema, storeTypes: StoreTypeRegistry = StoreTypeRegistry(), classes: [ManagedObject.Type] = [],
        rowCacheCapacity: Int = 100_000, logger: Logger = Logger(label: "strata")
    ) {
        self.schema = schema
        self.storeTypes = storeTypes
        self.rowCache = Locked(RowCache(capacity: max(1, rowCacheCapacity)))
        self.logger = logger
        self.constrainedEntities = Set(schema.entities.filter { !$0.uniquenessConstraints.isEmpty }.flatMap { schema.entityAndDescendants(of: $0.name).map(\.name) })
        for type in classes { register(type) }
    }

    /// Binds a `ManagedObject` subclass to the entity its `entityName` names.
    ///
    /// - Precondition: the class fits the model (see ``checkClasses(_:against:)``, which throws
    ///   instead; ``PersistentContainer`` checks its classes with it).
    public func register(_ type: ManagedObject.Type) {
        let name = type.entityName
        let problems = ClassCheck.problems(of: type, in: schema)
        precondition(problems.isEmpty, problems.joined(separator: "\n"))
        state.withLock { $0.classes[name] = type }
        classGeneration.add(1, ordering: .releasing)
    }

    /// Checks `ManagedObject` subclasses against a model: each is bound to an entity of it, and
    /// each `@Attribute`, `@Relationship` and `@ToMany` property names a property of that entity
    /// with a Swift type that holds its values (optional where the model lets it be nil).
    ///
    /// ```swift
    /// try PersistentStoreCoordinator.checkClasses([Book.self], against: schema)
    /// // throws: a class does not fit the model 'Library':
    /// //   Book.year (@Attribute("year") String?): String cannot hold its values; the model 'Library' defines Book.year as an int16 attribute, optional
    /// ```
    /// - Throws: `classMismatch`, with one line per problem naming the class, the property and
    ///   the model's definition of it.
    public static func checkClasses(_ classes: [ManagedObject.Type], against schema: Schema) throws(StrataError) {
        let problems = classes.flatMap { ClassCheck.problems(of: $0, in: schema) }
        guard !problems.isEmpty else { return }
        let count = problems.count == 1 ? "a class does" : "classes do"
        throw StrataError(.classMismatch, "\(count) not fit the model '\(schema.name)':\n  " + problems.joined(separator: "\n  "))
    }

    /// Counts registrations of classes, so that contexts know when the classes they looked up
    /// may have changed.
    private let classGeneration = Atomic<Int>(0)

    /// The number of classes registered so far (see ``register(_:)``).
    var registeredClassGeneration: Int { classGeneration.load(ordering: .acquiring) }

    func objectClass(for entityName: String) -> ManagedObject.Type {
        state.withLock { $0.classes[entityName] } ?? ManagedObject.self
    }

    func entity(named name: String) throws(StrataError) -> EntityDescription {
        guard let entity = schema.entity(named: name) else { throw unknownEntity(name) }
        return entity
    }

    /// The error for an entity name the model does not have.
    func unknownEntity(_ name: String) -> StrataError {
        StrataError(.unknownEntity, "the model '\(schema.name)' has no entity '\(Echo.value(name))'\(Suggestion.didYouMean(name, in: schema.entities.map(\.name)))")
    }

    // MARK: - Stores

    public var stores: [any PersistentStore] { state.withLock { $0.stores } }

    /// Opens a store and adds it. A store written with another model is refused with an error
    /// naming the entities that differ; a store that cannot honour the model, with the reasons.
    @discardableResult
    public func addStore(_ description: StoreDescription) throws(StrataError) -> any PersistentStore {
        if let name = description.configurationName, schema.configuration(named: name) == nil {
            throw StrataError(.invalidConfiguration, "the model has no configuration '\(name)'\(Suggestion.didYouMean(name, in: schema.configurations.map(\.name)))")
        }
        let factory = try storeTypes.factory(for: description.type)
        if let url = description.url { try FileIdentity.requireRegularFile(url) }
        let unsupported = factory.unsupportedFeatures(of: schema, configurationName: description.configurationName)
        guard unsupported.isEmpty else {
            throw StrataError(.unsupportedModel, "a \(description.type) store cannot hold model '\(schema.name)': \(unsupported.joined(separator: "; "))")
        }
        let store = try factory.open(url: description.url, schema: schema, configurationName: description.configurationName, options: description.options)
        // Object IDs name their store by its identifier, so two stores with one identifier (one
        // file added twice, say for two configurations) could not be told apart — and their
        // saves, nested for all-or-nothing, would wait on each other's write lock.
        let added = state.withLock { state -> (any PersistentStore)? in
            if let twin = state.stores.first(where: { $0.storeIdentifier == store.storeIdentifier }) { return twin }
            state.stores.append(store)
            return nil
        }
        if let twin = added {
            throw StrataError(
                .invalidConfiguration,
                "the coordinator already has this store (UUID \(store.storeIdentifier)\(twin.url.map { ", '\($0.path)'" } ?? "")); a store is added once: give each configuration its own file, or add the file once without a configuration")
        }
        logger.debug("added store", metadata: ["type": "\(description.type)", "url": "\(description.url?.path ?? "-")"])
        return store
    }

    /// Adds a store opened elsewhere on this coordinator's model (a migration's custom stage
    /// runs a context on the store it is migrating).
    package func attachOpenedStore(_ store: any PersistentStore) {
        state.withLock { $0.stores.append(store) }
    }

    public func removeStore(_ store: any PersistentStore) {
        state.withLock { $0.stores.removeAll { $0 === store } }
        rowCache.withLock { $0.removeAll() }
    }

    /// The store that holds `entityName`: the first whose configuration includes the entity
    /// or one of its ancestors (a store without configuration holds every entity).
    public func store(forEntity entityName: String) throws(StrataError) -> any PersistentStore {
        let stores = self.stores
        let entity = try entity(named: entityName)
        var lineage: Set<String>?
        for store in stores {
            guard let configuration = store.configurationName else { return store }
            let names = lineage ?? Set([entityName] + entity.ancestorNames)
            lineage = names
            if let entities = schema.configuration(named: configuration)?.entityNames, entities.contains(where: names.contains) {
                return store
            }
        }
        throw StrataError(.noStore, stores.isEmpty
            ? "the coordinator has no store; add one with addStore(_:)"
            : "no store of the coordinator holds entity '\(entityName)'; add a store whose configuration includes it")
    }

    func store(withIdentifier identifier: String?) -> (any PersistentStore)? {
        stores.first { $0.storeIdentifier == identifier }
    }

    /// The metadata of a store file, without opening a stack. The type is found from the file
    /// when not given.
    public static func metadataForStore(at url: URL, type: StoreType? = nil, storeTypes: StoreTypeRegistry = StoreTypeRegistry()) throws(StrataError) -> StoreMetadata {
        guard !url.isFileURL || FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no store at '\(url.relativePath)'")
        }
        try FileIdentity.requireRegularFile(url)
        let storeType: StoreType
        if let type { storeType = type } else { storeType = try storeTypes.type(of: url) }
        return try storeTypes.factory(for: storeType).metadata(at: url)
    }

    /// Sets (or, with nil, removes) an app-defined metadata key of a store and writes it.
    public func setMetadata(_ value: String?, forKey key: String, in store: any PersistentStore) throws(StrataError) {
        var custom = store.metadata.custom
        custom[key] = value
        try store.setCustomMetadata(custom)
    }

    /// The ID for a URI from ``ObjectID/uriRepresentation``, if a store of this coordinator holds
    /// its entity and the store identifier matches.
    public func objectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard let id = ObjectID(uri: uri), schema.entity(named: id.entityName) != nil else { return nil }
        if id.isTemporary { return id }
        return store(withIdentifier: id.storeIdentifier) != nil ? id : nil
    }

    /// An ID for a primary key of an entity in the store that holds it.
    public func objectID(entityName: String, primaryKey: Int64) throws(StrataError) -> ObjectID {
        let store = try store(forEntity: entityName)
        return ObjectID(entityName: entityName, storeIdentifier: store.storeIdentifier, primaryKey: primaryKey)
    }

    // MARK: - Reading

    /// The saved state of an object: from the row cache, else from its store.
    public func record(for id: ObjectID) throws(StrataError) -> StoreRecord? {
        if let cached = rowCache.withLock({ $0[id] }) { return cached }
        guard !id.isTemporary, let store = store(withIdentifier: id.storeIdentifier) else { return nil }
        let record = try store.records(for: [id])[id]
        if let record { rowCache.withLock { $0.insert(record) } }
        return record
    }

    /// The saved state of several objects at once: cached rows, and one request per store for
    /// the rest, which are cached in turn (prefetching).
    func records(for ids: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        var result: [ObjectID: StoreRecord] = [:]
        var missing: [String: [ObjectID]] = [:]
        rowCache.withLock { cache in
            for id in ids where !id.isTemporary {
                if let cached = cache[id] { result[id] = cached } else { missing[id.storeIdentifier ?? "", default: []].append(id) }
            }
        }
        for (storeID, storeIDs) in missing {
            guard let store = store(withIdentifier: storeID) else { continue }
            let records = try store.records(for: storeIDs)
            rowCache.withLock { cache in for record in records.values { cache.insert(record) } }
            result.merge(records) { $1 }
        }
        return result
    }

    /// The members of a stored object's to-many relationship, from its store.
    func relatedObjectIDs(of id: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        guard !id.isTemporary, let store = store(withIdentifier: id.storeIdentifier) else { return [] }
        return try store.relatedObjectIDs(of: id, relationship: relationship)
    }

    func evictCachedRecord(_ id: ObjectID) {
        rowCache.withLock { $0.remove(id) }
    }

    /// Drops cached rows a batch request changed or deleted.
    func evictCachedRecords(_ ids: some Sequence<ObjectID>) {
        rowCache.withLock { cache in for id in ids { cache.remove(id) } }
    }

    /// Drops every cached row of these entities (a batch request that did not list its objects).
    func evictCachedRecords(ofEntities names: Set<String>) {
        rowCache.withLock { $0.removeAll { names.contains($0.entityName) } }
    }

    /// Records matching a request across the stores that hold its entities, in order.
    /// - Parameter caching: whether the records go to the row cache (a context that makes
    ///   objects of them keeps them in the objects instead); either way, rows the cache holds
    ///   are replaced by newer versions read (another process saved them since).
    func fetchRecords(_ request: StoreFetchRequest, caching: Bool = true) throws(StrataError) -> [StoreRecord] {
        let parts = try split(request)
        if parts.count == 1 {
            let records = try parts[0].store.fetch(parts[0].request)
            rowCache.withLock { caching ? $0.insert(contentsOf: records) : $0.refresh(records) }
            return records
        }
        // Entities spread over stores: fetch each whole, then order and window together.
        var records: [StoreRecord] = []
        for part in parts {
            var whole = part.request
            whole.fetchLimit = 0
            whole.fetchOffset = 0
            records += try part.store.fetch(whole)
        }
        rowCache.withLock { caching ? $0.insert(contentsOf: records) : $0.refresh(records) }
        let evaluator = recordEvaluator()
        records = try RecordSorter.sort(records, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
        return Array(AtomicStore.window(records, offset: request.fetchOffset, limit: request.fetchLimit))
    }

    /// IDs matching a request across stores, in order.
    func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] {
        let parts = try split(request)
        if parts.count == 1 { return try parts[0].store.fetchObjectIDs(parts[0].request) }
        return try fetchRecords(request).map(\.objectID)
    }

    func countRecords(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        let parts = try split(request)
        if parts.count == 1 { return try parts[0].store.count(parts[0].request) }
        var total = 0
        for part in parts {
            var whole = part.request
            whole.fetchLimit = 0
            whole.fetchOffset = 0
            total += try part.store.count(whole)
        }
        return AtomicStore.windowRange(count: total, offset: request.fetchOffset, limit: request.fetchLimit).count
    }

    private func split(_ request: StoreFetchRequest) throws(StrataError) -> [(store: any PersistentStore, request: StoreFetchRequest)] {
        var parts: [(store: any PersistentStore, request: StoreFetchRequest)] = []
        for entityName in request.entityNames {
            let store = try store(forEntity: entityName)
            if let index = parts.firstIndex(where: { $0.store === store }) {
                parts[index].request.entityNames.append(entityName)
            } else {
                var part = request
                part.entityNames = [entityName]
                parts.append((store, part))
            }
        }
        // No entity (an abstract one fetched without its subentities): nothing to ask, no match.
        return parts
    }

    /// An evaluator over records, loading related records through the row cache and stores.
    func recordEvaluator() -> PredicateEvaluator<StoreRecord> {
        AtomicStore.evaluator(schema) { [self] (id) throws(StrataError) in try self.record(for: id) }
    }

    // MARK: - Saving

    /// What a context hands over to save: records with temporary IDs for inserted objects.
    struct Changes {
        var inserted: [(record: StoreRecord, requestedKey: Int64?)]
        var updated: [(record: StoreRecord, changedKeys: Set<String>)]
        var deleted: [(objectID: ObjectID, version: Int64)]
    }

    struct SaveOutcome {
        /// The permanent ID of each inserted object, in the order of ``Changes/inserted``.
        var insertedIDs: [ObjectID]
        /// The saved record of each inserted object, in the same order.
        var insertedRecords: [StoreRecord]
        /// The saved record of each updated object, in the order of ``Changes/updated``.
        var updatedRecords: [StoreRecord]
        /// Permanent IDs by temporary ID, when a saved record referred to a new object; empty
        /// otherwise.
        var permanentIDs: [ObjectID: ObjectID]
    }

    /// Checks uniqueness constraints of a changeset against stored data without saving.
    func uniquenessViolations(_ changes: Changes) throws(StrataError) -> [ValidationFailure] {
        guard !constrainedEntities.isEmpty,
              changes.inserted.contains(where: { constrainedEntities.contains($0.record.objectID.entityName) })
                || changes.updated.contains(where: { constrainedEntities.contains($0.record.objectID.entityName) })
        else { return [] }
        // Only the records a constraint covers need checking; deletions free their values.
        var covered = changes
        covered.inserted.removeAll { !constrainedEntities.contains($0.record.objectID.entityName) }
        covered.updated.removeAll { !constrainedEntities.contains($0.record.objectID.entityName) }
        var failures: [ValidationFailure] = []
        for (store, changeset) in try route(covered, permanentIDs: nil) {
            failures += store.uniquenessViolations(changeset)
        }
        return failures
    }

    /// Makes IDs permanent, saves each store's part, caches the new rows and broadcasts. The
    /// stores check every version: a context resolves conflicts by its merge policy against the
    /// stored records, and saves again.
    func save(_ changes: Changes, from context: UUID?) throws(StrataError) -> SaveOutcome {
        var insertedIDs = try permanentIDs(for: changes.inserted)
        // References between records need the temporary → permanent map; most saves of plain
        // objects have none.
        let refersToObjects = changes.inserted.contains { !$0.record.toOne.isEmpty || !$0.record.toMany.isEmpty }
            || changes.updated.contains { !$0.record.toOne.isEmpty || !$0.record.toMany.isEmpty }
        var permanentIDs: [ObjectID: ObjectID] = [:]
        if refersToObjects {
            permanentIDs.reserveCapacity(insertedIDs.count)
            for (index, inserted) in changes.inserted.enumerated() { permanentIDs[inserted.record.objectID] = insertedIDs[index] }
        }
        var reassignable: Set<ObjectID> = []
        reassignable.reserveCapacity(insertedIDs.count)
        for (index, inserted) in changes.inserted.enumerated() where inserted.requestedKey == nil { reassignable.insert(insertedIDs[index]) }
        var routed = try route(changes, permanentIDs: (permanentIDs, insertedIDs))
        for index in routed.indices {
            routed[index].1.reassignableIDs = routed.count == 1 ? reassignable : reassignable.filter { $0.storeIdentifier == routed[index].0.storeIdentifier }
        }
        let result: StoreSaveResult
        do {
            result = try commit(routed)
        } catch let error where error.code == .validationFailed && !changes.inserted.isEmpty {
            // Failures name new objects by the IDs the context knows them by (a uniqueness
            // constraint that another process's save broke since the context checked it).
            var temporary: [ObjectID: ObjectID] = [:]
            for (index, inserted) in changes.inserted.enumerated() { temporary[insertedIDs[index]] = inserted.record.objectID }
            var mapped = error
            for index in mapped.failures.indices {
                if let id = temporary[mapped.failures[index].objectID] { mapped.failures[index].objectID = id }
                if let id = mapped.failures[index].relatedObjectID.flatMap({ temporary[$0] }) { mapped.failures[index].relatedObjectID = id }
            }
            throw mapped
        }
        // Keys another process took first: the store gave these objects fresh ones.
        let reassigned = result.reassignedIDs
        if !reassigned.isEmpty {
            for index in insertedIDs.indices {
                if let fresh = reassigned[insertedIDs[index]] { insertedIDs[index] = fresh }
            }
            for (temporary, permanent) in permanentIDs {
                if let fresh = reassigned[permanent] { permanentIDs[temporary] = fresh }
            }
        }
        // The records as saved: new IDs where keys were reassigned, and new versions.
        func settle(_ records: inout [StoreRecord]) {
            if !reassigned.isEmpty {
                for index in records.indices { records[index] = records[index].mappingIDs { reassigned[$0] ?? $0 } }
            }
            // Records of one entity with consecutive keys (new objects given a block of keys, or
            // objects fetched in key order) are found by their keys: the versions are read in
            // the dictionary's own order, without hashing an ID per record.
            func consecutive(from first: ObjectID, _ base: Int64) -> Bool {
                records.withUnsafeBufferPointer { records in
                    for index in records.indices {
                        let id = records[index].objectID
                        guard id.hasScope(of: first), id.primaryKey == base + Int64(index) else { return false }
                    }
                    return true
                }
            }
            if records.count > 64, let first = records.first?.objectID, let base = first.primaryKey, consecutive(from: first, base) {
                for (id, version) in result.versions where id.hasScope(of: first) {
                    guard let key = id.primaryKey, key >= base, key - base < Int64(records.count) else { continue }
                    let index = Int(key - base)
                    if records[index].objectID == id { records[index].version = version }
                }
                return
            }
            for index in records.indices {
                if let version = result.versions[records[index].objectID] { records[index].version = version }
            }
        }
        // In the order of the changes (routing kept each kind's order within a store).
        var insertedRecords: [StoreRecord] = []
        var updatedRecords: [StoreRecord] = []
        if routed.count == 1 {
            // Taken out of the changeset and settled in place: no copy of each record.
            insertedRecords = routed[0].1.inserted
            updatedRecords = routed[0].1.updated
            routed.removeAll()
            settle(&insertedRecords)
            settle(&updatedRecords)
        } else {
            var savedByID: [ObjectID: StoreRecord] = [:]
            for (_, part) in routed {
                var records = part.inserted + part.updated
                settle(&records)
                for record in records { savedByID[record.objectID] = record }
            }
            insertedRecords = insertedIDs.compactMap { savedByID[$0] }
            updatedRecords = changes.updated.compactMap { savedByID[permanentIDs[$0.record.objectID] ?? $0.record.objectID] }
        }
        // Updated rows replace what the cache holds; new rows are not cached (their objects
        // hold them, and other contexts read them when they first need them).
        rowCache.withLock { cache in
            cache.insert(contentsOf: updatedRecords)
            for deleted in changes.deleted { cache.remove(deleted.objectID) }
        }
        broadcast {
            var changedKeys: [ObjectID: Set<String>] = [:]
            for (record, keys) in changes.updated { changedKeys[permanentIDs[record.objectID] ?? record.objectID] = keys }
            var records: [ObjectID: StoreRecord] = [:]
            records.reserveCapacity(insertedRecords.count + updatedRecords.count)
            for record in insertedRecords { records[record.objectID] = record }
            for record in updatedRecords { records[record.objectID] = record }
            return SaveNotification(
                inserted: Set(insertedIDs), updated: Set(updatedRecords.map(\.objectID)),
                deleted: Set(changes.deleted.map(\.objectID)), changedKeys: changedKeys, records: records, sourceContext: context)
        }
        logger.debug("saved", metadata: ["inserted": "\(changes.inserted.count)", "updated": "\(changes.updated.count)", "deleted": "\(changes.deleted.count)"])
        return SaveOutcome(insertedIDs: insertedIDs, insertedRecords: insertedRecords, updatedRecords: updatedRecords, permanentIDs: permanentIDs)
    }

    /// A permanent ID for each inserted record, in order: the key it asked for, or the next
    /// ones its store hands out for its hierarchy.
    private func permanentIDs(for inserted: [(record: StoreRecord, requestedKey: Int64?)]) throws(StrataError) -> [ObjectID] {
        var roots: [String: String] = [:]
        var byRoot: [String: [Int]] = [:]
        // Objects of one entity come in runs: look a run's root up once. Read by index, so that
        // no record is copied.
        var run: (entity: String, root: String, indices: [Int])?
        for index in inserted.indices {
            let entityName = inserted[index].record.objectID.entityName
            if let current = run, current.entity == entityName {
                run!.indices.append(index)
                continue
            }
            if let current = run { byRoot[current.root, default: []] += current.indices }
            let root: String
            if let known = roots[entityName] {
                root = known
            } else {
                root = try entity(named: entityName).rootName
                roots[entityName] = root
            }
            run = (entityName, root, [index])
        }
        if let current = run { byRoot[current.root, default: []] += current.indices }
        var ids = [ObjectID?](repeating: nil, count: inserted.count)
        for (root, indices) in byRoot {
            let store = try store(forEntity: root)
            let needed = indices.count { inserted[$0].requestedKey == nil }
            var keys = needed > 0 ? try store.allocatePrimaryKeys(rootEntity: root, count: needed)[...] : []
            var requested: Set<Int64> = []
            let storeIdentifier = store.storeIdentifier
            for index in indices {
                let key: Int64
                if let requestedKey = inserted[index].requestedKey {
                    guard requested.insert(requestedKey).inserted else {
                        throw StrataError(.validationFailed, "two new \(root) objects ask for primary key \(requestedKey)")
                    }
                    key = requestedKey
                } else {
                    key = keys.removeFirst()
                }
                ids[index] = ObjectID(entityName: inserted[index].record.objectID.entityName, storeIdentifier: storeIdentifier, primaryKey: key)
            }
        }
        return ids.map { $0! }
    }

    /// Saves each store's part so that every store commits or none does, and returns the new
    /// versions and reassigned IDs of all of them.
    ///
    /// Each store's save runs the next store's save in its commit hook
    /// (``PersistentStore/save(_:beforeCommit:)``), so an error anywhere before the outermost
    /// commit rolls every store back. Stores are nested in the order of their identifiers, the
    /// same for every coordinator, so two coordinators on the same stores never wait on each
    /// other's locks in opposite orders. Should a store fail in its own commit after the stores
    /// nested inside it committed, those are put back as they were by a save of the records
    /// read before — unless another save changed them since, which is never overwritten; then,
    /// or if putting back fails, the error says which stores may now disagree.
    ///
    /// A store whose commit outcome is unknown (`commitOutcomeUnknown`: its server's connection
    /// broke during `COMMIT` and the server could not be asked since) may have committed: putting
    /// the others back would be acting on a guess, and would make the stores disagree whenever
    /// it did commit. So they are left as the save left them, and the error says which stores
    /// committed, which rolled back and which one cannot tell.
    private func commit(_ parts: [(any PersistentStore, StoreChangeset)]) throws(StrataError) -> StoreSaveResult {
        if parts.count == 1 { return try parts[0].0.saveChanges(parts[0].1) }
        let ordered = parts.filter { !$0.1.isEmpty }.sorted { $0.0.storeIdentifier < $1.0.storeIdentifier }
        var earlier: [[ObjectID: StoreRecord]] = []
        for (store, part) in ordered {
            // A store may leave to-many members to load later; putting a record back needs them.
            earlier.append(try store.wholeRecords(for: part.updated.map(\.objectID) + part.deleted.map(\.objectID)))
        }
        var results = Array(repeating: StoreSaveResult(versions: [:]), count: ordered.count)
        var committed: [Int] = []
        func save(from index: Int) throws(StrataError) {
            guard index < ordered.count else { return }
            let (store, part) = ordered[index]
            results[index] = try store.save(part) { () throws(StrataError) in try save(from: index + 1) }
            committed.append(index)
        }
        do {
            try save(from: 0)
        } catch {
            if error.code == .commitOutcomeUnknown {
                throw Self.outcomeUnknown(error, stores: ordered.map(\.0), committed: committed)
            }
            var unrestored: [String] = []
            for index in committed {
                let (store, part) = ordered[index]
                do {
                    // Only what is still as this save left it is put back: another save since
                    // (another process, between this commit and the failure) is never overwritten.
                    let undo = Self.undoing(part, earlier: earlier[index], result: results[index])
                    let saved = undo.updated.map(\.objectID) + undo.deleted.map(\.objectID)
                    let now = try store.records(for: saved + undo.inserted.map(\.objectID))
                    let changedSince = saved.filter { now[$0]?.version != results[index].versions[$0] }
                        + undo.inserted.map(\.objectID).filter { now[$0] != nil }
                    guard changedSince.isEmpty else {
                        unrestored.append("\(Self.name(of: store)) (another save changed \(changedSince.map(\.description).joined(separator: ", ")) since)")
                        continue
                    }
                    _ = try store.save(undo)
                } catch let undoError {
                    unrestored.append("\(Self.name(of: store)) (\(undoError.message))")
                }
            }
            guard unrestored.isEmpty else {
                throw StrataError(error.code, "\(error.message); the save had already committed to other stores and could not be undone in \(unrestored.joined(separator: ", ")): the stores may now disagree", failures: error.failures, file: error.file)
            }
            if !committed.isEmpty {
                logger.error("a save failed in one store after committing to \(committed.count) other store(s); those were put back", metadata: ["error": "\(error.message)"])
            }
            throw error
        }
        return results.reduce(into: StoreSaveResult(versions: [:])) { all, result in
            all.versions.merge(result.versions) { $1 }
            all.reassignedIDs.merge(result.reassignedIDs) { $1 }
        }
    }

    /// The error of a save across several stores one of which cannot tell whether it committed.
    /// Stores commit innermost first, so those that committed are the last ones of `stores`,
    /// the store before them is the one that cannot tell, and the ones before it rolled back.
    private static func outcomeUnknown(_ error: StrataError, stores: [any PersistentStore], committed: [Int]) -> StrataError {
        let unknown = stores.count - 1 - committed.count
        let names = { (range: Range<Int>) in stores[range].map(name(of:)).joined(separator: ", ") }
        var message = "\(error.message) (\(name(of: stores[unknown])))"
        if unknown + 1 < stores.count {
            message += "; the save committed to \(names(unknown + 1..<stores.count)) and was left there: putting it back would be a guess"
        }
        if unknown > 0 { message += "; \(names(0..<unknown)) rolled it back" }
        return StrataError(.commitOutcomeUnknown, message, failures: error.failures, file: error.file)
    }

    /// A store as errors name it: its file's path, or its URL without a password (in the user
    /// part or a `password` query item).
    private static func name(of store: any PersistentStore) -> String {
        guard let url = store.url else { return store.storeIdentifier }
        if url.isFileURL { return url.path }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return store.storeIdentifier }
        if components.password != nil { components.password = "***" }
        components.queryItems = components.queryItems?.map { $0.name == "password" ? URLQueryItem(name: $0.name, value: "***") : $0 }
        return components.string ?? store.storeIdentifier
    }

    /// The changeset that puts back what `part` changed: its inserts deleted, its updates and
    /// deletes restored to the records (and versions) read before it.
    private static func undoing(_ part: StoreChangeset, earlier: [ObjectID: StoreRecord], result: StoreSaveResult) -> StoreChangeset {
        var undo = StoreChangeset(overwritesConflicts: true)
        undo.restoresVersions = true
        undo.deleted = part.inserted.map { record in
            let id = result.reassignedIDs[record.objectID] ?? record.objectID
            return (id, result.versions[id] ?? 1)
        }
        undo.updated = part.updated.compactMap { earlier[$0.objectID] }
        undo.inserted = part.deleted.compactMap { earlier[$0.objectID] }
        return undo
    }

    /// Splits changes by store, with temporary IDs replaced by permanent ones everywhere (the
    /// map, and the new ID of each inserted record in order); without IDs, records keep theirs.
    private func route(
        _ changes: Changes, permanentIDs: (map: [ObjectID: ObjectID], inserted: [ObjectID])?
    ) throws(StrataError) -> [(any PersistentStore, StoreChangeset)] {
        let map = permanentIDs?.map ?? [:]
        let insertedIDs = permanentIDs?.inserted
        func mapped(_ record: StoreRecord) -> StoreRecord {
            map.isEmpty || (record.toOne.isEmpty && record.toMany.isEmpty) ? record : record.mappingIDs { map[$0] ?? $0 }
        }
        func inserted(_ index: Int) -> StoreRecord {
            var record = mapped(changes.inserted[index].record)
            if let insertedIDs { record.objectID = insertedIDs[index] }
            return record
        }
        // One store for every entity: no routing.
        if let store = soleStore {
            var changeset = StoreChangeset()
            changeset.inserted = changes.inserted.indices.map(inserted)
            changeset.updated = changes.updated.map { mapped($0.record) }
            changeset.changedKeys = changes.updated.map(\.changedKeys)
            changeset.deleted = changes.deleted
            return [(store, changeset)]
        }
        var parts = StoreParts()
        for index in changes.inserted.indices {
            let part = try parts.index(for: changes.inserted[index].record.objectID.entityName, of: self)
            parts.parts[part].changes.inserted.append(inserted(index))
        }
        for (record, changedKeys) in changes.updated {
            let index = try parts.index(for: record.objectID.entityName, of: self)
            parts.parts[index].changes.updated.append(mapped(record))
            parts.parts[index].changes.changedKeys.append(changedKeys)
        }
        for deleted in changes.deleted {
            let part = try parts.index(for: deleted.objectID.entityName, of: self)
            parts.parts[part].changes.deleted.append(deleted)
        }
        return parts.parts.map { ($0.store, $0.changes) }
    }

    /// The store of every entity, when one store without a configuration holds them all.
    private var soleStore: (any PersistentStore)? {
        let stores = self.stores
        return stores.count == 1 && stores[0].configurationName == nil ? stores[0] : nil
    }

    /// The parts of a save, one per store, and which part each entity's records go to.
    private struct StoreParts {
        var parts: [(store: any PersistentStore, changes: StoreChangeset)] = []
        private var partOfEntity: [String: Int] = [:]

        /// The index in ``parts`` of the part of the store that holds `entityName`.
        mutating func index(for entityName: String, of coordinator: PersistentStoreCoordinator) throws(StrataError) -> Int {
            if let index = partOfEntity[entityName] { return index }
            let store = try coordinator.store(forEntity: entityName)
            let index = parts.firstIndex { $0.store === store } ?? parts.count
            if index == parts.count { parts.append((store, StoreChangeset())) }
            partOfEntity[entityName] = index
            return index
        }
    }

    /// Saves new objects given whole as records with permanent IDs, as one save (a bulk load:
    /// no context holds them). Their keys must be free. The model's rules are the caller's to
    /// check first; uniqueness is checked by the stores' saves, as for every save. Observers hear
    /// of the save as of any other; the rows are not cached.
    /// - Returns: the saved version of each record.
    /// - Parameter reassignable: whether the records' keys may change when another process
    ///   took them since they were allocated (keys the store handed out, as a context's inserts
    ///   have); otherwise the records keep theirs (a load's `@id`s) or the save fails.
    /// - Returns: the saved versions, and the records given other keys.
    func insert(_ records: [StoreRecord], from context: UUID?, reassignable: Bool = false) throws(StrataError) -> StoreSaveResult {
        var parts = StoreParts()
        if let store = soleStore {
            parts.parts = [(store, StoreChangeset(inserted: records))]
        } else {
            for record in records {
                let part = try parts.index(for: record.objectID.entityName, of: self)
                parts.parts[part].changes.inserted.append(record)
            }
        }
        if reassignable {
            for index in parts.parts.indices { parts.parts[index].changes.reassignableIDs = Set(parts.parts[index].changes.inserted.map(\.objectID)) }
        }
        let result = try commit(parts.parts.map { ($0.store, $0.changes) })
        parts = StoreParts()
        broadcast {
            var saved: [ObjectID: StoreRecord] = [:]
            saved.reserveCapacity(records.count)
            for var record in records {
                record.objectID = result.reassignedIDs[record.objectID] ?? record.objectID
                record.version = result.versions[record.objectID] ?? record.version
                saved[record.objectID] = record
            }
            return SaveNotification(
                inserted: Set(saved.keys), updated: [], deleted: [], changedKeys: [:], records: saved, sourceContext: context)
        }
        logger.debug("saved", metadata: ["inserted": "\(records.count)", "updated": "0", "deleted": "0"])
        return result
    }

    // MARK: - Save notifications

    /// Calls every observer with the notification `make` builds; builds none when nobody
    /// observes.
    func broadcast(_ make: () -> SaveNotification) {
        let observers = state.withLock { Array($0.observers.values) }
        guard !observers.isEmpty else { return }
        let notification = make()
        for observer in observers { observer(notification) }
    }

    /// Brings in what another process saved to one of the stores, as the store learned it from
    /// its own record of changes (the PostgreSQL store's transaction history): the row cache
    /// forgets those rows, and save observers — contexts that merge changes among them — get a
    /// notification without records, so that their objects are read again.
    public func mergeRemoteChanges(inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>) {
        evictCachedRecords(updated.union(deleted))
        broadcast {
            SaveNotification(inserted: inserted, updated: updated, deleted: deleted, changedKeys: [:], records: [:], sourceContext: nil)
        }
    }

    /// Identifies an observer for ``removeObserver(_:)``.
    public struct ObserverToken: Sendable, Hashable {
        let id: UUID
    }

    /// Calls `callback` after every save, on the saving task.
    @discardableResult
    public func addSaveObserver(_ callback: @escaping @Sendable (SaveNotification) -> Void) -> ObserverToken {
        let id = UUID()
        state.withLock { $0.observers[id] = callback }
        return ObserverToken(id: id)
    }

    /// Whether anything observes saves (a bulk load, which builds no notification, is taken
    /// only when nothing does).
    package var hasSaveObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    public func removeObserver(_ token: ObserverToken) {
        state.withLock { $0.observers[token.id] = nil }
    }

    /// Every save from now on, as an async sequence; it ends when the task iterating it is
    /// cancelled.
    public func saveNotifications() -> AsyncStream<SaveNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: SaveNotification.self)
        let token = addSaveObserver { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(token) }
        return stream
    }
}

/// A bounded cache of saved rows: two generations, so the most recently used rows stay while
/// memory stays within twice the capacity.
struct RowCache {
    let capacity: Int
    private var young: [ObjectID: StoreRecord] = [:]
    private var old: [ObjectID: StoreRecord] = [:]

    init(capacity: Int) {
        self.capacity = capacity
    }

    subscript(id: ObjectID) -> StoreRecord? {
        young[id] ?? old[id]
    }

    mutating func insert(_ record: StoreRecord) {
        if young.count >= capacity {
            old = young
            young = [:]
        }
        young[record.objectID] = record
        if !old.isEmpty { old[record.objectID] = nil }
    }

    /// Inserts many rows, making room for them at once.
    mutating func insert(contentsOf records: [StoreRecord]) {
        guard !records.isEmpty else { return }
        if young.count + records.count > capacity, young.count > 0 {
            old = young
            young = [:]
        }
        young.reserveCapacity(min(capacity, young.count + records.count))
        for record in records { insert(record) }
    }

    /// Replaces the rows it holds that `records` has in another version; leaves out the rest.
    mutating func refresh(_ records: [StoreRecord]) {
        guard !young.isEmpty || !old.isEmpty else { return }
        for record in records {
            if let cached = young[record.objectID] {
                if cached.version != record.version { young[record.objectID] = record }
            } else if let cached = old[record.objectID], cached.version != record.version {
                old[record.objectID] = record
            }
        }
    }

    mutating func remove(_ id: ObjectID) {
        young[id] = nil
        old[id] = nil
    }

    mutating func removeAll() {
        young = [:]
        old = [:]
    }

    mutating func removeAll(where shouldRemove: (ObjectID) -> Bool) {
        young = young.filter { !shouldRemove($0.key) }
        old = old.filter { !shouldRemove($0.key) }
    }
}
