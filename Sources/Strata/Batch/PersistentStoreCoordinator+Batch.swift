internal import Foundation

/// Batch requests: many objects inserted, updated or deleted without a context, with every rule
/// of the model enforced, all-or-nothing, and announced to contexts as a save is.
extension PersistentStoreCoordinator {
    /// Inserts the request's objects in one save (see ``BatchInsertRequest``).
    /// - Throws: ``StrataError`` — `validationFailed` listing every broken rule (nothing is
    ///   written), `unknownProperty` or `invalidData` for a key or value the entity cannot take.
    public func execute(_ request: BatchInsertRequest) throws(StrataError) -> BatchResult {
        try executeBatch(request, from: nil)
    }

    /// Updates the objects the request matches (see ``BatchUpdateRequest``).
    /// - Throws: ``StrataError`` — `validationFailed` listing each matching object and the rule
    ///   its new value breaks, or the uniqueness constraint (nothing is written); `unknownProperty`,
    ///   `invalidData` or `invalidPredicate` for a request the entity cannot take.
    public func execute(_ request: BatchUpdateRequest) throws(StrataError) -> BatchResult {
        try executeBatch(request, from: nil).result
    }

    /// Deletes the objects the request matches, applying delete rules (see ``BatchDeleteRequest``).
    /// - Throws: ``StrataError`` — `validationFailed` listing every `deny` rule and every rule a
    ///   nullified inverse would break (nothing is deleted); `invalidPredicate` for a request the
    ///   entity cannot take.
    public func execute(_ request: BatchDeleteRequest) throws(StrataError) -> BatchResult {
        try executeBatch(request, from: nil).result
    }

    // MARK: - Insert

    func executeBatch(_ request: BatchInsertRequest, from context: UUID?) throws(StrataError) -> BatchResult {
        let entity = try entity(named: request.entityName)
        guard !entity.isAbstract else {
            let concrete = schema.entityAndDescendants(of: entity.name).filter { !$0.isAbstract }.map(\.name)
            throw StrataError(.unknownEntity, "entity '\(entity.name)' is abstract: insert objects of \(concrete.isEmpty ? "a concrete entity" : concrete.map { "'\($0)'" }.joined(separator: " or ")) instead")
        }
        guard !request.objects.isEmpty else { return BatchResult(resultType: request.resultType, count: 0) }
        if let required = entity.relationships.first(where: { $0.isToMany ? $0.minCount > 0 : !$0.isOptional }) {
            throw StrataError(
                .validationFailed,
                "'\(entity.name).\(required.name)' is a required relationship, which a batch insert cannot set (it sets attributes only); insert these objects through a context; nothing was written")
        }
        var defaults = entity.attributeDefaults.laidOut(by: entity.attributeLayout)
        for position in entity.transientAttributePositions { defaults[position: position] = nil }
        var rows: [AttributeValues] = []
        rows.reserveCapacity(request.objects.count)
        var failures: [ValidationFailure] = []
        // New objects have no IDs yet: failures name a placeholder, and the object's position.
        let placeholder = ObjectID(temporaryFor: entity.name)
        var slots = BatchValues.Slots(entity: entity)
        for (index, object) in request.objects.enumerated() {
            var values = defaults
            for (key, value) in object {
                let slot = try slots.slot(key)
                if let plain = BatchValues.plain(value, as: slot.type) {
                    values[position: slot.position] = plain
                } else {
                    values[position: slot.position] = try BatchValues.convert(
                        value, for: entity.attribute(named: key)!, entity: entity.name, transformers: attributeTransformers, place: "object \(index)")
                }
            }
            let before = failures.count
            entity.attributeFailures(of: values, objectID: placeholder, into: &failures)
            for failure in before..<failures.count { failures[failure].message = "(object \(index) of the batch insert) " + failures[failure].message }
            rows.append(values)
        }
        guard failures.isEmpty else {
            throw StrataError(.validationFailed, "the batch insert was refused: \(failures.count) problem\(failures.count == 1 ? "" : "s") found; nothing was written", failures: failures)
        }
        let store = try store(forEntity: entity.name)
        let scope = ObjectID(entityName: entity.name, storeIdentifier: store.storeIdentifier, primaryKey: 0)
        // The store's own way: keys and rows in one transaction, then what observers and the
        // result need. A uniqueness constraint it refuses (nil) is reported by the save below.
        if let keys = try store.insertBatch(StoreBatchInsert(entityName: entity.name, objects: rows)) {
            broadcast {
                var saved: [ObjectID: StoreRecord] = [:]
                saved.reserveCapacity(keys.count)
                for (key, values) in zip(keys, rows) {
                    let id = ObjectID(scope: scope, primaryKey: key)
                    saved[id] = StoreRecord(objectID: id, attributes: values, version: 1)
                }
                return SaveNotification(inserted: Set(saved.keys), updated: [], deleted: [], changedKeys: [:], records: saved, sourceContext: context)
            }
            logger.debug("saved", metadata: ["inserted": "\(keys.count)", "updated": "0", "deleted": "0"])
            let ids = request.resultType == .objectIDs ? keys.map { ObjectID(scope: scope, primaryKey: $0) } : []
            return BatchResult(resultType: request.resultType, count: keys.count, objectIDs: ids)
        }
        let keys = try store.allocatePrimaryKeys(rootEntity: entity.rootName, count: rows.count)
        var records: [StoreRecord] = []
        records.reserveCapacity(rows.count)
        for (key, values) in zip(keys, rows) { records.append(StoreRecord(objectID: ObjectID(scope: scope, primaryKey: key), attributes: values)) }
        rows = []
        // Keys the store handed out: another process may take them before the save, which then
        // gives these objects the next free ones, as it does a context's inserts.
        let saved: StoreSaveResult
        do {
            saved = try insert(records, from: context, reassignable: true)
        } catch {
            var positions: [ObjectID: Int] = [:]
            for (index, record) in records.enumerated() { positions[record.objectID] = index }
            throw Self.locating(error, positions)
        }
        let ids = request.resultType == .objectIDs ? records.map { saved.reassignedIDs[$0.objectID] ?? $0.objectID } : []
        return BatchResult(resultType: request.resultType, count: records.count, objectIDs: ids)
    }

    /// The error with each failure about a new object saying which of the request's objects it
    /// is (`positions`: by ID, the index in ``BatchInsertRequest/objects``).
    private static func locating(_ error: StrataError, _ positions: [ObjectID: Int]) -> StrataError {
        var located = error
        for index in located.failures.indices {
            guard let position = positions[located.failures[index].objectID] else { continue }
            located.failures[index].message = "(object \(position) of the batch insert) " + located.failures[index].message
        }
        return located
    }

    // MARK: - Update and delete

    /// What a batch update or delete did, and the notification that tells contexts (made on
    /// demand: only observers and the executing context need it).
    struct BatchOutcome {
        var result: BatchResult
        var notification: () -> SaveNotification

        /// A request that matched nothing (an abstract entity with no concrete subentity).
        static func nothing(_ resultType: BatchResultType, from context: UUID?) -> BatchOutcome {
            BatchOutcome(result: BatchResult(resultType: resultType, count: 0)) {
                SaveNotification(inserted: [], updated: [], deleted: [], changedKeys: [:], records: [:], sourceContext: context)
            }
        }
    }

    func executeBatch(_ request: BatchUpdateRequest, from context: UUID?) throws(StrataError) -> BatchOutcome {
        let (entity, fetch) = try batchFetch(request.entityName, request.predicate, includesSubentities: request.includesSubentities)
        guard !request.propertiesToUpdate.isEmpty else {
            throw StrataError(.invalidData, "the batch update of '\(entity.name)' sets nothing: give propertiesToUpdate at least one attribute")
        }
        var values: [String: AttributeValue?] = [:]
        var expressions: [String: FetchExpression] = [:]
        var broken: [ValidationFailure] = []
        let placeholder = ObjectID(temporaryFor: entity.name)
        for key in request.propertiesToUpdate.keys.sorted() {
            let attribute = try BatchValues.attribute(key, of: entity, request: "batch update")
            if let expression = request.propertiesToUpdate[key]!.flatMap({ $0 as? FetchExpression }) {
                expressions[key] = expression
                continue
            }
            let value = try BatchValues.convert(request.propertiesToUpdate[key]!, for: attribute, entity: entity.name, transformers: attributeTransformers, place: "'\(key)'")
            values[key] = value
            broken += BatchValues.failures(of: value, for: attribute, objectID: placeholder)
        }
        guard let store = try batchStore(fetch.entityNames) else { return .nothing(request.resultType, from: context) }
        // A value's rules do not depend on the object: checked once, reported for each match.
        if !broken.isEmpty {
            let ids = try store.fetchObjectIDs(fetch)
            if !ids.isEmpty {
                throw StrataError.saveRefused(ids.flatMap { id in
                    broken.map { failure in
                        var located = failure
                        located.objectID = id
                        return located
                    }
                })
            }
        }
        var operation = StoreBatchRequest(fetch: fetch, operation: .update(values), listsObjects: listsObjects(request.resultType, from: context))
        if !expressions.isEmpty { operation.computed = try BatchExpressions.request(expressions, entity: entity, schema: schema, fetch: fetch) }
        let outcome = try run(operation, on: store)
        forgetCachedRows(outcome, fetch)
        let keys = Set(values.keys).union(expressions.keys)
        let matched = outcome.matched
        let notification = { () -> SaveNotification in
            var changedKeys: [ObjectID: Set<String>] = [:]
            changedKeys.reserveCapacity(matched.count)
            for id in matched { changedKeys[id] = keys }
            return SaveNotification(inserted: [], updated: Set(matched), deleted: [], changedKeys: changedKeys, records: [:], sourceContext: context)
        }
        broadcast(notification)
        logger.debug("batch update", metadata: ["entity": "\(entity.name)", "updated": "\(outcome.matchedCount)"])
        return BatchOutcome(
            result: BatchResult(resultType: request.resultType, count: outcome.matchedCount, objectIDs: request.resultType == .objectIDs ? matched : []),
            notification: notification)
    }

    func executeBatch(_ request: BatchDeleteRequest, from context: UUID?) throws(StrataError) -> BatchOutcome {
        let (entity, fetch) = try batchFetch(request.entityName, request.predicate, includesSubentities: request.includesSubentities)
        guard let store = try batchStore(fetch.entityNames) else { return .nothing(request.resultType, from: context) }
        let operation = StoreBatchRequest(fetch: fetch, operation: .delete, listsObjects: listsObjects(request.resultType, from: context))
        let outcome = try run(operation, on: store)
        forgetCachedRows(outcome, fetch)
        evictCachedRecords(outcome.cascaded)
        evictCachedRecords(outcome.versions.keys)
        let notification = { () -> SaveNotification in
            SaveNotification(
                inserted: [], updated: Set(outcome.versions.keys), deleted: Set(outcome.matched).union(outcome.cascaded),
                changedKeys: outcome.changedKeys, records: outcome.records, sourceContext: context)
        }
        broadcast(notification)
        logger.debug("batch delete", metadata: ["entity": "\(entity.name)", "deleted": "\(outcome.matchedCount)", "cascaded": "\(outcome.cascaded.count)"])
        let listsIDs = request.resultType == .objectIDs
        return BatchOutcome(
            result: BatchResult(
                resultType: request.resultType, count: outcome.matchedCount, objectIDs: listsIDs ? outcome.matched : [],
                cascadedCount: outcome.cascaded.count, cascadedObjectIDs: listsIDs ? outcome.cascaded : []),
            notification: notification)
    }

    /// Whether a batch request's outcome must list its objects: someone reads the list (the
    /// executing context, observers, the result). Without one, SQLite skips `RETURNING`.
    private func listsObjects(_ resultType: BatchResultType, from context: UUID?) -> Bool {
        context != nil || resultType == .objectIDs || hasSaveObservers
    }

    /// Drops the cached rows of what a batch request changed: the objects it lists, or, when it
    /// listed none, every row of its entities.
    private func forgetCachedRows(_ outcome: StoreBatchOutcome, _ fetch: StoreFetchRequest) {
        if outcome.matched.count == outcome.matchedCount {
            evictCachedRecords(outcome.matched)
        } else {
            evictCachedRecords(ofEntities: Set(fetch.entityNames))
        }
    }

    /// Runs a batch operation the store's own way, or else through its fetch and save.
    private func run(_ operation: StoreBatchRequest, on store: any PersistentStore) throws(StrataError) -> StoreBatchOutcome {
        // Expressions only to a store that computes them; others fetch and save.
        if operation.computed == nil || store is any ComputesBatchUpdates, let outcome = try store.executeBatch(operation) { return outcome }
        return try BatchExecution.execute(operation, on: store, schema: schema)
    }

    /// The entity and the store fetch of a batch update or delete, its predicate checked.
    private func batchFetch(_ entityName: String, _ predicate: FetchPredicate?, includesSubentities: Bool) throws(StrataError) -> (EntityDescription, StoreFetchRequest) {
        let entity = try entity(named: entityName)
        if let predicate { try PredicateValidator(schema: schema).validate(predicate, for: entity) }
        let candidates = includesSubentities ? schema.entityAndDescendants(of: entity.name) : [entity]
        return (entity, StoreFetchRequest(entityNames: candidates.filter { !$0.isAbstract }.map(\.name), predicate: predicate))
    }

    /// The one store that holds every entity of a batch request (nil for no entity): a request
    /// is all-or-nothing in one store's transaction, so one spanning stores is refused.
    private func batchStore(_ entityNames: [String]) throws(StrataError) -> (any PersistentStore)? {
        var found: (any PersistentStore)?
        for name in entityNames {
            let store = try store(forEntity: name)
            if let found, found !== store {
                throw StrataError(.noStore, "the entities of this batch request (\(entityNames.joined(separator: ", "))) are in more than one store; a batch request runs in one store: make one request per store's entities")
            }
            found = store
        }
        return found
    }
}
