extension DataImporter {
    /// Resolves, checks and saves the whole load in one save: what ``finish()`` followed by the
    /// context's `save()` does, with the same result and the same errors.
    ///
    /// A load that touches nothing stored — no `@id` of the input is stored already and no
    /// reference names a stored object — is written straight to the stores as records, never
    /// made into objects (like Core Data's batch insert, but with every rule of a save checked:
    /// attribute rules, relationship counts, uniqueness). The context then holds none of the
    /// loaded objects; fetch them like any stored object. A load that does touch stored objects,
    /// input with any problem (the context path reports it exactly), a context with other
    /// changes, or entities bound to `ManagedObject` subclasses (whose `awakeFromInsert` and
    /// `willSave` must run) go through the context.
    /// - Returns: how many objects of each entity were loaded.
    /// - Throws: `invalidData` listing every problem of the input, each with its file, line and
    ///   column; `validationFailed` with every rule the objects break (``describe(_:)`` and
    ///   ``sortedByInput(_:)`` place each in the input); a store's error. Nothing is saved then.
    @discardableResult
    public func save() throws(StrataError) -> [String: Int] {
        var stored: [Key: ObjectID]?
        if let storeIdentifiers = recordPathStores() {
            let found = try storedKeys()
            if found.isEmpty, let counts = try saveAsRecords(storeIdentifiers) { return counts }
            stored = found
        }
        let counts = try finish(stored: stored)
        reportProgress(.saving, completed: 0, total: items.count)
        try context.save()
        return counts
    }

    /// By entity, the identifier of the store of its objects' IDs, when the load may be saved
    /// as records: input without problems, no object made yet, a context without other changes
    /// and no entity bound to a `ManagedObject` subclass. Nil otherwise.
    private func recordPathStores() -> [String?]? {
        guard !items.isEmpty, diagnostics.isEmpty, !items.contains(where: { $0.object != nil }), !context.hasChanges else { return nil }
        let coordinator = context.coordinator
        var storeIdentifiers: [String?] = Array(repeating: nil, count: schema.entities.count)
        for entity in entityTables.indices where entityTables[entity] != nil {
            let description = schema.entities[entity]
            guard ObjectIdentifier(coordinator.objectClass(for: description.name)) == ObjectIdentifier(ManagedObject.self),
                  let store = try? coordinator.store(forEntity: description.rootName)
            else { return nil }
            storeIdentifiers[entity] = store.storeIdentifier
        }
        return storeIdentifiers
    }

    /// Saves a load that touches nothing stored as records; nil when it must go through the
    /// context after all (a problem in its relationships, which the context path reports). Once
    /// saved, the importer keeps only what places objects in the input; a save that fails (a
    /// broken rule, a store's error) leaves the whole load, to be saved again as a failed
    /// context save leaves the context's changes.
    private func saveAsRecords(_ storeIdentifiers: [String?]) throws(StrataError) -> [String: Int]? {
        guard var graph = RecordGraph(resolving: self) else { return nil }
        let coordinator = context.coordinator
        reportProgress(.saving, completed: 0, total: items.count)
        var ids: [ObjectID] = []
        ids.reserveCapacity(items.count)
        for item in items {
            ids.append(ObjectID(entityName: schema.entities[item.entity].name, storeIdentifier: storeIdentifiers[item.entity]!, primaryKey: item.id))
        }
        var failures: [ValidationFailure] = []
        var records: [StoreRecord] = []
        records.reserveCapacity(items.count)
        var counts: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let entity = schema.entities[item.entity]
            let objectID = ids[index]
            entity.attributeFailures(of: item.values, objectID: objectID, into: &failures)
            var record = StoreRecord(objectID: objectID, attributes: item.values)
            for position in entity.transientAttributePositions { record.attributes[position: position] = nil }
            let start = Int(graph.start[index])
            for (position, relationship) in entity.relationships.enumerated() {
                let slot = Int(graph.slots[start + position])
                if relationship.isToMany {
                    let members = slot < 0 ? [] : graph.lists[slot]
                    if let failure = EntityDescription.countFailure(of: relationship, count: members.count, objectID: objectID) {
                        failures.append(failure)
                    }
                    if !members.isEmpty { record.toMany[relationship.name] = members.map { ids[Int($0)] } }
                } else if slot >= 0 {
                    record.toOne[relationship.name] = ids[slot]
                } else if !relationship.isOptional {
                    failures.append(EntityDescription.missingDestination(of: relationship, objectID: objectID))
                }
            }
            records.append(record)
            counts[entity.name, default: 0] += 1
        }
        graph = RecordGraph()
        ids = []
        // Every save's store checks uniqueness; checked first only to report it with other failures.
        if !failures.isEmpty {
            failures += try coordinator.uniquenessViolations(
                PersistentStoreCoordinator.Changes(inserted: records.map { ($0, $0.objectID.primaryKey) }, updated: [], deleted: []))
            throw StrataError.saveRefused(failures)
        }
        do {
            _ = try coordinator.insert(records, from: context.identifier)
        } catch where error.code == .validationFailed && !error.failures.isEmpty {
            throw StrataError.saveRefused(error.failures)
        }
        // Saved: the relationships are stored (what places objects in the input stays).
        givens = []
        references = []
        return counts
    }

    /// The relationships of a load as indexes of its items, built by the operations the context
    /// would run (``finish()``: each relationship given, in input order, with its inverse kept)
    /// — as long as none of them would take an object from another or break a rule. Any such
    /// case, and any reference that does not resolve, makes the graph nil: the context path
    /// then does the load and reports exactly what is wrong.
    struct RecordGraph {
        /// By item: where its relationships start in ``slots``.
        var start: [Int32] = []
        /// By item and relationship position: a to-one's destination item, a to-many's list in
        /// ``lists``, or -1 for none.
        var slots: [Int32] = []
        var lists: [[Int32]] = []
        /// The members of lists whose relationship is given from both sides, as sets.
        private var memberSets: [Int: Set<Int32>] = [:]

        init() {}

        /// What ``finish()`` needs to know of a relationship table, by position.
        private struct Link {
            var position: Int
            var inversePosition: Int?
            var inverseIsToMany: Bool
            /// Whether what the input gives must be compared with what the load makes of it.
            var isChecked: Bool
            var isOrdered: Bool
        }

        init?(resolving importer: DataImporter) {
            let schema = importer.schema
            start.reserveCapacity(importer.items.count)
            var count = 0
            for item in importer.items {
                start.append(Int32(count))
                count += schema.entities[item.entity].relationships.count
            }
            slots = Array(repeating: -1, count: count)
            let checked = importer.relationshipsToCheck()
            let links = importer.relationshipTables.enumerated().map { index, table -> Link? in
                let entity = schema.entities[table.entity]
                guard let position = entity.relationshipPosition(of: table.relationship.name) else { return nil }
                let inversePosition = entity.inversePosition(ofRelationshipAt: position)
                let inverseIsToMany = inversePosition.map { table.destination?.relationships[$0].isToMany ?? false } ?? false
                return Link(position: position, inversePosition: inversePosition, inverseIsToMany: inverseIsToMany,
                            isChecked: checked[index], isOrdered: table.relationship.isOrdered)
            }
            var expectations: [(given: Int, members: [Int32])] = []
            for (index, given) in importer.givens.enumerated() {
                if index & 4095 == 0 { importer.reportProgress(.resolving, completed: index, total: importer.givens.count) }
                guard let link = links[given.relationship] else { return nil }
                let source = Int32(given.source)
                if given.isNull {
                    if link.isChecked { expectations.append((index, [])) }
                    continue
                }
                var members: [Int32] = []
                members.reserveCapacity(given.count)
                for offset in 0..<given.count {
                    guard let member = Self.resolve(importer.references[given.start + offset], importer.relationshipTables[given.relationship], importer) else { return nil }
                    members.append(member)
                }
                if importer.relationshipTables[given.relationship].isToMany {
                    guard Self.areDistinct(members) else { return nil }
                    for member in members {
                        guard add(member, to: source, link) else { return nil }
                    }
                } else {
                    guard set(members[0], of: source, link) else { return nil }
                }
                if link.isChecked { expectations.append((index, members)) }
            }
            importer.reportProgress(.resolving, completed: importer.givens.count, total: importer.givens.count)
            // A relationship given from both sides must agree; if not, the context path says where.
            for (index, expected) in expectations {
                let given = importer.givens[index]
                guard let link = links[given.relationship] else { return nil }
                let slot = Int(slots[Int(start[given.source]) + link.position])
                let actual: [Int32]
                if importer.relationshipTables[given.relationship].isToMany {
                    actual = slot < 0 ? [] : lists[slot]
                } else {
                    actual = slot < 0 ? [] : [Int32(slot)]
                }
                let agrees = link.isOrdered ? actual == expected : actual.count == expected.count && Set(actual) == Set(expected)
                guard agrees else { return nil }
            }
        }

        /// The item a reference names, if it is one of the input's of an entity the relationship takes.
        private static func resolve(_ reference: Reference, _ table: RelationshipTable, _ importer: DataImporter) -> Int32? {
            guard reference.line != 0, let index = importer.imported[Key(root: table.destinationRoot, id: reference.id)],
                  table.accepts[importer.items[index].entity]
            else { return nil }
            return Int32(index)
        }

        private static func areDistinct(_ members: [Int32]) -> Bool {
            if members.count <= 16 {
                for index in members.indices where members[..<index].contains(members[index]) { return false }
                return true
            }
            return Set(members).count == members.count
        }

        /// Sets a to-one relationship of `source` (empty so far, or already `destination`) and
        /// its inverse; false when either side already holds another object.
        private mutating func set(_ destination: Int32, of source: Int32, _ link: Link) -> Bool {
            let slot = Int(start[Int(source)]) + link.position
            if slots[slot] == destination { return true }
            guard slots[slot] < 0 else { return false }
            slots[slot] = destination
            guard let inversePosition = link.inversePosition else { return true }
            let inverse = Int(start[Int(destination)]) + inversePosition
            if link.inverseIsToMany {
                append(source, at: inverse)
            } else if slots[inverse] != source {
                guard slots[inverse] < 0 else { return false }
                slots[inverse] = source
            }
            return true
        }

        /// Adds `member` to a to-many relationship of `source` and keeps its inverse; false when
        /// the member belongs to another object through a to-one inverse.
        private mutating func add(_ member: Int32, to source: Int32, _ link: Link) -> Bool {
            let slot = Int(start[Int(source)]) + link.position
            if let inversePosition = link.inversePosition {
                let inverse = Int(start[Int(member)]) + inversePosition
                if !link.inverseIsToMany {
                    // Linked already from the member's side: it is in the list.
                    if slots[inverse] == source { return true }
                    guard slots[inverse] < 0 else { return false }
                    slots[inverse] = source
                } else {
                    // Many-to-many given from both sides: the pair may be linked already.
                    if link.isChecked, contains(member, at: slot) { return true }
                    // An object in its own relationship that is its own inverse is one member.
                    if inverse != slot { append(source, at: inverse) }
                }
            }
            append(member, at: slot)
            return true
        }

        private mutating func append(_ member: Int32, at slot: Int) {
            var list = Int(slots[slot])
            if list < 0 {
                list = lists.count
                lists.append([])
                slots[slot] = Int32(list)
            }
            lists[list].append(member)
            if memberSets[list] != nil { memberSets[list]!.insert(member) }
        }

        private mutating func contains(_ member: Int32, at slot: Int) -> Bool {
            let list = Int(slots[slot])
            guard list >= 0 else { return false }
            if lists[list].count <= 16 { return lists[list].contains(member) }
            if memberSets[list] == nil { memberSets[list] = Set(lists[list]) }
            return memberSets[list]!.contains(member)
        }
    }
}
