/// What the destination model requires of the migrated data, checked after `didMigrate`.
///
/// Core Data validates the objects a migration produces (the migration manager's validation
/// phase), so a required value missing after the step refuses it, whether the attribute or
/// to-one relationship is new, became required, or was left empty by a custom stage.
/// Validation rules beyond these (ranges, lengths, patterns, to-many counts) are not checked:
/// no store can check them in SQL, and a later save reports them on the objects it touches.
extension RecordMigration {
    /// One line per required attribute or to-one relationship that some objects lack.
    static func requiredValueProblems(_ schema: Schema, _ contents: AtomicStoreContents) -> [String] {
        var problems: [String] = []
        for entity in schema.entities.sorted(by: { $0.name < $1.name }) where !entity.isAbstract {
            guard let records = contents.records[entity.name], !records.isEmpty else { continue }
            for attribute in entity.attributes where !attribute.isOptional && !attribute.isTransient {
                let missing = records.values.filter { $0.attributes[attribute.name] == nil }.map(\.objectID)
                guard !missing.isEmpty else { continue }
                problems.append(
                    "\(entity.name).\(attribute.name) is required, but \(count(missing.count, "object")) \(missing.count == 1 ? "has" : "have") no value: \(list(missing.sorted(), name)) (give it a default value in the model, or set it in a custom stage's didMigrate)")
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isOptional {
                let missing = records.values.filter { $0.toOne[relationship.name] == nil }.map(\.objectID)
                guard !missing.isEmpty else { continue }
                problems.append(
                    "\(entity.name).\(relationship.name) is required, but \(count(missing.count, "object")) \(missing.count == 1 ? "has" : "have") no \(relationship.destination): \(list(missing.sorted(), name)) (make it optional, or set it in a custom stage's didMigrate)")
            }
        }
        return problems
    }

    /// One line per uniqueness constraint the data breaks, naming each duplicate and the
    /// object whose values it repeats.
    static func uniquenessProblems(_ schema: Schema, _ contents: AtomicStoreContents) -> [String] {
        var duplicates: [String: [(ObjectID, ObjectID)]] = [:]
        var order: [String] = []
        let all = contents.records.values.flatMap(\.keys)
        UniquenessChecker.forEachDuplicate(in: contents, schema: schema, checking: all) { id, other, owner, constraint in
            let label = constraint.count == 1 ? "\(owner).\(constraint[0])" : "\(owner) (\(constraint.joined(separator: ", ")))"
            if duplicates[label] == nil { order.append(label) }
            duplicates[label, default: []].append((id, other))
        }
        return order.map { label in
            let pairs = duplicates[label]!
            return "\(label) must be unique, but \(count(pairs.count, "object")) repeat\(pairs.count == 1 ? "s" : "") another's value: \(list(pairs) { "\(name($0.0)) (as \(name($0.1)))" }) (change or delete the duplicates in a custom stage)"
        }
    }
}
