/// What deleting some objects with the model's delete rules comes to, worked out over records
/// (no context, no managed objects): the objects deleted (the matched ones, then those cascade
/// rules reach), the objects nullify rules change, and every rule the result would break —
/// exactly what a context's `delete(_:)` and `save()` of the same objects give.
///
/// - `cascade` deletes the relationship's destinations, which apply their own rules in turn.
/// - `nullify` removes the deleted object from the inverse relationship of each destination
///   that stays; the destination is then validated as a save validates it (a required to-one
///   left empty, a to-many below its `minCount`).
/// - A relationship without an inverse that refers to a deleted object loses it, whatever
///   its delete rule, and is validated the same way (as a context's save does).
/// - `deny` refuses the delete while the relationship has a member that is not deleted too.
/// - `noAction` leaves the destinations as they are.
package struct BatchDeletePlan {
    /// The objects the request matched, in the order given.
    package private(set) var matched: [ObjectID] = []
    /// Every deleted object with the version read: the matched ones first.
    package private(set) var deleted: [(objectID: ObjectID, version: Int64)] = []
    /// Objects that stay, with the deleted objects removed from their inverse relationships.
    package private(set) var updated: [StoreRecord] = []
    /// For each of ``updated``, the relationships changed.
    package private(set) var changedKeys: [Set<String>] = []
    /// The rules the delete would break; empty when it may go ahead.
    package private(set) var failures: [ValidationFailure] = []

    /// Plans the delete of `matched`.
    /// - Parameters:
    ///   - fetchIDs: the IDs of the stored objects a request matches; the plan asks it for the
    ///     objects that refer to deleted ones through relationships without an inverse, which
    ///     lose them as `nullify` would remove them from an inverse.
    ///   - records: the stored records of objects, with every to-many relationship's members
    ///     (none left lazy); objects it leaves out are gone already.
    package init(
        matched: [ObjectID], schema: Schema, fetchIDs: (StoreFetchRequest) throws(StrataError) -> [ObjectID],
        records: ([ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord]
    ) throws(StrataError) {
        var known: [ObjectID: StoreRecord] = [:]
        func load(_ ids: [ObjectID]) throws(StrataError) {
            let missing = ids.filter { known[$0] == nil }
            guard !missing.isEmpty else { return }
            known.merge(try records(missing)) { $1 }
        }
        // Deleted objects, wave by wave: each wave's cascade destinations are the next wave.
        var deletedSet: Set<ObjectID> = []
        var deletedRecords: [StoreRecord] = []
        var wave = matched
        var nullified: [(destination: ObjectID, inverse: String, deleted: ObjectID)] = []
        while !wave.isEmpty {
            try load(wave)
            var next: [ObjectID] = []
            for id in wave where !deletedSet.contains(id) {
                guard let record = known[id], let entity = schema.entity(named: id.entityName) else { continue }
                deletedSet.insert(id)
                deletedRecords.append(record)
                for relationship in entity.relationships {
                    let members = Self.members(of: record, relationship)
                    guard !members.isEmpty else { continue }
                    switch relationship.deleteRule {
                    case .cascade:
                        next += members
                    case .nullify:
                        guard let inverse = relationship.inverse else { continue }
                        for member in members { nullified.append((member, inverse, id)) }
                    case .deny, .noAction:
                        continue
                    }
                }
            }
            wave = next
        }
        self.matched = matched.filter { deletedSet.contains($0) }
        deleted = deletedRecords.map { ($0.objectID, $0.version) }

        // Relationships without an inverse: the objects that refer to deleted ones lose them.
        let deletedEntities = schema.oneWayRelationships.isEmpty ? [] : Set(deletedRecords.map(\.objectID.entityName))
        for oneWay in schema.oneWayRelationships(into: deletedEntities) {
            let (entity, relationship) = (oneWay.entity, oneWay.relationship)
            let targets = deletedRecords.map(\.objectID).filter { schema.entity(named: $0.entityName)?.isKind(of: relationship.destination) == true }
            guard !targets.isEmpty else { continue }
            let refers = FetchExpression.keyPath([relationship.name]).in(targets)
            let request = StoreFetchRequest(
                entityNames: schema.entityAndDescendants(of: entity).map(\.name),
                predicate: relationship.isToMany ? .any(refers) : refers)
            let referrers = try fetchIDs(request).filter { !deletedSet.contains($0) }
            try load(referrers)
            for referrer in referrers {
                guard let record = known[referrer] else { continue }
                for member in Self.members(of: record, relationship) where deletedSet.contains(member) {
                    nullified.append((referrer, relationship.name, member))
                }
            }
        }

        // Nullify: the destinations that stay lose the deleted objects.
        let staying = nullified.filter { !deletedSet.contains($0.destination) }
        try load(staying.map(\.destination))
        var changed: [ObjectID: (record: StoreRecord, keys: Set<String>)] = [:]
        var order: [ObjectID] = []
        for (destination, inverse, gone) in staying {
            guard var entry = changed[destination] ?? known[destination].map({ ($0, []) }) else { continue }
            if changed[destination] == nil { order.append(destination) }
            if entry.record.toOne[inverse] == gone {
                entry.record.toOne[inverse] = nil
            } else if let members = entry.record.toMany[inverse] {
                entry.record.toMany[inverse] = members.filter { $0 != gone }
            }
            entry.keys.insert(inverse)
            changed[destination] = entry
        }
        order.sort()
        updated = order.map { changed[$0]!.record }
        changedKeys = order.map { changed[$0]!.keys }

        // The rules: deny on the deleted objects, a save's validation on the changed ones.
        var failures: [ValidationFailure] = []
        for record in deletedRecords {
            guard let entity = schema.entity(named: record.objectID.entityName) else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                let remaining = Self.members(of: record, relationship).filter { !deletedSet.contains($0) }
                guard !remaining.isEmpty else { continue }
                failures.append(ValidationFailure(
                    code: .deleteDenied, objectID: record.objectID, key: relationship.name,
                    message: "cannot delete \(record.objectID) while it has \(remaining.count) \(relationship.destination) object\(remaining.count == 1 ? "" : "s") (delete rule deny); remove or delete them first"))
            }
        }
        for record in updated {
            guard let entity = schema.entity(named: record.objectID.entityName) else { continue }
            entity.attributeFailures(of: record.attributes.laidOut(by: entity.attributeLayout), objectID: record.objectID, into: &failures)
            for relationship in entity.relationships where !record.lazyToMany.contains(relationship.name) {
                if relationship.isToMany {
                    let count = (record.toMany[relationship.name] ?? []).count { !deletedSet.contains($0) }
                    if let failure = EntityDescription.countFailure(of: relationship, count: count, objectID: record.objectID) {
                        failures.append(failure)
                    }
                } else if !relationship.isOptional, record.toOne[relationship.name].map(deletedSet.contains) ?? true {
                    failures.append(EntityDescription.missingDestination(of: relationship, objectID: record.objectID))
                }
            }
        }
        self.failures = failures
    }

    /// The changeset that carries the plan out: deletions and nullified inverses, versions
    /// checked.
    package var changeset: StoreChangeset {
        var changes = StoreChangeset(updated: updated, deleted: deleted)
        changes.changedKeys = changedKeys
        return changes
    }

    /// The members of a relationship of a record (the destination of a to-one).
    private static func members(of record: StoreRecord, _ relationship: RelationshipDescription) -> [ObjectID] {
        relationship.isToMany ? record.toMany[relationship.name] ?? [] : record.toOne[relationship.name].map { [$0] } ?? []
    }
}
