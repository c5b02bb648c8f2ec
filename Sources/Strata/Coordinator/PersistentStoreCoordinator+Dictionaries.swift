extension PersistentStoreCoordinator {
    /// The rows of a dictionary fetch: from the one store that holds its entities, or, when
    /// they are spread over stores, evaluated here over the records of each.
    func fetchDictionaries(_ request: StoreDictionaryRequest) throws(StrataError) -> [DictionaryRow] {
        var stores: [any PersistentStore] = []
        for name in request.fetch.entityNames {
            let store = try store(forEntity: name)
            if !stores.contains(where: { $0 === store }) { stores.append(store) }
        }
        if stores.count == 1 { return try stores[0].fetchDictionaries(request) }
        var records: [StoreRecord] = []
        for store in stores {
            var part = request.recordsRequest
            part.entityNames = request.fetch.entityNames.filter { name in (try? self.store(forEntity: name)) === store }
            records += try store.fetch(part)
        }
        records.sort { DictionaryPlan.inKeyOrder($0.objectID, $1.objectID) }
        return try request.rows(records, evaluator: recordEvaluator())
    }
}
