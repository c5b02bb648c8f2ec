public import Foundation

/// A condition on objects: the syntax tree behind fetch requests, shared by the in-memory
/// evaluator and the SQL compiler so that both agree on every input.
///
/// Build one in code or parse the NSPredicate format-string language:
/// ```swift
/// let p1: FetchPredicate = .key("priority") >= 3 && FetchExpression.key("title").beginsWith("Buy", options: .caseInsensitive)
/// let p2 = try FetchPredicate(format: "priority >= %@ AND title BEGINSWITH[c] %@", 3, "Buy")
/// ```
public indirect enum FetchPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case comparison(Comparison)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case not(FetchPredicate)

    public static let `true` = FetchPredicate.constant(true)
    public static let `false` = FetchPredicate.constant(false)
}

/// `left op right`, optionally over every member of a to-many key path (ANY/ALL/NONE).
public struct Comparison: Sendable, Hashable {
    public var left: FetchExpression
    public var op: ComparisonOperator
    public var right: FetchExpression
    public var modifier: ComparisonModifier
    public var options: ComparisonOptions

    public init(
        _ left: FetchExpression, _ op: ComparisonOperator, _ right: FetchExpression,
        modifier: ComparisonModifier = .direct, options: ComparisonOptions = []
    ) {
        self.left = left
        self.op = op
        self.right = right
        self.modifier = modifier
        self.options = options
    }
}

public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    /// `left IN right`: right is a collection (array literal or to-many key path).
    case `in` = "IN"
    /// `left CONTAINS right`: substring for strings; membership for collections.
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    /// `*` matches any run of characters, `?` one character.
    case like = "LIKE"
    /// An ICU regular expression that must match the whole string.
    case matches = "MATCHES"
    /// `left BETWEEN {low, high}`, both ends included.
    case between = "BETWEEN"
}

/// How a comparison applies to a collection on its left: `ANY`/`SOME`, `ALL`, `NONE`.
public enum ComparisonModifier: String, Sendable, Hashable {
    case direct = ""
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// String comparison options: `[c]` case-insensitive, `[d]` diacritic-insensitive, `[n]`
/// (accepted, no effect: comparisons already follow Unicode canonical equivalence).
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    public static let normalized = ComparisonOptions(rawValue: 4)
}

/// One side of a comparison.
public indirect enum FetchExpression: Sendable, Hashable {
    /// A literal or argument value.
    case constant(PredicateValue)
    /// A key path from the evaluated object (`author.name`, `books.@count`, `tags.@max.name`);
    /// components starting with `@` are collection operators: `@count @sum @avg @min @max`.
    case keyPath([String])
    /// `SELF`: the evaluated object itself.
    case evaluatedObject
    /// `$name`: a substitution variable, or the variable of an enclosing `SUBQUERY`, followed by
    /// an optional key path (`$t.name`).
    case variable(String, [String])
    /// `{a, b, c}`: an array of expressions.
    case array([FetchExpression])
    /// `SUBQUERY(collection, $x, predicate)` followed by an optional key path such as `@count`.
    case subquery(collection: FetchExpression, variable: String, predicate: FetchPredicate, keyPath: [String])
    /// A function of expressions: `sum:(books.price)`, `lowercase:(title)`, `now()`, and the
    /// arithmetic `price * 2 + 1` (`add:to:`, `multiply:by:`, …); see ``PredicateFunction`` for
    /// each one's meaning.
    case function(PredicateFunction, [FetchExpression])
    /// `collection[index]` followed by an optional key path: `steps[FIRST]`, `steps[LAST].name`,
    /// `steps[SIZE]`, `steps[2]`; see ``PredicateIndex``.
    case index(FetchExpression, PredicateIndex, keyPath: [String])

    /// `$name`, a substitution variable: `FetchExpression.variable("minimum")`.
    public static func variable(_ name: String) -> FetchExpression {
        .variable(name, [])
    }

    /// A key path from a dotted string: `.key("author.name")`.
    public static func key(_ path: String) -> FetchExpression {
        .keyPath(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}

/// The index of a subscript on an ordered collection (an ordered to-many key path, an array):
/// `steps[FIRST]`, `steps[LAST]`, `steps[SIZE]`, `steps[2]`.
///
/// Positions count from 0, as in `NSExpression`. A position past either end, a negative one or
/// one that is not a whole number gives nil (NSExpression raises instead); `SIZE` is the number of
/// members (`@count`). An unordered to-many relationship takes `SIZE` only: its members have no
/// order to pick the first from.
public indirect enum PredicateIndex: Sendable, Hashable {
    case first
    case last
    case size
    /// A position, counted from 0: a constant, a variable or any expression giving a number.
    case position(FetchExpression)
}

/// A constant inside a predicate.
public indirect enum PredicateValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)
    /// An object, compared by identity with to-one relationships and `SELF`.
    case object(ObjectID)
    case array([PredicateValue])
}

extension PredicateValue {
    /// The value of an attribute, as a predicate constant.
    public init(_ value: AttributeValue?) {
        switch value {
        case nil: self = .null
        case .string(let v): self = .string(v)
        case .integer(let v): self = .integer(v)
        case .decimal(let v): self = .decimal(v)
        case .double(let v): self = .double(v)
        case .float(let v): self = .double(Double(v))
        case .bool(let v): self = .bool(v)
        case .date(let v): self = .date(v)
        case .binary(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .uri(let v): self = .uri(v)
        }
    }
}

extension PredicateValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: PredicateValue...) { self = .array(elements) }
}
