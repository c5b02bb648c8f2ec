public import Foundation

extension DataImporter {
    /// Loads data files in one save: what ``add(contentsOf:file:)`` for each file followed by
    /// ``save()`` does, with the same result and the same errors — but into a store that holds
    /// no object yet, each object's row is written as soon as the object is read (a bulk load),
    /// so that neither the objects nor their records are ever held in memory together.
    ///
    /// A bulk load is taken when the coordinator has one store, which can take one
    /// (the SQLite store) and is empty, nothing observes its saves, the context has no changes,
    /// no entity is bound to a `ManagedObject` subclass, and every file is a regular file (one
    /// given up is read again). Relationships are kept as the
    /// `@id`s they name and resolved once every object is read, as ``save()`` resolves them.
    /// Any problem — in the input, a broken rule, a uniqueness constraint — rolls the bulk load
    /// back and does the load again the ordinary way, which reports it; so does a store that
    /// is not empty.
    /// - Parameter files: each file's URL, and its name in diagnostics (by default the path).
    /// - Returns: how many objects of each entity were loaded.
    /// - Throws: what ``add(contentsOf:file:)`` and ``save()`` throw.
    @discardableResult
    public func load(contentsOf files: [(url: URL, name: String?)]) throws(StrataError) -> [String: Int] {
        // A bulk load given up reads its files again: only regular files can be.
        if files.allSatisfy({ Self.isRegularFile($0.url) }), let store = bulkLoadingStore() {
            var counts: [String: Int] = [:]
            let committed = try store.bulkLoad { (session) throws(StrataError) -> Bool in
                stream = Stream(session: session)
                defer { stream = nil }
                for file in files { try add(contentsOf: file.url, file: file.name) }
                if let error = stream?.error { throw error }
                guard let result = try finishStream(session) else { return false }
                counts = result
                return true
            }
            if committed {
                wasStreamed = true
                // Saved: only what places objects in the input stays.
                givens = []
                references = []
                return counts
            }
            forgetEverything()
        }
        for file in files { try add(contentsOf: file.url, file: file.name) }
        return try save()
    }

    private static func isRegularFile(_ url: URL) -> Bool {
        (try? FileIdentity.requireRegularFile(url, role: "data file")) != nil
    }

    /// What a bulk load keeps while the files are read.
    struct Stream {
        let session: any BulkLoadSession
        /// By entity index: the plan of each relationship position (nil until first needed; an
        /// entity the store cannot hold breaks the stream, so never has them).
        var plans: [[BulkRelationshipPlan]?] = []
        /// Set once an object cannot be written (the ordinary load then reports why).
        var isBroken = false
        /// A store's error while writing, thrown once reading is done.
        var error: StrataError?
        var toOneKeys: [Int64?] = []
        var members: [(entity: Int, key: Int64)] = []
        var failures: [ValidationFailure] = []

        init(session: any BulkLoadSession) {
            self.session = session
        }
    }

    /// The coordinator's only store, when a load may go into it as a bulk load.
    private func bulkLoadingStore() -> (any BulkLoadingStore)? {
        guard items.isEmpty, files.isEmpty, diagnostics.isEmpty, !context.hasChanges else { return nil }
        let coordinator = context.coordinator
        let stores = coordinator.stores
        guard stores.count == 1, stores[0].configurationName == nil, let store = stores[0] as? any BulkLoadingStore,
              !coordinator.hasSaveObservers
        else { return nil }
        for entity in schema.entities where ObjectIdentifier(coordinator.objectClass(for: entity.name)) != ObjectIdentifier(ManagedObject.self) {
            return nil
        }
        return store
    }

    /// Writes the row of the item just read at `index` (its values are not kept), unless the
    /// load is broken already: by a problem in the input, a broken attribute rule, or a
    /// relationship the store cannot take.
    func streamItem(_ index: Int, values: AttributeValues, givens range: Range<Int>) {
        guard var stream, !stream.isBroken else { return }
        self.stream = nil
        defer { self.stream = stream }
        guard diagnostics.isEmpty else {
            stream.isBroken = true
            return
        }
        let item = items[index]
        let entity = schema.entities[item.entity]
        stream.failures.removeAll(keepingCapacity: true)
        entity.attributeFailures(of: values, objectID: ObjectID(entityName: entity.name, storeIdentifier: "", primaryKey: item.id), into: &stream.failures)
        guard stream.failures.isEmpty, let plans = plans(of: item.entity, &stream) else {
            stream.isBroken = true
            return
        }
        stream.toOneKeys.removeAll(keepingCapacity: true)
        stream.toOneKeys.append(contentsOf: repeatElement(nil, count: plans.count))
        for given in givens[range] where !given.isNull && given.count == 1 {
            let table = relationshipTables[given.relationship]
            guard !table.isToMany, plans[table.position] == .withRow else { continue }
            stream.toOneKeys[table.position] = references[given.start].id
        }
        do {
            try stream.session.insert(entity: item.entity, key: item.id, values: values, toOneKeys: stream.toOneKeys)
            for index in range { try writeList(given: index, plans, &stream) }
        } catch {
            stream.error = error
            stream.isBroken = true
        }
    }

    /// Writes a to-many list the object just read gives itself, when the store can take it
    /// now: the list the load ends with is exactly that one (a relationship given from both
    /// sides must agree, or the load is done again the ordinary way), so it is not written
    /// again at the end.
    private func writeList(given index: Int, _ plans: [BulkRelationshipPlan], _ stream: inout Stream) throws(StrataError) {
        let given = givens[index]
        let table = relationshipTables[given.relationship]
        guard table.isToMany, !given.isNull, given.count > 0 else { return }
        let plan = plans[table.position]
        guard plan == .afterRows || plan == .afterMemberRows else { return }
        stream.members.removeAll(keepingCapacity: true)
        for reference in references[given.start..<(given.start + given.count)] {
            guard reference.line != 0 else { return }
            if plan == .afterMemberRows {
                // The members' rows are updated: they must be written already.
                guard let member = imported[Key(root: table.destinationRoot, id: reference.id)] else { return }
                stream.members.append((items[member].entity, reference.id))
            } else {
                stream.members.append((-1, reference.id))
            }
        }
        try stream.session.relate(entity: table.entity, key: items[given.source].id, relationship: table.position, members: stream.members)
        givens[index].isWritten = true
    }

    /// The plan of every relationship of an entity, asked of the store once; nil when the store
    /// cannot hold one.
    private func plans(of entity: Int, _ stream: inout Stream) -> [BulkRelationshipPlan]? {
        if stream.plans.count <= entity { stream.plans += Array(repeating: nil, count: entity + 1 - stream.plans.count) }
        if let known = stream.plans[entity] { return known }
        var made: [BulkRelationshipPlan] = []
        for position in schema.entities[entity].relationships.indices {
            guard let plan = stream.session.plan(entity: entity, relationship: position) else { return nil }
            made.append(plan)
        }
        stream.plans[entity] = made
        return made
    }

    /// Once every file is read: resolves the relationships as ``save()`` does, checks their
    /// rules, and writes what the rows do not hold yet. Nil when the load must be done the
    /// ordinary way (a problem that one reports).
    private func finishStream(_ session: any BulkLoadSession) throws(StrataError) -> [String: Int]? {
        guard let stream, !stream.isBroken, diagnostics.isEmpty, !items.isEmpty else { return nil }
        try session.rowsComplete()
        guard let graph = RecordGraph(resolving: self) else { return nil }
        reportProgress(.saving, completed: 0, total: items.count)
        var counts = Array(repeating: 0, count: schema.entities.count)
        // What the loop needs of each relationship, without copying its description per object.
        let relationshipRules = schema.entities.map { entity in
            entity.relationships.map { relationship in
                (isToMany: relationship.isToMany, isOptional: relationship.isOptional,
                 isCounted: relationship.minCount > 0 || relationship.maxCount > 0)
            }
        }
        var members: [(entity: Int, key: Int64)] = []
        var written: [Bool] = []
        var nextGiven = 0
        for (index, item) in items.enumerated() {
            let entity = schema.entities[item.entity]
            counts[item.entity] += 1
            // Every entity read has its plans (an object of one without them broke the stream).
            guard let plans = stream.plans[item.entity] else { return nil }
            // The to-ones this object gave itself were written with its row, and the lists it
            // gave as it was read (the graph agrees with what it gave, or it would be nil).
            written.removeAll(keepingCapacity: true)
            written.append(contentsOf: repeatElement(false, count: plans.count))
            while nextGiven < givens.count, givens[nextGiven].source == index {
                let given = givens[nextGiven]
                nextGiven += 1
                let table = relationshipTables[given.relationship]
                guard !given.isNull else { continue }
                if table.isToMany {
                    if given.isWritten { written[table.position] = true }
                } else {
                    written[table.position] = plans[table.position] == .withRow
                }
            }
            let start = Int(graph.start[index])
            let rules = relationshipRules[item.entity]
            for position in rules.indices {
                let slot = Int(graph.slots[start + position])
                members.removeAll(keepingCapacity: true)
                let rule = rules[position]
                if rule.isToMany {
                    if slot >= 0 {
                        for member in graph.lists[slot] { members.append((items[Int(member)].entity, items[Int(member)].id)) }
                    }
                    if rule.isCounted {
                        let relationship = entity.relationships[position]
                        guard EntityDescription.countFailure(of: relationship, count: members.count, objectID: ObjectID(entityName: entity.name, storeIdentifier: "", primaryKey: item.id)) == nil else { return nil }
                    }
                } else if slot >= 0 {
                    members.append((items[slot].entity, items[slot].id))
                } else if !rule.isOptional {
                    return nil
                }
                guard plans[position] != .byInverse, !written[position], !members.isEmpty else { continue }
                try session.relate(entity: item.entity, key: item.id, relationship: position, members: members)
            }
        }
        guard try session.finish() else { return nil }
        var byName: [String: Int] = [:]
        for (entity, count) in counts.enumerated() where count > 0 { byName[schema.entities[entity].name] = count }
        return byName
    }

    /// Forgets every file read, to read them again the ordinary way.
    private func forgetEverything() {
        items = []
        imported = [:]
        givens = []
        references = []
        diagnostics = []
        files = []
        itemsByObject = nil
    }
}
