/// Version hashes: SHA-256 over a canonical text of what affects how objects are stored.
///
/// An entity's hash covers its name, its ancestors (nearest first), whether it is abstract, its
/// `versionHashModifier`, every attribute it has — inherited ones included — with name, type,
/// optionality, transience, external storage and modifier, every relationship with name,
/// destination, inverse, to-many, ordered, optionality and modifier, and its uniqueness
/// constraints. It does not cover defaults, validation rules (min/max, lengths, regex, counts),
/// delete rules, indexes, transformer names, renaming identifiers, or the order in which keys,
/// properties or entities are written. The model's hash covers the model's
/// `versionHashModifier` and each entity's name with its hash — not the model's name or version
/// string, which are labels.
enum VersionHash {
    static func entityHash(_ entity: EntityDescription) -> String {
        var lines = [
            "entity \(entity.name)",
            "ancestors \(entity.ancestorNames.joined(separator: ","))",
            "abstract \(entity.isAbstract)",
            "modifier \(quoted(entity.versionHashModifier))",
        ]
        for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "attribute \(attribute.name) \(attribute.type.rawValue) optional=\(attribute.isOptional)"
                    + " transient=\(attribute.isTransient) external=\(attribute.allowsExternalStorage)"
                    + " modifier=\(quoted(attribute.versionHashModifier))")
        }
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "relationship \(relationship.name) destination=\(relationship.destination)"
                    + " inverse=\(relationship.inverse ?? "-") toMany=\(relationship.isToMany)"
                    + " ordered=\(relationship.isOrdered) optional=\(relationship.isOptional)"
                    + " modifier=\(quoted(relationship.versionHashModifier))")
        }
        let constraints = entity.uniquenessConstraints.map { $0.sorted().joined(separator: ",") }.sorted()
        for constraint in constraints { lines.append("unique \(constraint)") }
        return SHA256.hexDigest(lines.joined(separator: "\n"))
    }

    static func modelHash(entities: [EntityDescription], modifier: String?) -> String {
        var lines = ["model-modifier \(quoted(modifier))"]
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name) \(entity.versionHash)")
        }
        return SHA256.hexDigest(lines.joined(separator: "\n"))
    }

    private static func quoted(_ value: String?) -> String {
        value.map { String(reflecting: $0) } ?? "-"
    }
}
