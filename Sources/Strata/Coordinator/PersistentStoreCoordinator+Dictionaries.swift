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
        if stores.count > 1 {
            logger.debug(
                "evaluating a dictionary fetch in memory: its entities are kept in \(stores.count) stores",
                metadata: ["entities": "\(request.fetch.entityNames.joined(separator: ", "))"])
        }
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

extension PersistentStoreCoordinator {
    /// The saved members of a to-many relationship of several objects, one request per store.
    func relatedObjectIDs(of ids: [ObjectID], relationship: String) throws(StrataError) -> [ObjectID: [ObjectID]] {
        var byStore: [String: [ObjectID]] = [:]
        for id in ids where !id.isTemporary { byStore[id.storeIdentifier ?? "", default: []].append(id) }
        var members: [ObjectID: [ObjectID]] = [:]
        for (identifier, storeIDs) in byStore {
            guard let store = store(withIdentifier: identifier) else { continue }
            members.merge(try store.relatedObjectIDs(of: storeIDs, relationship: relationship)) { $1 }
        }
        return members
    }
}
