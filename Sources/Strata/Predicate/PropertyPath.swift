/// Key paths of the managed properties of typed ``ManagedObject`` subclasses, as the property
/// wrappers project them: `\Book.$title` is the attribute `title`, `\Book.$author` the to-one
/// relationship `author`, `\Book.$author.$name` the key path `author.name`, `\Author.$books` the
/// to-many relationship `books` and `\Author.$books.count` its `@count`.
///
/// Only a property declared with `@Attribute`, `@Relationship` or `@ToMany` has a `$` form, so a
/// key path of anything else does not compile; the key is read from the wrapper, never guessed.
/// Predicates and sort descriptors take them (``FetchExpression/key(_:)-(KeyPath<Root,P>)``,
/// `==`, `<`, …):
///
/// ```swift
/// let p: FetchPredicate = \Book.$year > 1900 && \Book.$author == ann
/// let q: FetchPredicate = \Book.$author.$name == "Ann" || \Book.$author == nil
/// let r: FetchPredicate = \Author.$books.count >= 2 && FetchExpression.key(\Author.$books).contains(dune)
/// let order = FetchSortDescriptor(\Book.$author.$name)
/// ```
public protocol PropertyPath: Sendable {
    /// The keys from the root object: `["author", "name"]`.
    var keys: [String] { get }
}

/// An attribute, or an aggregate of a to-many relationship (`\Author.$books.count`), read through
/// the key path ``keys``; `Value` is the property's Swift type.
public struct AttributePath<Value>: PropertyPath, Hashable {
    public let keys: [String]

    public init(keys: [String]) {
        self.keys = keys
    }
}

/// A to-one relationship (through to-one relationships); its destination's managed properties
/// continue the path: `\Book.$author.$name`, `\Book.$author.$publisher`.
@dynamicMemberLookup
public struct ToOnePath<Destination: ManagedObject>: PropertyPath, Hashable {
    public let keys: [String]

    public init(keys: [String]) {
        self.keys = keys
    }

    /// An attribute of the destination: `\Book.$author.$name`.
    public subscript<Value>(dynamicMember path: KeyPath<Destination, AttributePath<Value>>) -> AttributePath<Value> {
        AttributePath(keys: keys + PropertyProbe.keys(of: path))
    }

    /// A to-one relationship of the destination: `\Book.$author.$publisher`.
    public subscript<Next>(dynamicMember path: KeyPath<Destination, ToOnePath<Next>>) -> ToOnePath<Next> {
        ToOnePath<Next>(keys: keys + PropertyProbe.keys(of: path))
    }

    /// A to-many relationship of the destination: `\Book.$author.$books`.
    public subscript<Member>(dynamicMember path: KeyPath<Destination, ToManyPath<Member>>) -> ToManyPath<Member> {
        ToManyPath<Member>(keys: keys + PropertyProbe.keys(of: path))
    }
}

/// A to-many relationship: compared with `contains` (a member), counted (`count`), and its
/// members' attributes aggregated (`\Author.$books.$price.max`).
@dynamicMemberLookup
public struct ToManyPath<Member: ManagedObject>: PropertyPath, Hashable {
    public let keys: [String]

    public init(keys: [String]) {
        self.keys = keys
    }

    /// How many members: `books.@count`.
    public var count: AttributePath<Int> { AttributePath(keys: keys + ["@count"]) }

    /// An attribute of the members, to aggregate: `\Author.$books.$price.sum`.
    public subscript<Value>(dynamicMember path: KeyPath<Member, AttributePath<Value>>) -> MemberValuesPath<Value> {
        MemberValuesPath(relationship: keys, attribute: PropertyProbe.keys(of: path))
    }
}

/// An attribute of a to-many relationship's members (`\Author.$books.$price`), which a
/// predicate compares through an aggregate: `sum`, `average`, `min`, `max`.
public struct MemberValuesPath<Value>: Sendable, Hashable {
    /// The key path of the relationship, and of the attribute from a member.
    public let relationship: [String]
    public let attribute: [String]

    /// `books.@sum.price`: 0 for no members.
    public var sum: AttributePath<Value> { aggregate("@sum") }
    /// `books.@avg.price`: a double, nil for no members.
    public var average: AttributePath<Double?> { aggregate("@avg") }
    /// `books.@min.price`.
    public var min: AttributePath<Value> { aggregate("@min") }
    /// `books.@max.price`.
    public var max: AttributePath<Value> { aggregate("@max") }

    private func aggregate<Result>(_ operation: String) -> AttributePath<Result> {
        AttributePath(keys: relationship + [operation] + attribute)
    }
}

/// Reads the keys of a projected key path from a probe object of its class: the projected value
/// of a property wrapper is made of the wrapper's key alone, so no context, value or reflection
/// is involved.
enum PropertyProbe {
    static func keys<Root: ManagedObject, Path: PropertyPath>(of path: KeyPath<Root, Path>) -> [String] {
        let probe = Root(entity: EntityDescription(name: Root.entityName), objectID: ObjectID(temporaryFor: Root.entityName))
        return probe[keyPath: path].keys
    }
}
