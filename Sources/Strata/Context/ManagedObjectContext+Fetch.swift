extension ManagedObjectContext {
    /// The objects matching a request, with this context's unsaved changes taken into account
    /// unless `includesPendingChanges` is false.
    /// - Throws: `unknownEntity`, `invalidPredicate` (a key path the entity does not have), or a
    ///   store's error.
    ///
    /// With `returnsObjectsAsFaults`, only the IDs of the matches are read and the objects come
    /// back as faults (registered objects as they are); with a `fetchBatchSize`, the IDs are read
    /// first and the objects' records then `fetchBatchSize` per store request.
    public func fetch(_ request: FetchRequest) throws(StrataError) -> [ManagedObject] {
        processPendingMerges()
        let objects: [ManagedObject]
        if request.returnsObjectsAsFaults || request.fetchBatchSize > 0 {
            let ids = try fetchObjectIDs(request)
            if request.returnsObjectsAsFaults {
                objects = ids.map { materialize($0) }
            } else {
                var loaded: [ManagedObject] = []
                loaded.reserveCapacity(ids.count)
                var start = 0
                while start < ids.count {
                    let end = min(start + request.fetchBatchSize, ids.count)
                    loaded += try load(Array(ids[start..<end]))
                    start = end
                }
                objects = loaded
            }
        } else {
            objects = try fetchObjects(request)
        }
        try prefetch(request.relationshipKeyPathsForPrefetching, for: objects)
        return objects
    }

    /// The objects of IDs, with one store request for those not loaded yet.
    private func load(_ ids: [ObjectID]) throws(StrataError) -> [ManagedObject] {
        let needed = ids.filter { registeredObject(for: $0)?.isFault ?? true }
        var loaded: [ObjectID: ManagedObject] = [:]
        if !needed.isEmpty {
            // Held here until returned: the context keeps objects only while someone does.
            for record in try sourceRecords(for: needed).values { loaded[record.objectID] = materialize(record) }
        }
        return ids.map { loaded[$0] ?? materialize($0) }
    }

    /// The objects of a class bound to an entity.
    public func fetch<T: ManagedObject>(
        _ type: T.Type, where predicate: FetchPredicate? = nil, sortedBy sortDescriptors: [FetchSortDescriptor] = [],
        limit: Int = 0
    ) throws(StrataError) -> [T] {
        let request = FetchRequest(entityName: T.entityName, predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: limit)
        return try fetch(request).map { object in
            guard let typed = object as? T else {
                preconditionFailure("\(object) is not a \(T.self); register \(T.self) with the coordinator")
            }
            return typed
        }
    }

    /// The IDs of the objects matching a request, in its order.
    public func fetchObjectIDs(_ request: FetchRequest) throws(StrataError) -> [ObjectID] {
        processPendingMerges()
        let entityNames = try validate(request)
        if !includesChanges(request, entityNames) {
            return try coordinator.fetchObjectIDs(storeRequest(request, entityNames, windowed: true))
        }
        return try fetchObjects(request).map(\.objectID)
    }

    /// How many objects match a request (its limit and offset applied).
    public func count(for request: FetchRequest) throws(StrataError) -> Int {
        processPendingMerges()
        let entityNames = try validate(request)
        if !includesChanges(request, entityNames) {
            return try coordinator.countRecords(storeRequest(request, entityNames, windowed: true))
        }
        return try fetchObjects(request).count
    }

    /// The rows of a dictionary fetch (Core Data's dictionary result type): for each matching
    /// object — or, with `propertiesToGroupBy` or an aggregate column, for each group — the
    /// values of `expressionsToFetch` (every stored attribute when nil) by column name.
    ///
    /// Values: an attribute as `.attribute` (nil for none), a to-one relationship as `.toOne`,
    /// a to-many relationship as `.toMany`, an aggregate as `.attribute` (see
    /// ``ExpressionDescription`` for its type). Rows come in the request's order: its sort
    /// descriptors (of the entity's key paths, or for groups of column names and group keys),
    /// then by object ID, or for groups by their keys; `returnsDistinctResults` keeps the first
    /// of equal rows; the offset and limit apply last. Every store gives the same rows: the
    /// SQLite store computes them in SQL, the others in memory.
    /// - Throws: `unknownEntity`; `invalidPredicate` for a key the entity does not have (naming
    ///   it and the closest one), a column of a grouped request that is neither grouped nor
    ///   aggregated, or a having predicate or sort key that names no column; or a store's error.
    public func fetchDictionaries(_ request: FetchRequest) throws(StrataError) -> [DictionaryRow] {
        processPendingMerges()
        let plan = try DictionaryPlan(
            schema: coordinator.schema, entity: try coordinator.entity(named: request.entityName), properties: request.expressionsToFetch,
            groupBy: request.propertiesToGroupBy, having: request.havingPredicate, distinct: request.returnsDistinctResults,
            sortDescriptors: request.sortDescriptors)
        let entityNames = try validate(request, sortsByColumns: plan.isGrouped)
        guard includesChanges(request, entityNames) else {
            return try coordinator.fetchDictionaries(StoreDictionaryRequest(fetch: storeRequest(request, entityNames, windowed: true), plan: plan))
        }
        // Unsaved changes take part: the rows are computed here, over the objects.
        var whole = request
        whole.sortDescriptors = []
        whole.fetchLimit = 0
        whole.fetchOffset = 0
        let objects = try fetchObjects(whole, validated: entityNames).sorted { DictionaryPlan.inKeyOrder($0.objectID, $1.objectID) }
        return try plan.rows(
            objects, evaluator: objectEvaluator(), sortDescriptors: request.sortDescriptors, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    // MARK: - Implementation

    func fetchObjects(_ request: FetchRequest, validated: [String]? = nil) throws(StrataError) -> [ManagedObject] {
        let entityNames: [String]
        if let validated { entityNames = validated } else { entityNames = try validate(request) }
        let own = ownChangesApply(request, entityNames)
        let ancestors = ancestorsHaveChanges(request, entityNames)
        guard own || ancestors != nil else {
            return materialize(try coordinator.fetchRecords(storeRequest(request, entityNames, windowed: true), caching: false))
        }
        // Unsaved changes take part (this context's, or its parent's as its source): fetch every
        // match from the source, then replace changed objects by their in-memory state, add
        // inserted ones, drop deleted ones, and order and window here.
        let names = Set(entityNames)
        let evaluator = objectEvaluator()
        var result: [ManagedObject] = []
        for object in materialize(try sourceRecords(request, entityNames, ancestorChanges: ancestors)) where !own || !object.hasChanges {
            result.append(object)
        }
        if own {
            for object in changed.values where names.contains(object.entity.name) && !object.isDeleted {
                if try request.predicate.map({ (predicate) throws(StrataError) in try evaluator.evaluate(predicate, on: object) }) ?? true {
                    result.append(object)
                }
            }
        }
        result = try RecordSorter.sort(result, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
        if request.sortDescriptors.isEmpty { result.sort { $0.objectID < $1.objectID } }
        return Array(AtomicStore.window(result, offset: request.fetchOffset, limit: request.fetchLimit))
    }

    func storeRequest(_ request: FetchRequest, _ entityNames: [String], windowed: Bool) -> StoreFetchRequest {
        StoreFetchRequest(
            entityNames: entityNames, predicate: request.predicate, sortDescriptors: request.sortDescriptors,
            fetchLimit: windowed ? request.fetchLimit : 0, fetchOffset: windowed ? request.fetchOffset : 0)
    }

    /// The concrete entities a request covers, after checking its predicate and sort keys.
    /// - Parameter sortsByColumns: true for a grouped dictionary fetch, whose sort keys name its
    ///   columns (its plan checks them).
    private func validate(_ request: FetchRequest, sortsByColumns: Bool = false) throws(StrataError) -> [String] {
        let entity = try coordinator.entity(named: request.entityName)
        if let predicate = request.predicate {
            try PredicateValidator(schema: coordinator.schema).validate(predicate, for: entity)
        }
        for descriptor in request.sortDescriptors where !sortsByColumns {
            if descriptor.keyPath.contains("@") {
                // Through a to-many relationship to an aggregate: `books.@count`.
                try DictionaryPlan.validateAggregateSortKey(descriptor.keyPath, schema: coordinator.schema, entity: entity)
            } else {
                try PredicateValidator(schema: coordinator.schema).validateSortKey(descriptor.keyPath, for: entity)
            }
        }
        let candidates = request.includesSubentities ? coordinator.schema.entityAndDescendants(of: entity.name) : [entity]
        return candidates.filter { !$0.isAbstract }.map(\.name)
    }

    /// Loads the destinations of key paths for every object at once, instead of one by one.
    private func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws(StrataError) {
        for keyPath in keyPaths {
            var level = objects
            for key in keyPath.split(separator: ".").map(String.init) {
                var ids: [ObjectID] = []
                var lazy: [ManagedObject] = []
                for object in level {
                    guard let relationship = object.entity.relationship(named: key) else {
                        throw StrataError(.invalidPredicate, "cannot prefetch '\(keyPath)': \(object.entity.name) has no relationship '\(key)'")
                    }
                    object.fulfillFault()
                    if relationship.isToMany && object.committed?.lazyToMany.contains(key) == true { lazy.append(object) }
                }
                // The members the store left to load later, for every object in one request.
                if !lazy.isEmpty {
                    let members = try sourceRelatedObjectIDs(of: lazy.map(\.objectID), relationship: key)
                    for object in lazy {
                        guard let found = members[object.objectID] else { continue }
                        object.committed?.toMany[key] = found
                        object.committed?.lazyToMany.remove(key)
                    }
                }
                for object in level {
                    ids += object.relatedIDs(at: object.relationshipPosition(key))
                }
                // The records go to the coordinator's row cache, so the destinations' faults
                // fill from memory even after the objects made here are released.
                let missing = ids.filter { registeredObject(for: $0)?.isFault ?? true }
                for record in try sourceRecords(for: missing).values { _ = materialize(record) }
                level = ids.map { materialize($0) }
            }
        }
    }

    /// The predicate evaluator over this context's objects, with their unsaved values.
    func objectEvaluator() -> PredicateEvaluator<ManagedObject> {
        PredicateEvaluator(GraphAccessor<ManagedObject>(
            entity: { $0.entity },
            objectID: { $0.objectID },
            attribute: { object, key in
                object.fulfillFault()
                return object.attributeValues[key]
            },
            toOne: { [unowned self] object, key in
                object.fulfillFault()
                return object.toOneID(key).map { self.materialize($0) }.flatMap { $0.isDeleted ? nil : $0 }
            },
            toMany: { [unowned self] object, key in
                object.fulfillFault()
                return object.memberIDs(key).map { self.materialize($0) }.filter { !$0.isDeleted }
            }))
    }

    static func attributeValue(_ value: PredicateValue) -> AttributeValue? {
        switch value {
        case .null, .array, .object: nil
        case .bool(let v): .bool(v)
        case .integer(let v): .integer(v)
        case .double(let v): .double(v)
        case .decimal(let v): .decimal(v)
        case .string(let v): .string(v)
        case .date(let v): .date(v)
        case .data(let v): .binary(v)
        case .uuid(let v): .uuid(v)
        case .uri(let v): .uri(v)
        }
    }
}

/// The result of ``ManagedObjectContext/execute(_:)->FetchResult``, by the request's `resultType`.
public enum FetchResult {
    case objects([ManagedObject])
    case objectIDs([ObjectID])
    case count(Int)
    case dictionaries([[String: PropertyValue]])
}

extension ManagedObjectContext {
    /// Runs a request and returns what its `resultType` asks for (Core Data's `execute`).
    public func execute(_ request: FetchRequest) throws(StrataError) -> FetchResult {
        switch request.resultType {
        case .objects: .objects(try fetch(request))
        case .objectIDs: .objectIDs(try fetchObjectIDs(request))
        case .count: .count(try count(for: request))
        case .dictionaries: .dictionaries(try fetchDictionaries(request))
        }
    }
}
