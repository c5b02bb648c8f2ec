/// Batch updates and deletes on an atomic store: one pass over the records under the store's
/// write lock (and the file's, rebasing onto another process's save as any save does), checked
/// as a save is, then one write of the file.
extension AtomicStore: ComputesBatchUpdates {
    public func executeBatch(_ request: StoreBatchRequest) throws(StrataError) -> StoreBatchOutcome? {
        // Nothing matches in what this store holds: nothing to write (a fetch answers from the
        // same records).
        guard try !Self.matching(request.fetch, in: snapshot, schema: schema).isEmpty else { return StoreBatchOutcome(matched: []) }
        return try readModifyWrite { base, rebasing throws(StrataError) in
            let matches = try Self.matching(request.fetch, in: base, schema: schema)
            switch request.operation {
            case .update(let values):
                var computed: [ObjectID: [String: AttributeValue?]] = [:]
                if let expressions = request.computed {
                    computed = try BatchExpressions.values(try expressions.rows(matches, evaluator: Self.evaluator(base, schema)), entity: expressions.plan.entity)
                }
                let changes = BatchExecution.updating(matches, with: values, computed: computed)
                let applied = try Self.apply(changes, to: base, allocated: [:], schema: schema, rebasing: rebasing)
                return (applied.contents, StoreBatchOutcome(matched: changes.updated.map(\.objectID)))
            case .delete:
                let plan = try BatchDeletePlan(
                    matched: matches.map(\.objectID), schema: schema,
                    fetchIDs: { (request) throws(StrataError) in try Self.matching(request, in: base, schema: schema).map(\.objectID) }
                ) { ids in
                    var records: [ObjectID: StoreRecord] = [:]
                    for id in ids { records[id] = base.record(id) }
                    return records
                }
                var next = base
                let outcome = try BatchExecution.carryOut(plan) { (changes) throws(StrataError) in
                    let applied = try Self.apply(changes, to: base, allocated: [:], schema: schema, rebasing: rebasing)
                    next = applied.contents
                    return applied.result.versions
                }
                return (next, outcome)
            }
        }
    }
}
