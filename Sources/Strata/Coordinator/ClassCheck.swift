/// Checks `ManagedObject` subclasses against a model when they are registered: the entity each
/// is bound to exists, and every `@Attribute`, `@Relationship` and `@ToMany` property names a
/// property of that entity with a Swift type that can hold its values.
///
/// The rules, for what each typed property declares:
/// - `@Attribute`: an attribute (not a relationship). Its Swift type holds the attribute's
///   values: `String` for a string, an integer at least as wide as the attribute (`Int` for any),
///   `Double` or `Float` for a double or a float, `Decimal`, `Bool`, `Date`, `Data`, `UUID`,
///   `URL`; any type for a transformable attribute. A non-optional Swift type needs a required
///   attribute or one with a default (an optional attribute without one reads nil, which a
///   non-optional property cannot return). An optional Swift type fits every attribute.
/// - `@Relationship`: a to-one relationship; `@ToMany`: a to-many one, an `Array` for an ordered
///   one and a `Set` for an unordered one. The destination class is bound to the relationship's
///   destination entity or one of its ancestors (or is `ManagedObject` itself).
/// - A superclass bound to an entity is bound to an ancestor of the class's entity.
enum ClassCheck {
    /// Every problem of `type` against `schema`, one sentence each; empty when it fits.
    static func problems(of type: ManagedObject.Type, in schema: Schema) -> [String] {
        let name = type.entityName
        guard !name.isEmpty else {
            return ["\(type) is bound to no entity: override `class var entityName` to name one of the model '\(schema.name)'"]
        }
        guard let entity = schema.entity(named: name) else {
            return ["\(type).entityName is '\(name)', which the model '\(schema.name)' does not have\(Suggestion.didYouMean(name, in: schema.entities.map(\.name)))"]
        }
        var problems: [String] = []
        let probe = type.init(entity: EntityDescription(name: name), objectID: ObjectID(temporaryFor: name))
        var seen: Set<String> = []
        var mirror: Mirror? = Mirror(reflecting: probe)
        while let current = mirror {
            if let superclass = current.subjectType as? ManagedObject.Type, superclass != type,
               !superclass.entityName.isEmpty, superclass.entityName != name,
               !entity.ancestorNames.contains(superclass.entityName) {
                problems.append("\(type) (entity '\(name)') is a subclass of \(superclass) (entity '\(superclass.entityName)'), which is not an ancestor of '\(name)' in the model '\(schema.name)'\(ancestry(of: entity))")
            }
            for child in current.children {
                guard let declared = child.value as? any CheckedProperty, seen.insert(declared.key).inserted else { continue }
                let label = child.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } ?? declared.key
                if let problem = problem(of: declared, in: entity, schema: schema) {
                    problems.append("\(type).\(label) (\(declared.declaration)): \(problem)")
                }
            }
            mirror = current.superclassMirror
        }
        return problems
    }

    private static func ancestry(of entity: EntityDescription) -> String {
        entity.ancestorNames.isEmpty ? " ('\(entity.name)' has no parent)" : " (its ancestors: \(entity.ancestorNames.map { "'\($0)'" }.joined(separator: ", ")))"
    }

    private static func problem(of declared: any CheckedProperty, in entity: EntityDescription, schema: Schema) -> String? {
        let key = declared.key
        guard let property = entity.property(named: key) else {
            return "the entity '\(entity.name)' of the model '\(schema.name)' has no property '\(key)'\(Suggestion.didYouMean(key, in: entity.propertyNames.sorted()))"
        }
        let definition = "the model '\(schema.name)' defines \(entity.name).\(key) as \(describe(property))"
        switch (declared.kind, property) {
        case (.attribute(let swiftType), .attribute(let attribute)):
            let optional = swiftType is any OptionalProtocol.Type
            let wrapped = (swiftType as? any OptionalProtocol.Type)?.wrappedType ?? swiftType
            if attribute.type != .transformable, !fits(wrapped, attribute.type) {
                return "\(wrapped) cannot hold its values; \(definition)"
            }
            if !optional, attribute.isOptional, attribute.defaultValue == nil {
                return "a non-optional \(swiftType) cannot hold the nil of an optional attribute without a default; declare it \(swiftType)? (\(definition))"
            }
            return nil
        case (.toOne(let destination), .relationship(let relationship)) where !relationship.isToMany:
            return destinationProblem(destination, relationship, definition: definition, schema: schema)
        case (.toMany(let destination, let ordered), .relationship(let relationship)) where relationship.isToMany:
            if ordered != relationship.isOrdered {
                return "\(ordered ? "an Array" : "a Set") for \(relationship.isOrdered ? "an ordered" : "an unordered") relationship; declare it \(relationship.isOrdered ? "[\(destination)]" : "Set<\(destination)>") (\(definition))"
            }
            return destinationProblem(destination, relationship, definition: definition, schema: schema)
        default:
            let (wrapper, kind) = switch declared.kind {
            case .attribute: ("@Attribute", "attributes")
            case .toOne: ("@Relationship", "to-one relationships")
            case .toMany: ("@ToMany", "to-many relationships")
            }
            let fitting = switch property {
            case .attribute: "@Attribute"
            case .relationship(let relationship): relationship.isToMany ? "@ToMany" : "@Relationship"
            }
            return "\(wrapper) is for \(kind); \(definition), for \(fitting)"
        }
    }

    private static func destinationProblem(
        _ destination: ManagedObject.Type, _ relationship: RelationshipDescription, definition: String, schema: Schema
    ) -> String? {
        let bound = destination.entityName
        if bound.isEmpty || bound == relationship.destination { return nil }
        if schema.entity(named: relationship.destination)?.ancestorNames.contains(bound) == true { return nil }
        return "\(destination) is bound to the entity '\(bound)', which is not '\(relationship.destination)' or one of its ancestors; \(definition)"
    }

    /// Whether a Swift type (not optional) holds the values of an attribute type.
    private static func fits(_ swiftType: Any.Type, _ type: AttributeType) -> Bool {
        guard let kept = AttributeKeyPath.attributeType(swiftType) else { return false }
        switch (kept, type) {
        case (.int64, .int16), (.int64, .int32), (.int32, .int16), (.double, .float), (.float, .double):
            return true
        default:
            return kept == type
        }
    }

    /// `a string attribute, optional, default "x"`, `a to-many relationship to Tag, ordered`.
    static func describe(_ property: PropertyDescription) -> String {
        switch property {
        case .attribute(let attribute):
            let article = attribute.type == .int16 || attribute.type == .int32 || attribute.type == .int64 || attribute.type == .uri || attribute.type == .uuid ? "an" : "a"
            var text = "\(article) \(attribute.type.rawValue) attribute, \(attribute.isOptional ? "optional" : "required")"
            if attribute.defaultValue != nil { text += ", with a default" }
            return text
        case .relationship(let relationship):
            var text = "a \(relationship.isToMany ? "to-many" : "to-one") relationship to \(relationship.destination)"
            if relationship.isOrdered { text += ", ordered" }
            return text
        }
    }
}

/// What a typed property wrapper declares, for ``ClassCheck``.
protocol CheckedProperty {
    var key: String { get }
    var kind: CheckedPropertyKind { get }
}

enum CheckedPropertyKind {
    case attribute(Any.Type)
    case toOne(ManagedObject.Type)
    case toMany(ManagedObject.Type, ordered: Bool)
}

extension CheckedProperty {
    /// The property as declared: `@Attribute("year") Int?`.
    var declaration: String {
        switch kind {
        case .attribute(let type):
            // `String?`, as it is written, rather than `Optional<String>`.
            "@Attribute(\"\(key)\") \((type as? any OptionalProtocol.Type).map { "\($0.wrappedType)?" } ?? "\(type)")"
        case .toOne(let type): "@Relationship(\"\(key)\") \(type)?"
        case .toMany(let type, let ordered): "@ToMany(\"\(key)\") \(ordered ? "[\(type)]" : "Set<\(type)>")"
        }
    }
}

extension Attribute: CheckedProperty {
    var kind: CheckedPropertyKind { .attribute(Value.self) }
}

extension Relationship: CheckedProperty {
    var kind: CheckedPropertyKind { .toOne(Destination.self) }
}

extension ToMany: CheckedProperty {
    var kind: CheckedPropertyKind { .toMany(Collection.Element.self, ordered: !(Collection.self is Set<Collection.Element>.Type)) }
}
