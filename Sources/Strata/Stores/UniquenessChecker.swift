/// Checks uniqueness constraints over the records of an atomic store.
///
/// A constraint declared on an entity covers it and its subentities. Values compare as Swift
/// values do (canonically equivalent strings are equal); a combination with a nil member never
/// conflicts, as in SQL.
enum UniquenessChecker {
    static func violations(in contents: AtomicStoreContents, schema: Schema, checking changed: [ObjectID]) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        forEachDuplicate(in: contents, schema: schema, checking: changed) { id, other, _, constraint in
            failures.append(failure(id, other, constraint))
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
        let changedSet = Set(changed)
        let changedEntities = Set(changed.map(\.entityName))
        for owner in schema.entities where !owner.uniquenessConstraints.isEmpty {
            let covered = schema.entityAndDescendants(of: owner.name).map(\.name)
            guard covered.contains(where: changedEntities.contains) else { continue }
            for constraint in owner.uniquenessConstraints {
                var seen: [[UniqueValue]: ObjectID] = [:]
                var records: [StoreRecord] = []
                for entity in covered { records += contents.records[entity]?.values ?? [:].values }
                // Unchanged records first, so a conflict is reported on the changed object.
                records.sort { lhs, rhs in
                    let (l, r) = (changedSet.contains(lhs.objectID), changedSet.contains(rhs.objectID))
                    return l != r ? r : lhs.objectID < rhs.objectID
                }
                for record in records {
                    guard let key = key(of: record, constraint) else { continue }
                    if let other = seen[key] {
                        if changedSet.contains(record.objectID) { body(record.objectID, other, owner.name, constraint) }
                    } else {
                        seen[key] = record.objectID
                    }
                }
            }
        }
    }

    static func failure(_ id: ObjectID, _ other: ObjectID, _ constraint: [String]) -> ValidationFailure {
        ValidationFailure(
            code: .notUnique, objectID: id, key: constraint.joined(separator: ","),
            message: "\(constraint.count == 1 ? "'\(constraint[0])' must be unique" : "(\(constraint.joined(separator: ", "))) must be unique together"), and \(other) has the same value")
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

