public import Foundation

/// A Swift type that an attribute value converts to and from.
public protocol AttributeConvertible {
    /// The attribute value, or nil for an Optional that is nil.
    var attributeValue: AttributeValue? { get }
    /// The Swift value of an attribute value; nil when the kinds do not match.
    static func fromAttributeValue(_ value: AttributeValue?) -> Self?
}

extension String: AttributeConvertible {
    public var attributeValue: AttributeValue? { .string(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> String? {
        if case .string(let v) = value { return v }
        return nil
    }
}

extension Bool: AttributeConvertible {
    public var attributeValue: AttributeValue? { .bool(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Bool? {
        if case .bool(let v) = value { return v }
        return nil
    }
}

extension Double: AttributeConvertible {
    public var attributeValue: AttributeValue? { .double(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Double? {
        switch value {
        case .double(let v): v
        case .float(let v): Double(v)
        default: nil
        }
    }
}

extension Float: AttributeConvertible {
    public var attributeValue: AttributeValue? { .float(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Float? {
        switch value {
        case .float(let v): v
        case .double(let v): Float(v)
        default: nil
        }
    }
}

extension Decimal: AttributeConvertible {
    public var attributeValue: AttributeValue? { .decimal(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Decimal? {
        if case .decimal(let v) = value { return v }
        return nil
    }
}

extension Date: AttributeConvertible {
    public var attributeValue: AttributeValue? { .date(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Date? {
        if case .date(let v) = value { return v }
        return nil
    }
}

extension Data: AttributeConvertible {
    public var attributeValue: AttributeValue? { .binary(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Data? {
        if case .binary(let v) = value { return v }
        return nil
    }
}

extension UUID: AttributeConvertible {
    public var attributeValue: AttributeValue? { .uuid(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> UUID? {
        if case .uuid(let v) = value { return v }
        return nil
    }
}

extension URL: AttributeConvertible {
    public var attributeValue: AttributeValue? { .uri(self) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> URL? {
        if case .uri(let v) = value { return v }
        return nil
    }
}

/// Integers of every width; the attribute's own type bounds them at save.
public protocol IntegerAttributeConvertible: AttributeConvertible, FixedWidthInteger {}

extension IntegerAttributeConvertible {
    public var attributeValue: AttributeValue? { .integer(Int64(self)) }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Self? {
        if case .integer(let v) = value { return Self(exactly: v) }
        return nil
    }
}

extension Int: IntegerAttributeConvertible {}
extension Int16: IntegerAttributeConvertible {}
extension Int32: IntegerAttributeConvertible {}
extension Int64: IntegerAttributeConvertible {}

extension Optional: AttributeConvertible where Wrapped: AttributeConvertible {
    public var attributeValue: AttributeValue? { self?.attributeValue }
    public static func fromAttributeValue(_ value: AttributeValue?) -> Wrapped?? {
        guard let value else { return .some(nil) }
        return Wrapped.fromAttributeValue(value).map { .some($0) }
    }
}

extension ManagedObject {
    // MARK: - Dynamic access

    /// A property's value: a Swift value for an attribute (`String`, `Int64`, `Double`, `Float`,
    /// `Bool`, `Decimal`, `Date`, `Data`, `UUID`, `URL`, or the transformed value of a
    /// transformable), the object or nil for a to-one, `Set<ManagedObject>` for a to-many and
    /// `[ManagedObject]` for an ordered to-many. Setting checks the value's type against the model.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    public func value(forKey key: String) -> Any? {
        // The common case first: an attribute that is not transformable, read by position
        // without copying its description or looking its name up twice.
        let layout = attributeValues.layout
        if let position = layout.position(of: key), let types = layout.types, types[position] != .transformable {
            fulfillFault()
            if attributeValues.layout === layout { return attributeValues[position: position].map(Self.swiftValue) }
            return attributeValues[key].map(Self.swiftValue)
        }
        switch property(key) {
        case .attribute(let attribute):
            fulfillFault()
            guard let value = attributeValues[key] else { return nil }
            if attribute.type == .transformable, case .binary(let data) = value {
                return transformer(for: attribute).map { try? $0.reverseTransform(data) } ?? data
            }
            return Self.swiftValue(value)
        case .relationship(let relationship):
            if relationship.isToMany {
                let members = objects(forKey: key)
                return relationship.isOrdered ? members as Any : Set(members) as Any
            }
            return object(forKey: key)
        }
    }

    public func setValue(_ value: Any?, forKey key: String) {
        // The common case first: a plain Swift value for a non-transformable attribute, set by
        // position without copying the attribute's description or casting to protocols.
        let layout = attributeValues.layout
        if let value, let direct = Self.plainAttributeValue(value), let position = layout.position(of: key), let types = layout.types {
            let type = types[position]
            if type != .transformable && Self.fits(direct, type) {
                context().setAttribute(self, position: position, Self.normalize(direct, to: type))
                return
            }
        }
        // A generic Optional passed as Any arrives wrapped once more: unwrap it.
        let value = value.flatMap(unwrapOptional)
        switch property(key) {
        case .attribute(let attribute):
            context().setAttribute(self, key, Self.attributeValue(value, for: attribute, entity: entity.name, transformer: transformer(for: attribute)))
        case .relationship(let relationship):
            if relationship.isToMany {
                let members: [ManagedObject]
                switch value {
                case nil: members = []
                case let set as Set<ManagedObject>: members = set.sorted { $0.objectID < $1.objectID }
                case let array as [ManagedObject]: members = array
                default:
                    preconditionFailure("\(entity.name).\(key) is a to-many relationship; set a Set<ManagedObject> or [ManagedObject], not \(type(of: value!))")
                }
                setObjects(members, forKey: key)
            } else {
                guard let value else {
                    setObject(nil, forKey: key)
                    return
                }
                guard let object = value as? ManagedObject else {
                    preconditionFailure("\(entity.name).\(key) is a to-one relationship; set a ManagedObject, not \(type(of: value))")
                }
                setObject(object, forKey: key)
            }
        }
    }

    /// An attribute's value as `T`; nil when it is nil. Traps when `T` does not fit the
    /// attribute's type (a programming error).
    public func value<T: AttributeConvertible>(forKey key: String, as type: T.Type = T.self) -> T? {
        guard case .attribute(let attribute) = property(key) else {
            preconditionFailure("\(entity.name).\(key) is a relationship, not an attribute")
        }
        fulfillFault()
        guard let value = attributeValues[key] else { return nil }
        if attribute.type == .transformable, case .binary(let data) = value,
           let transformer = transformer(for: attribute) {
            guard let decoded = try? transformer.reverseTransform(data) else { return nil }
            guard let typed = decoded as? T else {
                preconditionFailure("\(entity.name).\(key) holds a \(Swift.type(of: decoded)), not a \(T.self)")
            }
            return typed
        }
        guard let converted = T.fromAttributeValue(value) else {
            preconditionFailure("\(entity.name).\(key) is a \(attribute.type.rawValue) attribute; it cannot be read as \(T.self)")
        }
        return converted
    }

    /// Sets an attribute from a typed value (nil clears it).
    public func setValue<T: AttributeConvertible>(_ value: T, forKey key: String) {
        guard case .attribute(let attribute) = property(key) else {
            preconditionFailure("\(entity.name).\(key) is a relationship, not an attribute")
        }
        if attribute.type == .transformable {
            setValue(value as Any, forKey: key)
            return
        }
        let converted = value.attributeValue
        if let converted {
            precondition(Self.fits(converted, attribute.type), "\(entity.name).\(key) is a \(attribute.type.rawValue) attribute; it cannot hold \(T.self)")
        }
        context().setAttribute(self, key, Self.normalize(converted, to: attribute.type))
    }

    // MARK: - Relationships

    /// The destination of a to-one relationship.
    public func object(forKey key: String) -> ManagedObject? {
        let relationship = toOneRelationship(key)
        fulfillFault()
        guard let id = toOneID(at: relationshipPosition(relationship.name)), let context = managedObjectContext else { return nil }
        return context.materialize(id)
    }

    public func setObject(_ destination: ManagedObject?, forKey key: String) {
        let relationship = toOneRelationship(key)
        if let destination { checkDestination(destination, of: relationship) }
        context().setToOne(self, relationship, destination)
    }

    /// The members of a to-many relationship: in stored order for an ordered one; an unordered
    /// one has no defined order (members come in the order they were added until one is
    /// removed, which moves the last member into its place).
    public func objects(forKey key: String) -> [ManagedObject] {
        let relationship = toManyRelationship(key)
        fulfillFault()
        let ids = memberIDs(relationship.name)
        guard let context = managedObjectContext else { return [] }
        return ids.map { context.materialize($0) }
    }

    public func addObject(_ destination: ManagedObject, forKey key: String) {
        let relationship = toManyRelationship(key)
        checkDestination(destination, of: relationship)
        context().addToMany(self, relationship, destination)
    }

    /// Inserts into an ordered to-many at a position.
    public func insertObject(_ destination: ManagedObject, at index: Int, forKey key: String) {
        let relationship = toManyRelationship(key)
        precondition(relationship.isOrdered, "\(entity.name).\(key) is not ordered")
        checkDestination(destination, of: relationship)
        context().addToMany(self, relationship, destination, at: index)
    }

    public func removeObject(_ destination: ManagedObject, forKey key: String) {
        context().removeFromToMany(self, toManyRelationship(key), destination)
    }

    public func setObjects(_ destinations: [ManagedObject], forKey key: String) {
        let relationship = toManyRelationship(key)
        for destination in destinations { checkDestination(destination, of: relationship) }
        context().setToMany(self, relationship, destinations)
    }

    private func toOneRelationship(_ key: String) -> RelationshipDescription {
        guard case .relationship(let relationship) = property(key), !relationship.isToMany else {
            preconditionFailure("\(entity.name).\(key) is not a to-one relationship")
        }
        return relationship
    }

    private func toManyRelationship(_ key: String) -> RelationshipDescription {
        guard case .relationship(let relationship) = property(key), relationship.isToMany else {
            preconditionFailure("\(entity.name).\(key) is not a to-many relationship")
        }
        return relationship
    }

    private func checkDestination(_ destination: ManagedObject, of relationship: RelationshipDescription) {
        precondition(destination.managedObjectContext === managedObjectContext,
                     "\(destination) belongs to another context; fetch it in this one with object(with: objectID)")
        precondition(destination.entity.name == relationship.destination || destination.entity.ancestorNames.contains(relationship.destination),
                     "\(entity.name).\(relationship.name) holds \(relationship.destination) objects, not \(destination.entity.name)")
    }

    private func context() -> ManagedObjectContext {
        guard let context = owningContext else {
            preconditionFailure("\(self) is no longer in a context (it was reset, or its insert was undone)")
        }
        return context
    }

    private func transformer(for attribute: AttributeDescription) -> (any AttributeTransformer)? {
        guard attribute.type == .transformable, let name = attribute.transformerName else { return nil }
        guard let transformer = context().coordinator.attributeTransformers.transformer(named: name) else {
            preconditionFailure("no value transformer named '\(name)' is registered for \(entity.name).\(attribute.name); register one with coordinator.attributeTransformers.register(_:name:)")
        }
        return transformer
    }

    // MARK: - Conversions

    /// The nil of an Optional that arrived boxed in `Any` (a typed property set to nil, or
    /// `Optional<T>.none as Any`) as a plain nil.
    static func swiftValue(_ value: AttributeValue) -> Any {
        switch value {
        case .string(let v): v
        case .integer(let v): v
        case .decimal(let v): v
        case .double(let v): v
        case .float(let v): v
        case .bool(let v): v
        case .date(let v): v
        case .binary(let v): v
        case .uuid(let v): v
        case .uri(let v): v
        }
    }

    /// The attribute value of the Swift types apps set most; nil for anything else. The value's
    /// dynamic type is compared first, so that only one cast is made (a chain of `as?` casts
    /// cost one failed cast per type tried, on every value set).
    static func plainAttributeValue(_ value: Any) -> AttributeValue? {
        switch ObjectIdentifier(type(of: value)) {
        case PlainType.string: .string(value as! String)
        case PlainType.int64: .integer(value as! Int64)
        case PlainType.int: .integer(Int64(value as! Int))
        case PlainType.double: .double(value as! Double)
        case PlainType.bool: .bool(value as! Bool)
        case PlainType.date: .date(value as! Date)
        case PlainType.int32: .integer(Int64(value as! Int32))
        case PlainType.decimal: .decimal(value as! Decimal)
        case PlainType.uuid: .uuid(value as! UUID)
        default: nil
        }
    }

    private enum PlainType {
        static let string = ObjectIdentifier(String.self)
        static let int64 = ObjectIdentifier(Int64.self)
        static let int = ObjectIdentifier(Int.self)
        static let double = ObjectIdentifier(Double.self)
        static let bool = ObjectIdentifier(Bool.self)
        static let date = ObjectIdentifier(Date.self)
        static let int32 = ObjectIdentifier(Int32.self)
        static let decimal = ObjectIdentifier(Decimal.self)
        static let uuid = ObjectIdentifier(UUID.self)
    }

    static func attributeValue(_ value: Any?, for attribute: AttributeDescription, entity: String, transformer: (any AttributeTransformer)?) -> AttributeValue? {
        guard let value else { return nil }
        if attribute.type == .transformable {
            if let data = value as? Data, transformer == nil { return .binary(data) }
            guard let transformer else { return nil }
            do {
                return .binary(try transformer.transform(value))
            } catch {
                preconditionFailure("value transformer '\(attribute.transformerName ?? "")' cannot encode a \(type(of: value)) for \(entity).\(attribute.name): \(error)")
            }
        }
        let converted: AttributeValue?
        switch value {
        case let v as AttributeValue: converted = v
        case let v as any BinaryInteger: converted = Int64(exactly: v).map { .integer($0) }
        case let v as any AttributeConvertible: converted = v.attributeValue
        default: converted = nil
        }
        guard let converted, fits(converted, attribute.type) else {
            preconditionFailure("\(entity).\(attribute.name) is a \(attribute.type.rawValue) attribute; it cannot hold a \(type(of: value))")
        }
        return normalize(converted, to: attribute.type)
    }

    /// Whether a value can be stored in an attribute of `type` (numbers convert between kinds).
    static func fits(_ value: AttributeValue, _ type: AttributeType) -> Bool {
        switch (value, type) {
        case (.string, .string), (.bool, .bool), (.date, .date), (.binary, .binary), (.binary, .transformable),
             (.uuid, .uuid), (.uri, .uri), (.decimal, .decimal):
            true
        case (.integer, .int16), (.integer, .int32), (.integer, .int64), (.integer, .decimal),
             (.integer, .double), (.integer, .float), (.double, .double), (.float, .double),
             (.double, .float), (.float, .float):
            true
        default:
            false
        }
    }

    /// The value in the attribute type's own kind (an integer set on a double is a double).
    static func normalize(_ value: AttributeValue?, to type: AttributeType) -> AttributeValue? {
        switch (value, type) {
        case (.integer(let v), .double): .double(Double(v))
        case (.integer(let v), .float): .float(Float(v))
        case (.integer(let v), .decimal): .decimal(Decimal(v))
        case (.float(let v), .double): .double(Double(v))
        case (.double(let v), .float): .float(Float(v))
        default: value
        }
    }
}

/// Lets `Any` that holds an `Optional` be unwrapped without knowing the wrapped type.
private protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    fileprivate var wrappedAny: Any? {
        guard let self else { return nil }
        return unwrapOptional(self)
    }
}

private func unwrapOptional(_ value: Any) -> Any? {
    if let optional = value as? any AnyOptional { return optional.wrappedAny }
    return value
}
