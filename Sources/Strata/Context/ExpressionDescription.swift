/// One column of a dictionary fetch (Core Data's `NSExpressionDescription`): an expression, the
/// key its value has in each result dictionary, and optionally the type to return it as.
///
/// The expression is a key path from the fetched entity — an attribute, a to-one relationship
/// or a key path through to-one relationships (`publisher.name`), a to-many relationship, a
/// per-object aggregate (`books.@count`, `books.@avg.price`) — or an aggregate over the objects
/// of each group, written as a key path that starts with a collection operator: `@count` (the
/// objects), `@count.price` (the objects whose price is not nil), `@sum.price`, `@avg.price`,
/// `@min.published`, `@max.publisher.name`.
///
/// ```swift
/// var request = FetchRequest(entityName: "Book", resultType: .dictionaries)
/// request.expressionsToFetch = [.key("publisher.name"), .count(as: "books"), .average("price", as: "meanPrice")]
/// request.propertiesToGroupBy = ["publisher.name"]
/// request.havingPredicate = try FetchPredicate(format: "books > 1")
/// ```
///
/// Results of aggregates (the same on every store):
/// - `@count` is an integer (0 for no objects); `@count.key` counts the objects whose value is
///   not nil.
/// - `@sum` of integers is an integer (a double once it no longer fits 64 bits), of decimals an
///   exact decimal, of doubles and floats a double; the sum of no values is 0 of that type.
/// - `@avg` is a double, also of decimals and integers (the one definition of `@avg` that
///   predicates use); nil when there is no value.
/// - `@min` and `@max` have the type of their attribute, follow the sort order (NaN after every
///   number), and are nil when there is no value.
/// - `@median` (`median:(price)`) is the middle value in order, or the mean of the two middle
///   ones: a decimal for decimals, else a double; `@stddev` (`stddev:(price)`) is the population
///   standard deviation, a double. Both are nil when there is no value, and group aggregates
///   only (not operators inside a key path, as in Foundation).
/// - nil values are left out of every aggregate.
public struct ExpressionDescription: Sendable, Hashable, CustomStringConvertible {
    /// The key of the value in each result dictionary, and the name a `havingPredicate` and the
    /// sort descriptors of a grouped request use for it.
    public var name: String
    public var expression: FetchExpression
    /// The type to return the value as; nil returns it as computed (see the type's summary).
    /// Numbers convert to other number types (to an integer type toward zero; nil when out of
    /// range or not finite); other values are refused unless the type is theirs.
    public var resultType: AttributeType?

    public init(name: String, expression: FetchExpression, resultType: AttributeType? = nil) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }

    /// A key path (or an aggregate written as one, `@avg.price`), named by itself.
    public init(keyPath: String) {
        self.init(name: keyPath, expression: .key(keyPath))
    }

    /// A key path column: `.key("publisher.name")`, named by its key path unless `name` is given.
    public static func key(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        ExpressionDescription(name: name ?? keyPath, expression: .key(keyPath))
    }

    /// `@count`: how many objects a group has; with a key path, how many of them have a value.
    public static func count(_ keyPath: String? = nil, as name: String? = nil) -> ExpressionDescription {
        aggregate(.count, keyPath, as: name)
    }

    /// `@sum.keyPath` over the objects of each group.
    public static func sum(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        aggregate(.sum, keyPath, as: name)
    }

    /// `@avg.keyPath` over the objects of each group, as a double.
    public static func average(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        aggregate(.average, keyPath, as: name)
    }

    /// `@min.keyPath` over the objects of each group.
    public static func minimum(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        aggregate(.minimum, keyPath, as: name)
    }

    /// `@max.keyPath` over the objects of each group.
    public static func maximum(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        aggregate(.maximum, keyPath, as: name)
    }

    /// `@median.keyPath` over the objects of each group (`median:(keyPath)`).
    public static func median(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        aggregate(.median, keyPath, as: name)
    }

    /// `@stddev.keyPath` over the objects of each group (`stddev:(keyPath)`): the population
    /// standard deviation.
    public static func standardDeviation(_ keyPath: String, as name: String? = nil) -> ExpressionDescription {
        aggregate(.standardDeviation, keyPath, as: name)
    }

    /// An aggregate over the objects of each group: `@op.keyPath`, named so unless `name` is given.
    public static func aggregate(_ function: AggregateFunction, _ keyPath: String?, as name: String? = nil) -> ExpressionDescription {
        let path = [function.rawValue] + (keyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } ?? [])
        return ExpressionDescription(name: name ?? path.joined(separator: "."), expression: .keyPath(path))
    }

    public var description: String {
        if case .keyPath(let path) = expression, path.joined(separator: ".") == name { return name }
        return "\(name) = \(expression)"
    }
}

/// The aggregates of a dictionary fetch, by their collection operators.
public enum AggregateFunction: String, Sendable, Hashable, CaseIterable {
    case count = "@count"
    case sum = "@sum"
    case average = "@avg"
    case minimum = "@min"
    case maximum = "@max"
    /// The middle value of a group's non-nil numbers in order; for an even count the mean of the
    /// two middle ones (`median:` of the predicate language). A double, or a decimal for decimals.
    case median = "@median"
    /// The population standard deviation of a group's non-nil numbers (`stddev:`), a double.
    case standardDeviation = "@stddev"

    /// Whether the operator may stand inside a key path (`books.@max.price`), as Foundation's
    /// collection operators may; `@median` and `@stddev` only aggregate groups (`@median.price`,
    /// `median:(price)`), and in predicates are the functions `median:` and `stddev:`.
    package var isCollectionOperator: Bool {
        self != .median && self != .standardDeviation
    }

    /// The aggregate a function of the predicate language stands for (`sum:` is `@sum`); nil
    /// for the others.
    public init?(_ function: PredicateFunction) {
        switch function {
        case .count: self = .count
        case .sum: self = .sum
        case .average: self = .average
        case .min: self = .minimum
        case .max: self = .maximum
        case .median: self = .median
        case .stddev: self = .standardDeviation
        default: return nil
        }
    }
}
