internal import Foundation

/// Finds the attribute a Swift key path of a typed ``ManagedObject`` subclass reads
/// (`\Book.year` → `"year"`), for predicates and sort descriptors built from key paths.
///
/// Swift keeps no property names at run time on Linux, so the key is found by asking: a probe
/// object of the class, outside any context, is given every attribute its `@Attribute`
/// properties declare (found by reflection), and the key path is read once per attribute, with
/// that attribute alone holding a distinctive value. The attribute whose value comes back is the
/// one. (Key paths are not `Sendable`, and nothing else names them reliably, so nothing is
/// cached: a predicate from key paths costs a probe per key path when it is built.)
enum AttributeKeyPath {
    /// The attribute `keyPath` reads.
    ///
    /// - Precondition: `keyPath` is a property declared with `@Attribute` (or one that returns
    ///   such a property's value unchanged) of a subclass bound to an entity.
    static func key<Root: ManagedObject>(of keyPath: PartialKeyPath<Root>) -> String {
        guard let key = probe(keyPath) else {
            preconditionFailure("\(keyPath) is not an @Attribute property of \(Root.self): predicates and sort descriptors from key paths take the attributes a subclass declares with @Attribute (the projected key path, \\\(Root.self).$name, is checked at compile time and reaches through relationships: \\Book.$author.$name)")
        }
        return key
    }

    private static func probe<Root: ManagedObject>(_ keyPath: PartialKeyPath<Root>) -> String? {
        let declared = wrappers(of: Root(entity: EntityDescription(name: Root.entityName), objectID: ObjectID(temporaryFor: Root.entityName)))
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var samples: [(key: String, base: AttributeValue, marked: AttributeValue)] = []
        for wrapper in declared {
            switch wrapper.probeKind {
            case .attribute(let type):
                guard !attributes.contains(where: { $0.name == wrapper.key }) else { continue }
                attributes.append(AttributeDescription(name: wrapper.key, type: type ?? .transformable, isOptional: true))
                if let type, let pair = sample(type) { samples.append((wrapper.key, pair.0, pair.1)) }
            case .relationship(let destination, let toMany, let ordered):
                guard !relationships.contains(where: { $0.name == wrapper.key }) else { continue }
                relationships.append(RelationshipDescription(name: wrapper.key, destination: destination, isToMany: toMany, isOrdered: ordered, isOptional: true))
            }
        }
        let object = Root(entity: EntityDescription(name: Root.entityName, attributes: attributes, relationships: relationships), objectID: ObjectID(temporaryFor: Root.entityName))
        object.isFault = false
        func read(marking marked: String?) -> PredicateValue? {
            for sample in samples { object.attributeValues[sample.key] = sample.key == marked ? sample.marked : sample.base }
            return (object[keyPath: keyPath] as? any PredicateArgument)?.predicateValue
        }
        let base = read(marking: nil)
        for sample in samples {
            let expected = PredicateValue(sample.marked)
            if base != expected, read(marking: sample.key) == expected { return sample.key }
        }
        return nil
    }

    /// The `@Attribute`, `@Relationship` and `@ToMany` properties of an object's class and its
    /// superclasses.
    private static func wrappers(of object: ManagedObject) -> [any TypedPropertyWrapper] {
        var found: [any TypedPropertyWrapper] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let wrapper = child.value as? any TypedPropertyWrapper { found.append(wrapper) }
            }
            mirror = current.superclassMirror
        }
        return found
    }

    /// Two different values of an attribute type: one every attribute holds, one that marks the
    /// attribute asked about.
    private static func sample(_ type: AttributeType) -> (AttributeValue, AttributeValue)? {
        switch type {
        case .string: (.string("a"), .string("b"))
        case .int16, .int32, .int64: (.integer(0), .integer(1))
        case .double: (.double(0), .double(1))
        case .float: (.float(0), .float(1))
        case .decimal: (.decimal(0), .decimal(1))
        case .bool: (.bool(false), .bool(true))
        case .date: (.date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 1)))
        case .binary: (.binary(Data()), .binary(Data([1])))
        case .uuid: (.uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))))
        case .uri: (.uri(URL(string: "a:a")!), .uri(URL(string: "a:b")!))
        case .transformable: nil
        }
    }

    /// The attribute type a Swift type is kept as (through an Optional); nil for others.
    static func attributeType(_ type: Any.Type) -> AttributeType? {
        if let optional = type as? any OptionalProtocol.Type { return attributeType(optional.wrappedType) }
        switch type {
        case is String.Type: return .string
        case is Int16.Type: return .int16
        case is Int32.Type: return .int32
        case is Int.Type, is Int64.Type: return .int64
        case is Double.Type: return .double
        case is Float.Type: return .float
        case is Decimal.Type: return .decimal
        case is Bool.Type: return .bool
        case is Date.Type: return .date
        case is Data.Type: return .binary
        case is UUID.Type: return .uuid
        case is URL.Type: return .uri
        default: return nil
        }
    }
}

/// What a typed property wrapper declares, for ``AttributeKeyPath``.
protocol TypedPropertyWrapper {
    var key: String { get }
    var probeKind: TypedPropertyKind { get }
}

enum TypedPropertyKind {
    /// An attribute, of the type its Swift type is kept as (nil when that is not known).
    case attribute(AttributeType?)
    case relationship(destination: String, toMany: Bool, ordered: Bool)
}

extension Attribute: TypedPropertyWrapper {
    var probeKind: TypedPropertyKind { .attribute(AttributeKeyPath.attributeType(Value.self)) }
}

extension Relationship: TypedPropertyWrapper {
    var probeKind: TypedPropertyKind { .relationship(destination: Destination.entityName, toMany: false, ordered: false) }
}

extension ToMany: TypedPropertyWrapper {
    var probeKind: TypedPropertyKind {
        .relationship(destination: Collection.Element.entityName, toMany: true, ordered: !(Collection.self is Set<Collection.Element>.Type))
    }
}

protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }
}
