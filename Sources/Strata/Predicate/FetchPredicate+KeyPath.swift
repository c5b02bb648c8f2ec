/// Predicates and sort descriptors from the key paths of typed ``ManagedObject`` subclasses,
/// checked by the compiler: the attribute must belong to the class, and the value must have its
/// type.
///
/// ```swift
/// final class Book: ManagedObject {
///     override class var entityName: String { "Book" }
///     @Attribute("title") var title: String
///     @Attribute("year") var year: Int?
/// }
/// let p: FetchPredicate = \Book.year > 1900 && !(\Book.title == "Dune")
/// let q: FetchPredicate = .key(\Book.title).beginsWith("The", options: .caseInsensitive)
/// let order = FetchSortDescriptor(\Book.year, ascending: false)
/// ```
/// They make the same ``FetchPredicate`` as `FetchPredicate(format: "year > 1900 AND NOT title ==
/// 'Dune'")`. The key paths are the properties a subclass declares with `@Attribute`, found by
/// reading the key path on a probe object at run time: a key path of another property compiles
/// and traps (Swift's key paths do not say which property they read). The projected forms
/// (``PropertyPath``: `\Book.$year > 1900`, `\Book.$author == ann`, `\Book.$author.$name`) are
/// checked by the compiler instead, and reach through relationships.
extension FetchExpression {
    /// The attribute a typed property reads: `.key(\Book.title)` is `title`.
    ///
    /// - Precondition: `keyPath` is an `@Attribute` property of a subclass bound to an entity.
    public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>) -> FetchExpression {
        .keyPath([AttributeKeyPath.key(of: keyPath)])
    }
}

/// `keyPath == value`: `\Book.title == "Dune"`.
public func == <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) == value
}

/// `keyPath != value`.
public func != <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) != value
}

/// `keyPath < value`.
public func < <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) < value
}

/// `keyPath <= value`.
public func <= <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) <= value
}

/// `keyPath > value`: `\Book.year > 1900`.
public func > <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) > value
}

/// `keyPath >= value`.
public func >= <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> FetchPredicate {
    FetchExpression.key(keyPath) >= value
}

extension FetchSortDescriptor {
    /// A sort key from a typed property: `FetchSortDescriptor(\Book.year, ascending: false)`.
    ///
    /// - Precondition: `keyPath` is an `@Attribute` property of a subclass bound to an entity.
    public init<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: StringComparison = .default) {
        self.init(AttributeKeyPath.key(of: keyPath), ascending: ascending, comparison: comparison)
    }
}
