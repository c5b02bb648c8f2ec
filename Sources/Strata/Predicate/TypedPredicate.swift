/// A predicate on the objects of one typed ``ManagedObject`` subclass, built from its key paths.
///
/// Where the class is known from the call, key paths need no type name:
/// ```swift
/// let request = Book.fetchRequest(where: \.year > 1900 && \.title != "Dune", sortedBy: \.title)
/// let books = try context.fetch(Book.self, where: \.year > 1900, sortedBy: \.year, \.title)
/// ```
/// It wraps the same ``FetchPredicate`` as `\Book.year > 1900`; where a `FetchPredicate` is
/// expected, the operators make one of those instead.
public struct TypedPredicate<Root: ManagedObject>: Sendable, Hashable {
    /// The predicate.
    public var predicate: FetchPredicate

    /// A predicate on `Root`'s objects from any predicate (a format string, a tree).
    public init(_ predicate: FetchPredicate) {
        self.predicate = predicate
    }

    /// `left AND right`.
    public static func && (left: Self, right: Self) -> Self { Self(left.predicate && right.predicate) }
    /// `left OR right`.
    public static func || (left: Self, right: Self) -> Self { Self(left.predicate || right.predicate) }
    /// `NOT predicate`.
    public static prefix func ! (predicate: Self) -> Self { Self(!predicate.predicate) }
}

// The operators for a key path whose root comes from the context (`\.year > 1900` as a
// `TypedPredicate<Book>`). Disfavoured, so that where both fit (`let p = \Book.year > 1900`)
// the plain `FetchPredicate` is made, as before.

/// `keyPath == value` on `Root`'s objects.
@_disfavoredOverload
public func == <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> TypedPredicate<Root> {
    TypedPredicate(FetchExpression.key(keyPath) == value)
}

/// `keyPath != value` on `Root`'s objects.
@_disfavoredOverload
public func != <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> TypedPredicate<Root> {
    TypedPredicate(FetchExpression.key(keyPath) != value)
}

/// `keyPath < value` on `Root`'s objects.
@_disfavoredOverload
public func < <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> TypedPredicate<Root> {
    TypedPredicate(FetchExpression.key(keyPath) < value)
}

/// `keyPath <= value` on `Root`'s objects.
@_disfavoredOverload
public func <= <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> TypedPredicate<Root> {
    TypedPredicate(FetchExpression.key(keyPath) <= value)
}

/// `keyPath > value` on `Root`'s objects.
@_disfavoredOverload
public func > <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> TypedPredicate<Root> {
    TypedPredicate(FetchExpression.key(keyPath) > value)
}

/// `keyPath >= value` on `Root`'s objects.
@_disfavoredOverload
public func >= <Root: ManagedObject, Value: PredicateArgument>(keyPath: KeyPath<Root, Value>, value: Value) -> TypedPredicate<Root> {
    TypedPredicate(FetchExpression.key(keyPath) >= value)
}

/// Typed fetch requests for every ``ManagedObject`` subclass (`Self` is the class).
public protocol TypedFetching: ManagedObject {}

extension ManagedObject: TypedFetching {}

extension TypedFetching {
    /// A request for this class's entity (and its subentities), filtered and sorted by the
    /// class's key paths: `Book.fetchRequest(where: \.year > 1900, sortedBy: \.title)`.
    ///
    /// - Parameters:
    ///   - predicate: which objects; every one when nil.
    ///   - keyPaths: `@Attribute` properties to sort by, ascending, the first first.
    public static func fetchRequest(where predicate: TypedPredicate<Self>? = nil, sortedBy keyPaths: PartialKeyPath<Self>...) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate?.predicate, sortDescriptors: keyPaths.map(FetchSortDescriptor.init(keyPath:)))
    }

    /// A request for this class's entity, filtered by the class's key paths and sorted by
    /// any sort descriptors: `Book.fetchRequest(where: \.year > 1900, sortedBy: [FetchSortDescriptor(\Book.year, ascending: false)])`.
    public static func fetchRequest(where predicate: TypedPredicate<Self>? = nil, sortedBy sortDescriptors: [FetchSortDescriptor]) -> FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate?.predicate, sortDescriptors: sortDescriptors)
    }
}

extension ManagedObjectContext {
    /// The objects of a class that match a predicate built from its key paths, sorted by its
    /// key paths: `try context.fetch(Book.self, where: \.year > 1900, sortedBy: \.title)`.
    /// (Disfavoured: `context.fetch(Book.self)` is the untyped overload's.)
    @_disfavoredOverload
    public func fetch<T: ManagedObject>(
        _ type: T.Type, where predicate: TypedPredicate<T>? = nil, sortedBy keyPaths: PartialKeyPath<T>..., limit: Int = 0
    ) throws(StrataError) -> [T] {
        try fetch(type, where: predicate?.predicate, sortedBy: keyPaths.map(FetchSortDescriptor.init(keyPath:)), limit: limit)
    }
}

extension FetchSortDescriptor {
    /// An ascending sort key from a typed property of any type.
    init<Root: ManagedObject>(keyPath: PartialKeyPath<Root>) {
        self.init(AttributeKeyPath.key(of: keyPath))
    }
}
