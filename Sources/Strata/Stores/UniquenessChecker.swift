/// Checks uniqueness constraints over the records of an atomic store.
///
/// A constraint declared on an entity covers it and its subentities. Values compare as Swift
/// values do (canonically equivalent strings are equal); a combination with a nil member never
/// conflicts, as in SQL.
enum UniquenessChecker {
    static func violations(in contents: AtomicStoreContents, schema: Schema, checking changed: [ObjectID]) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        forEachDuplicate(in: contents, schema: schema, checking: changed) { id, other, _, constraint in
            failures.append(.notUnique(id, other, constraint))
        }
        return failures
    }

    /// Calls `body` for each object of `changed` whose values under a constraint are those of
    /// another object (`other`, an unchanged one when there is one): the object, the other,
    /// the entity that declares the constraint and the constraint.
    static func forEachDuplicate(
        in contents: AtomicStoreContents, schema: Schema, checking changed: [ObjectID],
        _ body: (_ id: ObjectID, _ other: ObjectID, _ owner: String, _ constraint: [String]) -> Void
    ) {
        let changedEntities = Set(changed.map(\.entityName))
        // The changed objects the contents hold, by entity: made only when there are
        // duplicates (a save of objects that break no constraint never needs them).
        var changedSet: Set<ObjectID> = []
        var changedByEntity: [String: [ObjectID]] = [:]
        var grouped = false
        for owner in schema.entities where !owner.uniquenessConstraints.isEmpty {
            let covered = schema.entityAndDescendants(of: owner.name).map(\.name)
            guard covered.contains(where: changedEntities.contains) else { continue }
            for constraint in owner.uniquenessConstraints where hasDuplicates(in: contents, covered, constraint) {
                if !grouped {
                    changedSet = Set(changed)
                    for id in changedSet where contents.contains(id) { changedByEntity[id.entityName, default: []].append(id) }
                    grouped = true
                }
                // The changed objects of these entities in ID order: each is reported against
                // the first object (by ID) with its values, an unchanged one when there is
                // one, so that a conflict is reported on the changed object.
                let changedHere = covered.flatMap { changedByEntity[$0] ?? [] }.sorted()
                var seen: [[UniqueValue]: ObjectID] = [:]
                for entity in covered {
                    // An entity whose every record changed has none to read first.
                    guard let records = contents.records[entity], records.count != changedByEntity[entity]?.count else { continue }
                    for index in records.indices where !changedSet.contains(records.keys[index]) {
                        guard let key = key(of: records.values[index], constraint) else { continue }
                        let id = records.keys[index]
                        if let other = seen[key], other < id { continue }
                        seen[key] = id
                    }
                }
                seen.reserveCapacity(seen.count + changedHere.count)
                for id in changedHere {
                    guard let key = key(of: contents.records[id.entityName]![id]!, constraint) else { continue }
                    if let other = seen[key] {
                        body(id, other, owner.name, constraint)
                    } else {
                        seen[key] = id
                    }
                }
            }
        }
    }

    /// Whether two records of `entities` have the same values under `constraint` (changed or
    /// not): one pass with no sorting, to skip the exact search when there are none.
    private static func hasDuplicates(in contents: AtomicStoreContents, _ entities: [String], _ constraint: [String]) -> Bool {
        var probe = DuplicateProbe(constraint, capacity: entities.reduce(0) { $0 + (contents.records[$1]?.count ?? 0) })
        for entity in entities {
            for record in contents.records[entity]?.values ?? [:].values where probe.isDuplicate(record) { return true }
        }
        return false
    }

    /// Records' values under one constraint, to find whether two have the same.
    private struct DuplicateProbe {
        let constraint: [String]
        /// One value per record: no array of values to make for each.
        var single: Set<UniqueValue> = []
        var several: Set<[UniqueValue]> = []

        init(_ constraint: [String], capacity: Int) {
            self.constraint = constraint
            if constraint.count == 1 { single.reserveCapacity(capacity) } else { several.reserveCapacity(capacity) }
        }

        /// Whether a record seen before has the values of `record` (nil values never conflict).
        mutating func isDuplicate(_ record: StoreRecord) -> Bool {
            guard constraint.count == 1 else {
                guard let key = UniquenessChecker.key(of: record, constraint) else { return false }
                return !several.insert(key).inserted
            }
            if let attribute = record.attributes[constraint[0]] { return !single.insert(.attribute(attribute)).inserted }
            if let id = record.toOne[constraint[0]] { return !single.insert(.object(id)).inserted }
            return false
        }
    }

    /// The violations a save of `changes` into `contents` would bring, as
    /// ``violations(in:schema:checking:)`` finds them in the contents after the save, without
    /// making those contents unless some records have the same values: a save that breaks no
    /// constraint (nearly every one) reads each record of the constrained entities once.
    static func violations(of changes: StoreChangeset, in contents: AtomicStoreContents, schema: Schema) -> [ValidationFailure] {
        let changedEntities = Set(changes.inserted.map(\.objectID.entityName) + changes.updated.map(\.objectID.entityName))
        // The stored records the save replaces or removes, made only when it has any.
        var replaced: Set<ObjectID>?
        func isReplaced(_ id: ObjectID) -> Bool {
            if replaced == nil {
                replaced = Set(changes.inserted.map(\.objectID) + changes.updated.map(\.objectID) + changes.deleted.map(\.objectID))
            }
            return replaced!.contains(id)
        }
        func hasDuplicates(_ covered: [String], _ constraint: [String]) -> Bool {
            let coveredSet = Set(covered)
            var probe = DuplicateProbe(constraint, capacity: covered.reduce(changes.inserted.count) { $0 + (contents.records[$1]?.count ?? 0) })
            for entity in covered {
                for record in contents.records[entity]?.values ?? [:].values where !isReplaced(record.objectID) {
                    if probe.isDuplicate(record) { return true }
                }
            }
            for records in [changes.updated, changes.inserted] {
                // By index: the records are read in place, not copied.
                for index in records.indices where coveredSet.contains(records[index].objectID.entityName) {
                    if probe.isDuplicate(records[index]) { return true }
                }
            }
            return false
        }
        let any = schema.entities.contains { owner in
            guard !owner.uniquenessConstraints.isEmpty else { return false }
            let covered = schema.entityAndDescendants(of: owner.name).map(\.name)
            return covered.contains(where: changedEntities.contains)
                && owner.uniquenessConstraints.contains { hasDuplicates(covered, $0) }
        }
        guard any else { return [] }
        var next = contents
        for (id, _) in changes.deleted { next.records[id.entityName]?[id] = nil }
        for record in changes.updated + changes.inserted {
            next.records[record.objectID.entityName, default: [:]][record.objectID] = record
        }
        return violations(in: next, schema: schema, checking: changes.inserted.map(\.objectID) + changes.updated.map(\.objectID))
    }

    enum UniqueValue: Hashable {
        case attribute(AttributeValue)
        case object(ObjectID)
    }

    static func key(of record: StoreRecord, _ constraint: [String]) -> [UniqueValue]? {
        var key: [UniqueValue] = []
        for name in constraint {
            if let value = record.attributes[name] {
                key.append(.attribute(value))
            } else if let id = record.toOne[name] {
                key.append(.object(id))
            } else {
                return nil
            }
        }
        return key
    }
}

