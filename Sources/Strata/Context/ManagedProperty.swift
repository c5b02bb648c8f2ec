/// A typed attribute of a ``ManagedObject`` subclass, stored in the object's context.
///
/// ```swift
/// final class Todo: ManagedObject {
///     override class var entityName: String { "Todo" }
///     @Attribute("title") var title: String
///     @Attribute("notes") var notes: String?
/// }
/// ```
/// A non-optional property traps when read while its value is nil; declare it optional when the
/// attribute is optional or has no default.
@propertyWrapper
public struct Attribute<Value> {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    /// The attribute's key path, for predicates and sort descriptors: `\Book.$title`
    /// (``PropertyPath``).
    public var projectedValue: AttributePath<Value> { AttributePath(keys: [key]) }

    @available(*, unavailable, message: "@Attribute works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Value {
        get {
            let key = object[keyPath: storageKeyPath].key
            // Stored kinds convert through AttributeConvertible (an int16 is kept as Int64);
            // transformable values come back as what their transformer made.
            if let convertible = Value.self as? any AttributeConvertible.Type,
               object.entity.attribute(named: key)?.type != .transformable,
               case .attribute(let raw) = object.propertyValue(forKey: key),
               let typed = convertible.fromAttributeValue(raw) as? Value {
                return typed
            }
            let value = object.value(forKey: key)
            if let typed = value as? Value { return typed }
            if value == nil, let none = Optional<Any>.none as? Value { return none }
            preconditionFailure("\(object.entity.name).\(key) is nil or not a \(Value.self); declare the property optional or give the attribute a default")
        }
        set {
            object.setValue(newValue, forKey: object[keyPath: storageKeyPath].key)
        }
    }
}

/// A typed to-one relationship of a ``ManagedObject`` subclass.
/// ```swift
/// @Relationship("location") var location: Location?
/// ```
@propertyWrapper
public struct Relationship<Destination: ManagedObject> {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    /// The relationship's key path, for predicates and sort descriptors: `\Book.$author`,
    /// `\Book.$author.$name` (``PropertyPath``).
    public var projectedValue: ToOnePath<Destination> { ToOnePath(keys: [key]) }

    @available(*, unavailable, message: "@Relationship works only on ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Destination? {
        get {
            let key = object[keyPath: storageKeyPath].key
            guard let destination = object.object(forKey: key) else { return nil }
            guard let typed = destination as? Destination else {
                preconditionFailure("\(object.entity.name).\(key) holds a \(type(of: destination)), not a \(Destination.self); register \(Destination.self) with the coordinator")
            }
            return typed
        }
        set {
            object.setObject(newValue, forKey: object[keyPath: storageKeyPath].key)
        }
    }
}

/// A typed to-many relationship of a ``ManagedObject`` subclass: a `Set` for an unordered
/// relationship, an `Array` (in stored order) for an ordered one.
/// ```swift
/// @ToMany("tags") var tags: Set<Tag>
/// @ToMany("steps") var steps: [Step]
/// ```
@propertyWrapper
public struct ToMany<Collection: Sequence> where Collection.Element: ManagedObject {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    /// The relationship's key path, for predicates: `\Author.$books.count` (``PropertyPath``).
    public var projectedValue: ToManyPath<Collection.Element> { ToManyPath(keys: [key]) }

    @available(*, unavailable, message: "@ToMany works only on ManagedObject subclasses")
    public var wrappedValue: Collection {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Collection>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Collection {
        get {
            let key = object[keyPath: storageKeyPath].key
            let members = object.objects(forKey: key).map { member -> Collection.Element in
                guard let typed = member as? Collection.Element else {
                    preconditionFailure("\(object.entity.name).\(key) holds a \(type(of: member)), not a \(Collection.Element.self); register \(Collection.Element.self) with the coordinator")
                }
                return typed
            }
            if let array = members as? Collection { return array }
            if let set = Set(members) as? Collection { return set }
            preconditionFailure("@ToMany supports Set<\(Collection.Element.self)> and [\(Collection.Element.self)], not \(Collection.self)")
        }
        set {
            let key = object[keyPath: storageKeyPath].key
            let members = Array(newValue)
            if newValue is Set<Collection.Element> {
                object.setObjects(members.sorted { $0.objectID < $1.objectID }, forKey: key)
            } else {
                object.setObjects(members, forKey: key)
            }
        }
    }
}
