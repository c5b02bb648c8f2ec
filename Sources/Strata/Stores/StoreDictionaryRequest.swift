/// A dictionary fetch as a store sees it: the objects of a ``StoreFetchRequest`` (its sort and
/// window apply to the rows), and the columns, groups, having predicate and distinctness,
/// checked against the model.
public struct StoreDictionaryRequest: Sendable {
    /// The entities, predicate, order and window.
    public var fetch: StoreFetchRequest
    package let plan: DictionaryPlan

    package init(fetch: StoreFetchRequest, plan: DictionaryPlan) {
        self.fetch = fetch
        self.plan = plan
    }

    /// The entity whose key paths the columns follow.
    public var entityName: String { plan.entity.name }
    /// The column names, in order.
    public var columnNames: [String] { plan.columns.map(\.name) }
    /// Whether each row is a group.
    public var isGrouped: Bool { plan.isGrouped }

    /// The rows, evaluated in memory over `records` (every record the request's entities and
    /// predicate select, in primary-key order: ``DictionaryPlan/inKeyOrder(_:_:)``), with
    /// related records read from `store` (to-many relationships a record left lazy too).
    package func rows(_ records: [StoreRecord], from store: any PersistentStore) throws(StrataError) -> [DictionaryRow] {
        let evaluator = PredicateEvaluator(GraphAccessor<StoreRecord>(
            entity: { [schema = plan.schema] in schema.entity(named: $0.objectID.entityName)! },
            objectID: { $0.objectID },
            attribute: { $0.attributes[$1] },
            toOne: { (record, key) throws(StrataError) in
                guard let id = record.toOne[key] else { return nil }
                return try store.records(for: [id])[id]
            },
            toMany: { (record, key) throws(StrataError) in
                let ids = record.lazyToMany.contains(key)
                    ? try store.relatedObjectIDs(of: record.objectID, relationship: key) : record.toMany[key] ?? []
                let found = try store.records(for: ids)
                return ids.compactMap { found[$0] }
            }))
        return try rows(records, evaluator: evaluator)
    }

    /// The rows, evaluated in memory over `records` with `evaluator`.
    package func rows(_ records: [StoreRecord], evaluator: PredicateEvaluator<StoreRecord>) throws(StrataError) -> [DictionaryRow] {
        try plan.rows(
            records, evaluator: evaluator, sortDescriptors: fetch.sortDescriptors, offset: fetch.fetchOffset, limit: fetch.fetchLimit)
    }

    /// The fetch of every record the rows are made of: no order, no window.
    public var recordsRequest: StoreFetchRequest {
        var whole = fetch
        whole.sortDescriptors = []
        whole.fetchLimit = 0
        whole.fetchOffset = 0
        return whole
    }
}

extension PersistentStore {
    /// The rows of a dictionary fetch, evaluated in memory over the store's records by the
    /// evaluator every store shares. Stores that can compute them themselves (SQLite, in SQL)
    /// override this.
    public func fetchDictionaries(_ request: StoreDictionaryRequest) throws(StrataError) -> [DictionaryRow] {
        let records = try fetch(request.recordsRequest).sorted { DictionaryPlan.inKeyOrder($0.objectID, $1.objectID) }
        return try request.rows(records, from: self)
    }
}

extension PersistentStore {
    /// The members of a to-many relationship of several objects, asking for each in turn.
    public func relatedObjectIDs(of objectIDs: [ObjectID], relationship: String) throws(StrataError) -> [ObjectID: [ObjectID]] {
        var members: [ObjectID: [ObjectID]] = [:]
        for id in objectIDs { members[id] = try relatedObjectIDs(of: id, relationship: relationship) }
        return members
    }
}
