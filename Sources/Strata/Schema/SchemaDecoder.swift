internal import Foundation

/// An attribute as read from the file: every field that could be read, nil where it could not.
struct AttributeDraft {
    var path: String
    var name: String?
    var type: AttributeType?
    var isOptional = false
    var defaultValue: AttributeValue?
    var isIndexed = false
    var isTransient = false
    var minimum: AttributeValue?
    var maximum: AttributeValue?
    var minLength: Int?
    var maxLength: Int?
    var regex: String?
    var renamingIdentifier: String?
    var transformer: String?
    var externalStorage = false
    var versionHashModifier: String?
}

struct RelationshipDraft {
    var path: String
    var name: String?
    var destination: String?
    var inverse: String?
    var isToMany = false
    var isOrdered = false
    var isOptional = false
    var minCount = 0
    var maxCount = 0
    var deleteRule: DeleteRule = .nullify
    var renamingIdentifier: String?
    var versionHashModifier: String?
}

/// A name inside a list (`uniquenessConstraints[0][1]`, `configurations[0].entities[2]`).
struct NameReference {
    var name: String
    var path: String
}

struct IndexDraft {
    var path: String
    var name: String?
    var elements: [(property: NameReference, order: IndexDescription.Order)] = []
}

struct EntityDraft {
    var path: String
    var name: String?
    var parent: String?
    var isAbstract = false
    var attributes: [AttributeDraft] = []
    var relationships: [RelationshipDraft] = []
    var uniquenessConstraints: [[NameReference]] = []
    var indexes: [IndexDraft] = []
    var versionHashModifier: String?
    var renamingIdentifier: String?
}

struct ConfigurationDraft {
    var path: String
    var name: String?
    var entities: [NameReference] = []
}

struct SchemaDraft {
    var name: String?
    var version: String?
    var versionHashModifier: String?
    var entities: [EntityDraft] = []
    var configurations: [ConfigurationDraft] = []
}

/// Reads the JSON tree of a model file into drafts, checking everything that can be checked
/// inside one object: keys, JSON types, names, attribute types, defaults and their rules,
/// relationship options. Rules that span entities are ``SchemaValidator``'s.
struct SchemaDecoder {
    static let modelKeys = ["$schema", "name", "version", "versionHashModifier", "entities", "configurations"]
    static let entityKeys = [
        "name", "parent", "abstract", "attributes", "relationships", "uniquenessConstraints", "indexes",
        "versionHashModifier", "renamingIdentifier",
    ]
    static let attributeKeys = [
        "name", "type", "optional", "default", "indexed", "transient", "min", "max", "minLength", "maxLength",
        "regex", "renamingIdentifier", "transformer", "externalStorage", "versionHashModifier",
    ]
    static let relationshipKeys = [
        "name", "destination", "inverse", "toMany", "ordered", "optional", "minCount", "maxCount", "deleteRule",
        "renamingIdentifier", "versionHashModifier",
    ]
    static let indexKeys = ["name", "elements"]
    static let indexElementKeys = ["property", "order"]
    static let configurationKeys = ["name", "entities"]

    var collector: DiagnosticCollector

    init(file: String?) {
        collector = DiagnosticCollector(file: file)
    }

    mutating func decode(_ root: JSONNode) -> SchemaDraft? {
        collector.locations[""] = root.location
        guard let model = ObjectReader(root, path: "", what: "the model", knownKeys: Self.modelKeys, collector: &collector) else {
            return nil
        }
        var draft = SchemaDraft()
        draft.name = model.string("name", required: "the model", collector: &collector)
        if let name = draft.name, name.trimmingCharacters(in: .whitespaces).isEmpty {
            collector.error("invalidName", "the model's name is empty; name the model, for example \"TodoList\"", at: "name")
        } else if let name = draft.name, !ReservedNames.isValidEntityName(name) {
            collector.error(
                "invalidName",
                "invalid model name '\(name)': model names start with an upper-case letter (A–Z) and use only ASCII letters, digits and '_'\(nameFix(name, upperFirst: true))",
                at: "name")
        }
        _ = model.string("$schema", collector: &collector)
        draft.version = model.string("version", collector: &collector)
        draft.versionHashModifier = model.string("versionHashModifier", collector: &collector)
        if let entities = model.array("entities", required: "the model", collector: &collector) {
            if entities.isEmpty {
                collector.warning("noEntities", "the model has no entities; add at least one to 'entities'", at: "entities")
            }
            for (index, node) in entities.enumerated() {
                let path = "entities[\(index)]"
                collector.locations[path] = node.location
                if let entity = decodeEntity(node, path: path) { draft.entities.append(entity) }
            }
        }
        if let configurations = model.array("configurations", collector: &collector) {
            for (index, node) in configurations.enumerated() {
                let path = "configurations[\(index)]"
                collector.locations[path] = node.location
                if let configuration = decodeConfiguration(node, path: path) {
                    draft.configurations.append(configuration)
                }
            }
        }
        return draft
    }

    // MARK: - Entities

    private mutating func decodeEntity(_ node: JSONNode, path: String) -> EntityDraft? {
        guard let object = ObjectReader(node, path: path, what: "an entity", knownKeys: Self.entityKeys, collector: &collector) else {
            return nil
        }
        var entity = EntityDraft(path: path)
        if let name = object.string("name", required: "an entity", collector: &collector) {
            if ReservedNames.isValidEntityName(name) {
                entity.name = name
            } else {
                collector.error(
                    "invalidName",
                    "invalid entity name '\(name)': entity names start with an upper-case letter (A–Z) and use only ASCII letters, digits and '_'\(nameFix(name, upperFirst: true))",
                    at: object.path("name"))
            }
        }
        entity.parent = object.string("parent", collector: &collector)
        entity.isAbstract = object.bool("abstract", collector: &collector) ?? false
        entity.versionHashModifier = object.string("versionHashModifier", collector: &collector)
        entity.renamingIdentifier = object.string("renamingIdentifier", collector: &collector)

        let misplacedInAttributes = Set(Self.relationshipKeys).subtracting(Self.attributeKeys)
        if let attributes = object.array("attributes", collector: &collector) {
            for (index, node) in attributes.enumerated() {
                let attributePath = object.path("attributes") + "[\(index)]"
                collector.locations[attributePath] = node.location
                guard let reader = ObjectReader(
                    node, path: attributePath, what: "an attribute", knownKeys: Self.attributeKeys,
                    misplacedKeys: (misplacedInAttributes, "that is a relationship key: declare relationships under 'relationships'"),
                    collector: &collector)
                else { continue }
                entity.attributes.append(decodeAttribute(reader))
            }
        }
        let misplacedInRelationships = Set(Self.attributeKeys).subtracting(Self.relationshipKeys)
        if let relationships = object.array("relationships", collector: &collector) {
            for (index, node) in relationships.enumerated() {
                let relationshipPath = object.path("relationships") + "[\(index)]"
                collector.locations[relationshipPath] = node.location
                guard let reader = ObjectReader(
                    node, path: relationshipPath, what: "a relationship", knownKeys: Self.relationshipKeys,
                    misplacedKeys: (misplacedInRelationships, "that is an attribute key: declare attributes under 'attributes'"),
                    collector: &collector)
                else { continue }
                entity.relationships.append(decodeRelationship(reader))
            }
        }
        if let constraints = object.array("uniquenessConstraints", collector: &collector) {
            for (index, node) in constraints.enumerated() {
                let constraintPath = object.path("uniquenessConstraints") + "[\(index)]"
                collector.locations[constraintPath] = node.location
                guard let names = nameList(node, path: constraintPath, what: "a uniqueness constraint", example: "[\"email\"]") else {
                    continue
                }
                if names.isEmpty {
                    if node.value.arrayElements?.isEmpty == true {
                        collector.error("emptyConstraint", "a uniqueness constraint needs at least one property name, like [\"email\"]", at: constraintPath)
                    }
                    continue
                }
                entity.uniquenessConstraints.append(names)
            }
        }
        if let indexes = object.array("indexes", collector: &collector) {
            for (index, node) in indexes.enumerated() {
                let indexPath = object.path("indexes") + "[\(index)]"
                collector.locations[indexPath] = node.location
                if let draft = decodeIndex(node, path: indexPath) { entity.indexes.append(draft) }
            }
        }
        return entity
    }

    /// A JSON array of strings, each remembered with its path.
    private mutating func nameList(_ node: JSONNode, path: String, what: String, example: String) -> [NameReference]? {
        guard let elements = node.value.arrayElements else {
            collector.error("wrongType", "expected \(what) as an array of names like \(example), found \(node.value.kindName)", at: path, location: node.location)
            return nil
        }
        var names: [NameReference] = []
        for (index, element) in elements.enumerated() {
            let elementPath = path + "[\(index)]"
            collector.locations[elementPath] = element.location
            guard let name = element.value.stringValue else {
                collector.error("wrongType", "expected a property name (a string), found \(element.value.kindName)", at: elementPath)
                continue
            }
            if names.contains(where: { $0.name == name }) {
                collector.error("duplicateName", "'\(name)' appears twice in \(what)", at: elementPath)
                continue
            }
            names.append(NameReference(name: name, path: elementPath))
        }
        return names
    }

    private mutating func decodeIndex(_ node: JSONNode, path: String) -> IndexDraft? {
        guard let object = ObjectReader(node, path: path, what: "an index", knownKeys: Self.indexKeys, collector: &collector) else {
            return nil
        }
        var index = IndexDraft(path: path)
        if let name = object.string("name", required: "an index", collector: &collector) {
            if ReservedNames.isValidIdentifier(name) {
                index.name = name
            } else {
                collector.error("invalidName", "invalid index name '\(name)': use ASCII letters, digits and '_', starting with a letter", at: object.path("name"))
            }
        }
        guard let elements = object.array("elements", required: "an index", collector: &collector) else { return index }
        if elements.isEmpty {
            collector.error("emptyIndex", "an index needs at least one element, like {\"property\": \"createdAt\"}", at: object.path("elements"))
        }
        for (position, node) in elements.enumerated() {
            let elementPath = object.path("elements") + "[\(position)]"
            collector.locations[elementPath] = node.location
            guard let element = ObjectReader(node, path: elementPath, what: "an index element", knownKeys: Self.indexElementKeys, collector: &collector),
                  let property = element.string("property", required: "an index element", collector: &collector)
            else { continue }
            var order = IndexDescription.Order.ascending
            if let text = element.string("order", collector: &collector) {
                if let parsed = IndexDescription.Order(rawValue: text) {
                    order = parsed
                } else {
                    collector.error(
                        "invalidValue",
                        "unknown index order '\(text)'; use 'ascending' or 'descending'\(Suggestion.didYouMean(text, in: ["ascending", "descending"]))",
                        at: element.path("order"))
                }
            }
            index.elements.append((NameReference(name: property, path: element.path("property")), order))
        }
        return index
    }

    private mutating func decodeConfiguration(_ node: JSONNode, path: String) -> ConfigurationDraft? {
        guard let object = ObjectReader(node, path: path, what: "a configuration", knownKeys: Self.configurationKeys, collector: &collector) else {
            return nil
        }
        var configuration = ConfigurationDraft(path: path)
        if let name = object.string("name", required: "a configuration", collector: &collector) {
            if ReservedNames.isValidIdentifier(name) {
                configuration.name = name
            } else {
                collector.error("invalidName", "invalid configuration name '\(name)': use ASCII letters, digits and '_', starting with a letter", at: object.path("name"))
            }
        }
        if let entities = object.node("entities") {
            configuration.entities = nameList(entities, path: object.path("entities"), what: "a configuration", example: "[\"Todo\", \"Tag\"]") ?? []
        } else {
            collector.error("missingKey", "a configuration is missing its required 'entities'", at: path, location: object.location)
        }
        return configuration
    }

    // MARK: - Properties

    private mutating func decodePropertyName(_ object: ObjectReader, what: String) -> String? {
        guard let name = object.string("name", required: what, collector: &collector) else { return nil }
        guard ReservedNames.isValidPropertyName(name) else {
            collector.error(
                "invalidName",
                "invalid property name '\(name)': property names start with a lower-case letter (a–z) and use only ASCII letters, digits and '_'\(nameFix(name, upperFirst: false))",
                at: object.path("name"))
            return nil
        }
        if ReservedNames.properties.contains(name) {
            collector.error(
                "reservedName",
                "'\(name)' is reserved: it would clash with the managed-object API; choose another name, like '\(name)Value' or 'item\(name.prefix(1).uppercased() + name.dropFirst())'",
                at: object.path("name"))
            return nil
        }
        return name
    }

    private mutating func decodeAttribute(_ object: ObjectReader) -> AttributeDraft {
        var attribute = AttributeDraft(path: object.path)
        attribute.name = decodePropertyName(object, what: "an attribute")
        let label = attribute.name.map { "'\($0)'" } ?? "this attribute"
        if let typeName = object.string("type", required: "an attribute", collector: &collector) {
            if let type = AttributeType(rawValue: typeName) {
                attribute.type = type
            } else {
                let typeNames = AttributeType.allCases.map(\.rawValue)
                let suggestion = typeNames.first { $0.lowercased() == typeName.lowercased() }
                    ?? Self.typeAliases[typeName.lowercased()]
                    ?? Suggestion.closest(to: typeName, in: typeNames)
                    ?? Suggestion.closest(to: typeName, in: Self.typeAliases.keys).flatMap { Self.typeAliases[$0] }
                collector.error(
                    "unknownType",
                    "unknown attribute type '\(typeName)'" + (suggestion.map { "; did you mean '\($0)'?" }
                        ?? "; use one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))"),
                    at: object.path("type"))
            }
        }
        attribute.isOptional = object.bool("optional", collector: &collector) ?? false
        attribute.isIndexed = object.bool("indexed", collector: &collector) ?? false
        attribute.isTransient = object.bool("transient", collector: &collector) ?? false
        attribute.externalStorage = object.bool("externalStorage", collector: &collector) ?? false
        attribute.renamingIdentifier = object.string("renamingIdentifier", collector: &collector)
        attribute.versionHashModifier = object.string("versionHashModifier", collector: &collector)
        attribute.transformer = object.string("transformer", collector: &collector)
        attribute.regex = object.string("regex", collector: &collector)
        attribute.minLength = object.count("minLength", collector: &collector)
        attribute.maxLength = object.count("maxLength", collector: &collector)

        if attribute.isTransient && attribute.isIndexed {
            collector.error("transientIndexed", "transient attribute \(label) cannot be indexed: no store keeps it; remove 'indexed' or 'transient'", at: object.path("indexed"))
        }
        guard let type = attribute.type else { return attribute }

        // Keys that apply to some types only.
        func inapplicable(_ key: String, _ appliesTo: String) {
            collector.error(
                "inapplicableKey",
                "'\(key)' applies only to \(appliesTo), and \(label) is of type \(type.rawValue); remove '\(key)'",
                at: object.path(key))
        }
        if !type.isOrdered {
            for key in ["min", "max"] where object.has(key) { inapplicable(key, "numbers and dates") }
        }
        if type != .string {
            for key in ["minLength", "maxLength", "regex"] where object.has(key) { inapplicable(key, "string attributes") }
        }
        if type != .transformable, object.has("transformer") { inapplicable("transformer", "transformable attributes") }
        if type != .binary, type != .transformable, object.has("externalStorage") {
            inapplicable("externalStorage", "binary and transformable attributes")
        }
        if type == .transformable, attribute.transformer == nil, !object.has("transformer") {
            collector.error(
                "missingTransformer",
                "transformable attribute \(label) needs a 'transformer': the name of a value transformer registered in code",
                at: object.path, location: object.location)
        }

        if type.isOrdered {
            attribute.minimum = value(object, "min", type)
            attribute.maximum = value(object, "max", type)
            if let minimum = attribute.minimum, let maximum = attribute.maximum,
               let order = AttributeValue.order(minimum, maximum), order > 0 {
                collector.error("invalidRange", "'min' (\(minimum)) is greater than 'max' (\(maximum)); swap them", at: object.path("min"))
            }
        }
        if type == .string {
            if let minLength = attribute.minLength, let maxLength = attribute.maxLength, minLength > maxLength {
                collector.error("invalidRange", "'minLength' (\(minLength)) is greater than 'maxLength' (\(maxLength)); swap them", at: object.path("minLength"))
            }
            if let pattern = attribute.regex, let problem = RegexRule.compileError(pattern) {
                collector.error("invalidRegex", "'regex' does not compile: \(problem)", at: object.path("regex"))
                attribute.regex = nil
            }
        }

        if let defaultValue = value(object, "default", type) {
            attribute.defaultValue = defaultValue
            if let problem = Self.ruleViolation(of: defaultValue, in: attribute) {
                collector.error("invalidDefault", "the default breaks the attribute's own rule: \(problem)", at: object.path("default"))
            }
        }
        return attribute
    }

    /// Near misses that edit distance alone would not find.
    private static let typeAliases: [String: String] = [
        "integer16": "int16", "integer32": "int32", "integer64": "int64", "int": "int64", "integer": "int64",
        "boolean": "bool", "text": "string", "str": "string", "data": "binary", "blob": "binary",
        "url": "uri", "datetime": "date", "timestamp": "date", "real": "double", "number": "double",
    ]

    private mutating func value(_ object: ObjectReader, _ key: String, _ type: AttributeType) -> AttributeValue? {
        guard let node = object.node(key) else { return nil }
        do {
            let value = try AttributeValue(json: node.value, as: type)
            // `Schema.jsonString` writes dates to the millisecond, as the data format does; keep
            // no more than that, so that a model read back from its canonical JSON is equal.
            if case .date(let date) = value {
                return .date(Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000))
            }
            return value
        } catch {
            let article = type.isInteger ? "an" : "a"
            collector.error("invalidValue", "invalid '\(key)' for \(article) \(type.rawValue) attribute: \(error.message)", at: object.path(key))
            return nil
        }
    }

    /// What rule of the attribute `value` breaks, or nil when it keeps them all.
    static func ruleViolation(of value: AttributeValue, in attribute: AttributeDraft) -> String? {
        guard let type = attribute.type else { return nil }
        return AttributeRules.violation(
            of: value, type: type, minimum: attribute.minimum, maximum: attribute.maximum,
            minLength: attribute.minLength, maxLength: attribute.maxLength, regex: attribute.regex)?.message
    }

    private mutating func decodeRelationship(_ object: ObjectReader) -> RelationshipDraft {
        var relationship = RelationshipDraft(path: object.path)
        relationship.name = decodePropertyName(object, what: "a relationship")
        let label = relationship.name.map { "'\($0)'" } ?? "this relationship"
        relationship.destination = object.string("destination", required: "a relationship", collector: &collector)
        relationship.inverse = object.string("inverse", collector: &collector)
        relationship.isToMany = object.bool("toMany", collector: &collector) ?? false
        relationship.isOrdered = object.bool("ordered", collector: &collector) ?? false
        relationship.renamingIdentifier = object.string("renamingIdentifier", collector: &collector)
        relationship.versionHashModifier = object.string("versionHashModifier", collector: &collector)
        if let text = object.string("deleteRule", collector: &collector) {
            if let rule = DeleteRule(rawValue: text) {
                relationship.deleteRule = rule
            } else {
                collector.error(
                    "invalidValue",
                    "unknown delete rule '\(text)'" + (Suggestion.closest(to: text, in: DeleteRule.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" }
                        ?? "; use one of nullify, cascade, deny, noAction"),
                    at: object.path("deleteRule"))
            }
        }
        let optional = object.bool("optional", collector: &collector)
        let minCount = object.count("minCount", collector: &collector)
        let maxCount = object.count("maxCount", collector: &collector)

        if relationship.isToMany {
            relationship.isOptional = true
            if let optional {
                collector.warning(
                    "ignoredOptional",
                    "'optional' has no effect on to-many relationship \(label); bound it with 'minCount'/'maxCount' instead" + (optional ? "" : " (\"minCount\": 1 requires at least one)"),
                    at: object.path("optional"))
            }
            relationship.minCount = minCount ?? 0
            relationship.maxCount = maxCount ?? 0
            if relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
                collector.error(
                    "invalidRange",
                    "'minCount' (\(relationship.minCount)) is greater than 'maxCount' (\(relationship.maxCount)); swap them, or set 'maxCount' to 0 for no upper bound",
                    at: object.path("minCount"))
            }
        } else {
            relationship.isOptional = optional ?? false
            if relationship.isOrdered {
                collector.error("orderedToOne", "'ordered' applies only to to-many relationships; add \"toMany\": true to \(label) or remove 'ordered'", at: object.path("ordered"))
            }
            for key in ["minCount", "maxCount"] where object.has(key) {
                collector.error("inapplicableKey", "'\(key)' applies only to to-many relationships; a to-one is bounded by 'optional'", at: object.path(key))
            }
        }
        return relationship
    }

    /// "did you mean 'Todo'?" for a name that breaks only the case or character rules.
    private func nameFix(_ name: String, upperFirst: Bool) -> String {
        let cleaned = String(name.unicodeScalars.filter { scalar in
            (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") || scalar == "_"
        }.map(Character.init))
        guard let first = cleaned.first, first.isLetter else { return "" }
        let fixed = (upperFirst ? first.uppercased() : first.lowercased()) + cleaned.dropFirst()
        let valid = upperFirst ? ReservedNames.isValidEntityName(fixed) : ReservedNames.isValidPropertyName(fixed)
        return valid && fixed != name ? "; did you mean '\(fixed)'?" : ""
    }
}
