extension DataImporter {
    /// Resolves every relationship, checks that both sides agree and that no @id is taken in
    /// the store already.
    /// - Returns: how many objects of each entity were loaded.
    /// - Throws: `invalidData` listing every problem, each with its file, line and column.
    @discardableResult
    public func finish() throws(StrataError) -> [String: Int] {
        try finish(stored: nil)
    }

    /// ``finish()``, with the stored keys ``storedKeys()`` found already (nil: look them up).
    func finish(stored known: [Key: ObjectID]?) throws(StrataError) -> [String: Int] {
        makeObjects()
        let stored: [Key: ObjectID]
        if let known { stored = known } else { stored = try storedKeys() }
        for item in items where !stored.isEmpty && stored[key(of: item)] != nil {
            report("\(schema.entities[item.entity].name) @id \(item.id) already exists in the store", file: item.file, path: path(of: item) + ".@id", location: item.idLocation)
        }
        let checked = relationshipsToCheck()
        var expectations: [(given: Int, expected: [ObjectID])] = []
        for (index, given) in givens.enumerated() {
            if index & 4095 == 0 { reportProgress(.resolving, completed: index, total: givens.count) }
            let table = relationshipTables[given.relationship]
            let relationship = table.relationship
            // An item whose object could not be made was reported by makeObjects().
            guard let source = items[given.source].object else { continue }
            if given.isNull {
                if checked[given.relationship] { expectations.append((index, [])) }
                continue
            }
            if relationship.isToMany {
                var members: [ManagedObject] = []
                // A few members are compared in a list, many in a set.
                var ids: [Int64] = []
                var idSet: Set<Int64> = []
                for offset in 0..<given.count {
                    let reference = references[given.start + offset]
                    guard reference.line != 0,
                          let destination = resolve(reference, table, given, stored: stored, path: path(of: given) + "[\(offset)]")
                    else { continue }
                    let isNew = given.count <= 16 ? !ids.contains(reference.id) : idSet.insert(reference.id).inserted
                    guard isNew else {
                        report("@id \(reference.id) appears twice in '\(relationship.name)'", file: items[given.source].file, path: path(of: given) + "[\(offset)]", location: reference.location)
                        continue
                    }
                    if given.count <= 16 { ids.append(reference.id) }
                    members.append(destination)
                }
                for destination in members { context.addToMany(source, relationship, destination) }
                if checked[given.relationship] { expectations.append((index, members.map(\.objectID))) }
            } else {
                guard let destination = resolve(references[given.start], table, given, stored: stored, path: path(of: given)) else { continue }
                context.setToOne(source, relationship, destination)
                if checked[given.relationship] { expectations.append((index, [destination.objectID])) }
            }
        }
        reportProgress(.resolving, completed: givens.count, total: givens.count)
        // A relationship given from both sides must agree.
        for (index, expected) in expectations {
            let given = givens[index]
            let item = items[given.source]
            let relationship = relationshipTables[given.relationship].relationship
            let actual: [ObjectID]
            switch item.object?.propertyValue(forKey: relationship.name) {
            case .toMany(let ids): actual = ids
            case .toOne(let id): actual = id.map { [$0] } ?? []
            case .attribute, nil: actual = []
            }
            let agrees = relationship.isOrdered ? actual == expected : Set(actual) == Set(expected)
            if !agrees {
                report("'\(relationship.name)' of \(schema.entities[item.entity].name) @id \(item.id) is \(describe(expected)) here, but the other side of the relationship makes it \(describe(actual)); give it from one side only, or make both sides agree",
                       file: item.file, path: path(of: given), location: given.location)
            }
        }
        if !diagnostics.isEmpty {
            let sorted = diagnostics.enumerated().sorted { lhs, rhs in
                (lhs.element.file ?? "", lhs.element.line ?? 0, lhs.element.column ?? 0, lhs.offset)
                    < (rhs.element.file ?? "", rhs.element.line ?? 0, rhs.element.column ?? 0, rhs.offset)
            }.map(\.element)
            throw StrataError(.invalidData, "the data has \(sorted.count) error\(sorted.count == 1 ? "" : "s"); nothing was loaded", diagnostics: sorted)
        }
        var counts: [String: Int] = [:]
        for item in items { counts[schema.entities[item.entity].name, default: 0] += 1 }
        return counts
    }

    /// Inserts an object into the context for every item that has none yet, with the
    /// attributes the input gives (the others keep the defaults `awakeFromInsert` sees).
    func makeObjects() {
        for index in items.indices where items[index].object == nil {
            let item = items[index]
            let object: ManagedObject
            do {
                object = try context.insertObject(entityName: schema.entities[item.entity].name, primaryKey: item.id)
            } catch {
                report(error.message, file: item.file, path: path(of: item), location: item.location)
                continue
            }
            for position in item.given.positions { context.setAttribute(object, position: position, item.values[position: position]) }
            items[index].object = object
        }
    }

    func key(of item: Item) -> Key {
        Key(root: entityRoots[item.entity], id: item.id)
    }

    /// By relationship table: whether its members must be compared with what the load made of
    /// them. Only the other side can change them — an inverse that is to-one (setting it takes
    /// the object from its old owner) or an inverse given in the data too — so a relationship
    /// whose inverse is to-many and given nowhere always ends as given.
    func relationshipsToCheck() -> [Bool] {
        var given: Set<String> = []
        for index in Set(givens.map(\.relationship)) {
            let table = relationshipTables[index]
            given.insert("\(entityRoots[table.entity]).\(table.relationship.name)")
        }
        return relationshipTables.map { table in
            guard let inverseName = table.relationship.inverse, let inverse = table.destination?.relationship(named: inverseName),
                  inverse.isToMany else { return true }
            return given.contains("\(table.destinationRoot).\(inverseName)")
        }
    }

    // MARK: - References

    /// The stored objects among the imported and referenced keys, found with one lookup per
    /// store; a hierarchy with no stored object at all is not looked up.
    func storedKeys() throws(StrataError) -> [Key: ObjectID] {
        // Hierarchies with stored objects first: into a new store, no key is looked up at all.
        var roots = Set(items.map { entityRoots[$0.entity] })
        for given in givens where given.count > 0 { roots.insert(relationshipTables[given.relationship].destinationRoot) }
        var entitiesByRoot: [Int: [EntityDescription]] = [:]
        for root in roots {
            let entities = schema.entityAndDescendants(of: rootNames[root]).filter { entity in
                !entity.isAbstract && (try? context.coordinator.store(forEntity: entity.name)) != nil
            }
            if !entities.isEmpty, try context.coordinator.countRecords(StoreFetchRequest(entityNames: entities.map(\.name))) > 0 {
                entitiesByRoot[root] = entities
            }
        }
        guard !entitiesByRoot.isEmpty else { return [:] }
        var keys: [Int: Set<Int64>] = [:]
        for item in items where entitiesByRoot[entityRoots[item.entity]] != nil {
            keys[entityRoots[item.entity], default: []].insert(item.id)
        }
        for given in givens {
            let root = relationshipTables[given.relationship].destinationRoot
            guard entitiesByRoot[root] != nil else { continue }
            for reference in references[given.start..<(given.start + given.count)] where reference.line != 0 {
                if imported[Key(root: root, id: reference.id)] == nil { keys[root, default: []].insert(reference.id) }
            }
        }
        var found: [Key: ObjectID] = [:]
        for (root, ids) in keys {
            let entities = entitiesByRoot[root]!
            var candidates: [ObjectID: Int64] = [:]
            for entity in entities {
                for id in ids {
                    guard let objectID = try? context.coordinator.objectID(entityName: entity.name, primaryKey: id) else { continue }
                    candidates[objectID] = id
                }
            }
            var byStore: [String: [ObjectID]] = [:]
            for id in candidates.keys { byStore[id.storeIdentifier ?? "", default: []].append(id) }
            for (storeIdentifier, objectIDs) in byStore {
                guard let store = context.coordinator.store(withIdentifier: storeIdentifier) else { continue }
                for id in try store.records(for: objectIDs).keys { found[Key(root: root, id: candidates[id]!)] = id }
            }
        }
        return found
    }

    private func resolve(_ reference: Reference, _ table: RelationshipTable, _ given: Given, stored: [Key: ObjectID], path: String) -> ManagedObject? {
        let relationship = table.relationship
        let file = items[given.source].file
        guard let destination = table.destination else { return nil }
        let key = Key(root: table.destinationRoot, id: reference.id)
        if let index = imported[key] {
            guard table.accepts[items[index].entity] else {
                report("'\(relationship.name)' needs a \(destination.name), but @id \(reference.id) is a \(schema.entities[items[index].entity].name)", file: file, path: path, location: reference.location)
                return nil
            }
            return items[index].object
        }
        guard let storedID = stored[key] else {
            report("'\(relationship.name)' refers to \(relationship.destination) @id \(reference.id), which is neither in the data nor in the store", file: file, path: path, location: reference.location)
            return nil
        }
        let object = context.object(with: storedID)
        guard object.entity.name == destination.name || object.entity.ancestorNames.contains(destination.name) else {
            report("'\(relationship.name)' needs a \(destination.name), but @id \(reference.id) is a \(object.entity.name)", file: file, path: path, location: reference.location)
            return nil
        }
        return object
    }

    private func describe(_ ids: [ObjectID]) -> String {
        let keys = ids.map { id -> String in
            if let item = item(for: id) { return String(item.id) }
            return id.primaryKey.map(String.init) ?? "?"
        }
        return "[" + keys.joined(separator: ", ") + "]"
    }
}
