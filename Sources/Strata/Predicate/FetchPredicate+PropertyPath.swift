/// Predicates and sort descriptors from the projected key paths of typed ``ManagedObject``
/// subclasses (``PropertyPath``), checked by the compiler: the key path must be a property
/// declared with `@Attribute`, `@Relationship` or `@ToMany` (a `$` key path of anything else
/// does not exist), an attribute is compared with a value of its Swift type, a to-one
/// relationship with an object of its destination's class or nil.
///
/// ```swift
/// let p: FetchPredicate = \Book.$year > 1900 && \Book.$author == ann
/// let q: FetchPredicate = \Book.$author.$name == "Ann" && \Book.$editor != nil
/// let r: FetchPredicate = \Author.$books.count >= 2 && \Author.$books.$price.max < 30
/// let s: FetchPredicate = FetchExpression.key(\Author.$books).contains(dune)
/// ```
/// They make the same ``FetchPredicate`` as the format language: `year > 1900 AND author ==
/// %@`, `author.name == "Ann"`, `books.@count >= 2`, `books.@max.price < 30`, `books CONTAINS %@`.
/// An object is compared by its ID (an object not yet saved has a temporary ID, which no stored
/// object matches, as in Core Data).
extension FetchExpression {
    /// The key path a projected property path names: `.key(\Book.$author.$name)` is `author.name`.
    public static func key<Root: ManagedObject, P: PropertyPath>(_ keyPath: KeyPath<Root, P>) -> FetchExpression {
        .keyPath(PropertyProbe.keys(of: keyPath))
    }

    /// `self CONTAINS object`: a to-many relationship has `object` among its members (by ID).
    public func contains(_ object: ManagedObject) -> FetchPredicate {
        compare(.contains, .constant(.object(object.objectID)))
    }
}

/// The constant of an object or nil: its ID.
private func constant(_ object: ManagedObject?) -> FetchExpression {
    .constant(object.map { .object($0.objectID) } ?? .null)
}

/// `keyPath == value`: `\Book.$title == "Dune"`, `\Book.$author.$name == "Ann"`.
public func == <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, AttributePath<Value>>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) == value
}

/// `keyPath != value`.
public func != <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, AttributePath<Value>>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) != value
}

/// `keyPath < value`.
public func < <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, AttributePath<Value>>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) < value
}

/// `keyPath <= value`.
public func <= <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, AttributePath<Value>>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) <= value
}

/// `keyPath > value`: `\Book.$year > 1900`.
public func > <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, AttributePath<Value>>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) > value
}

/// `keyPath >= value`.
public func >= <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, AttributePath<Value>>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) >= value
}

/// `keyPath == object`: the to-one relationship holds `object` (nil: holds nothing).
public func == <Root: ManagedObject, Destination: ManagedObject>(keyPath: KeyPath<Root, ToOnePath<Destination>>, object: Destination?) -> FetchPredicate {
    FetchExpression.key(keyPath) == constant(object)
}

/// `keyPath != object`: the to-one relationship holds another object or none (nil: holds one).
public func != <Root: ManagedObject, Destination: ManagedObject>(keyPath: KeyPath<Root, ToOnePath<Destination>>, object: Destination?) -> FetchPredicate {
    FetchExpression.key(keyPath) != constant(object)
}

extension FetchSortDescriptor {
    /// A sort key from a projected attribute path: `FetchSortDescriptor(\Book.$author.$name)`.
    public init<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, AttributePath<Value>>, ascending: Bool = true, comparison: StringComparison = .default) {
        self.init(PropertyProbe.keys(of: keyPath).joined(separator: "."), ascending: ascending, comparison: comparison)
    }
}
