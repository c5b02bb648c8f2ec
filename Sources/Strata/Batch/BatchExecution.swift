/// Batch updates and deletes on any store, through its ``PersistentStore/fetch(_:)`` and
/// ``PersistentStore/save(_:beforeCommit:)``: the matching records are read, the change is
/// worked out over them, and one changeset saves it all-or-nothing with versions checked. Stores
/// with a way of their own (``PersistentStore/executeBatch(_:)``) use the same pieces.
package enum BatchExecution {
    /// How many times a request is worked out again when another save changed one of the
    /// records it read before it committed (the store then refuses its changeset with a merge
    /// conflict, and nothing was written).
    static let attempts = 3

    /// Runs `request` on `store`, reading and saving through the protocol.
    package static func execute(_ request: StoreBatchRequest, on store: any PersistentStore, schema: Schema) throws(StrataError) -> StoreBatchOutcome {
        try retryingConflicts { () throws(StrataError) in
            switch request.operation {
            case .update(let values):
                let records = try store.fetch(request.fetch)
                var computed: [ObjectID: [String: AttributeValue?]] = [:]
                if let expressions = request.computed {
                    let rows = try expressions.rows(records.sorted { DictionaryPlan.inKeyOrder($0.objectID, $1.objectID) }, from: store)
                    computed = try BatchExpressions.values(rows, entity: expressions.plan.entity)
                }
                let changes = updating(records, with: values, computed: computed)
                _ = try store.saveChanges(changes)
                return StoreBatchOutcome(matched: changes.updated.map(\.objectID))
            case .delete:
                let plan = try BatchDeletePlan(
                    matched: try store.fetchObjectIDs(request.fetch), schema: schema, fetchIDs: { (request) throws(StrataError) in try store.fetchObjectIDs(request) }
                ) { (ids) throws(StrataError) in
                    try store.wholeRecords(for: ids)
                }
                return try carryOut(plan) { (changes) throws(StrataError) in try store.saveChanges(changes).versions }
            }
        }
    }

    /// Runs `body` again, up to ``attempts`` times, while it fails with a merge conflict.
    package static func retryingConflicts<T>(_ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch where error.code == .mergeConflict && attempt < attempts {
                attempt += 1
            }
        }
    }

    /// The changeset that sets `values` on each of `records` (in primary-key order), writing
    /// only those attributes.
    package static func updating(
        _ records: [StoreRecord], with values: [String: AttributeValue?], computed: [ObjectID: [String: AttributeValue?]] = [:]
    ) -> StoreChangeset {
        var updated = records.sorted { $0.objectID < $1.objectID }
        var keys = Set(values.keys)
        for index in updated.indices {
            for (name, value) in values { updated[index].attributes[name] = value }
            for (name, value) in computed[updated[index].objectID] ?? [:] {
                updated[index].attributes[name] = value
                keys.insert(name)
            }
        }
        var changes = StoreChangeset(updated: updated)
        changes.changedKeys = Array(repeating: keys, count: updated.count)
        return changes
    }

    /// Refuses a plan that breaks a rule; else saves its changeset with `save` and says what
    /// it did.
    package static func carryOut(_ plan: BatchDeletePlan, save: (StoreChangeset) throws(StrataError) -> [ObjectID: Int64]) throws(StrataError) -> StoreBatchOutcome {
        guard plan.failures.isEmpty else { throw StrataError.saveRefused(plan.failures) }
        let versions = plan.deleted.isEmpty ? [:] : try save(plan.changeset)
        var outcome = StoreBatchOutcome(matched: plan.matched, cascaded: plan.deleted.dropFirst(plan.matched.count).map(\.objectID), versions: versions)
        for (index, record) in plan.updated.enumerated() {
            var saved = record
            saved.version = versions[record.objectID] ?? record.version
            outcome.records[record.objectID] = saved
            outcome.changedKeys[record.objectID] = plan.changedKeys[index]
        }
        return outcome
    }
}

extension PersistentStore {
    /// The records of these objects with every to-many relationship's members loaded (none
    /// left lazy); IDs the store does not hold are left out.
    package func wholeRecords(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        var records = try records(for: objectIDs)
        for (id, record) in records where !record.lazyToMany.isEmpty {
            var whole = record
            for name in record.lazyToMany {
                whole.toMany[name] = try relatedObjectIDs(of: id, relationship: name)
            }
            whole.lazyToMany = []
            records[id] = whole
        }
        return records
    }
}
