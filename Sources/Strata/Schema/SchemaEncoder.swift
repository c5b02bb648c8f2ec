/// Writes a model as the JSON of a model file, in a fixed key order with defaults omitted, so
/// that equal models give identical text.
enum SchemaEncoder {
    static func encode(
        name: String, version: String?, versionHashModifier: String?,
        entities: [EntityDescription], configurations: [ConfigurationDescription]
    ) -> JSONValue {
        var members: [JSONMember] = []
        members.add("name", .string(name))
        members.add("version", version.map(JSONValue.string))
        members.add("versionHashModifier", versionHashModifier.map(JSONValue.string))
        members.add("entities", .array(entities.map(encode(_:))))
        if !configurations.isEmpty {
            members.add("configurations", .array(configurations.map { configuration in
                .object(["name": .string(configuration.name), "entities": .array(configuration.entityNames.map(JSONValue.string))])
            }))
        }
        return .object(members)
    }

    private static func encode(_ entity: EntityDescription) -> JSONValue {
        var members: [JSONMember] = []
        members.add("name", .string(entity.name))
        members.add("parent", entity.parentName.map(JSONValue.string))
        if entity.isAbstract { members.add("abstract", .bool(true)) }
        if !entity.declaredAttributes.isEmpty {
            members.add("attributes", .array(entity.declaredAttributes.map(encode(_:))))
        }
        if !entity.declaredRelationships.isEmpty {
            members.add("relationships", .array(entity.declaredRelationships.map(encode(_:))))
        }
        if !entity.uniquenessConstraints.isEmpty {
            members.add("uniquenessConstraints", .array(entity.uniquenessConstraints.map { .array($0.map(JSONValue.string)) }))
        }
        if !entity.indexes.isEmpty {
            members.add("indexes", .array(entity.indexes.map { index in
                .object([
                    "name": .string(index.name),
                    "elements": .array(index.elements.map { element in
                        element.order == .ascending
                            ? .object(["property": .string(element.property)])
                            : .object(["property": .string(element.property), "order": .string(element.order.rawValue)])
                    }),
                ])
            }))
        }
        members.add("versionHashModifier", entity.versionHashModifier.map(JSONValue.string))
        members.add("renamingIdentifier", entity.renamingIdentifier.map(JSONValue.string))
        return .object(members)
    }

    private static func encode(_ attribute: AttributeDescription) -> JSONValue {
        var members: [JSONMember] = []
        members.add("name", .string(attribute.name))
        members.add("type", .string(attribute.type.rawValue))
        if attribute.isOptional { members.add("optional", .bool(true)) }
        members.add("default", attribute.defaultValue?.jsonValue)
        if attribute.isIndexed { members.add("indexed", .bool(true)) }
        if attribute.isTransient { members.add("transient", .bool(true)) }
        members.add("min", attribute.minimum?.jsonValue)
        members.add("max", attribute.maximum?.jsonValue)
        members.add("minLength", attribute.minLength.map { .number(String($0)) })
        members.add("maxLength", attribute.maxLength.map { .number(String($0)) })
        members.add("regex", attribute.regex.map(JSONValue.string))
        members.add("transformer", attribute.transformerName.map(JSONValue.string))
        if attribute.allowsExternalStorage { members.add("externalStorage", .bool(true)) }
        members.add("renamingIdentifier", attribute.renamingIdentifier.map(JSONValue.string))
        members.add("versionHashModifier", attribute.versionHashModifier.map(JSONValue.string))
        return .object(members)
    }

    private static func encode(_ relationship: RelationshipDescription) -> JSONValue {
        var members: [JSONMember] = []
        members.add("name", .string(relationship.name))
        members.add("destination", .string(relationship.destination))
        members.add("inverse", relationship.inverse.map(JSONValue.string))
        if relationship.isToMany {
            members.add("toMany", .bool(true))
            if relationship.isOrdered { members.add("ordered", .bool(true)) }
            if relationship.minCount > 0 { members.add("minCount", .number(String(relationship.minCount))) }
            if relationship.maxCount > 0 { members.add("maxCount", .number(String(relationship.maxCount))) }
        } else {
            if relationship.isOrdered { members.add("ordered", .bool(true)) }
            if relationship.isOptional { members.add("optional", .bool(true)) }
            if relationship.minCount > 0 { members.add("minCount", .number(String(relationship.minCount))) }
            if relationship.maxCount > 0 { members.add("maxCount", .number(String(relationship.maxCount))) }
        }
        if relationship.deleteRule != .nullify { members.add("deleteRule", .string(relationship.deleteRule.rawValue)) }
        members.add("renamingIdentifier", relationship.renamingIdentifier.map(JSONValue.string))
        members.add("versionHashModifier", relationship.versionHashModifier.map(JSONValue.string))
        return .object(members)
    }
}

extension Array where Element == JSONMember {
    /// Appends `key: value` unless the value is nil.
    fileprivate mutating func add(_ key: String, _ value: JSONValue?) {
        guard let value else { return }
        append(JSONMember(key: key, value: JSONNode(value)))
    }
}
