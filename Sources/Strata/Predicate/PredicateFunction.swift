/// A function of a predicate's expressions: the functions of `NSExpression` that make sense for
/// a store, each named by its selector (the raw value), which is also how the format language
/// calls it: `sum:(books.price)`, `add:to:(a, b)`, or, for a one-part name, `sum(books.price)` and
/// `now()`. Arithmetic is written with operators: `a + b` is `add:to:(a, b)`.
///
/// ```swift
/// let p = try FetchPredicate(format: "price * quantity > 100 AND lowercase:(title) BEGINSWITH 'the'")
/// let q: FetchPredicate = .function(.count, [.key("tags")]) >= 2
/// ```
///
/// Every store computes them with the same Swift code (the SQLite store calls it from SQL), so
/// the rules below hold everywhere:
///
/// - **nil**: a function of nil is nil (`abs:(nil)`, `nil + 1`); so is a function of a value of
///   the wrong kind (`abs:("a")`, `lowercase:(3)`, `1 + "a"`).
/// - **Collections**: the aggregates (`sum:` … `stddev:`) take one collection (a to-many key
///   path, an array, a SUBQUERY) and mean what the collection operators mean: `sum:(x)` is
///   `x.@sum`, `count:(x)` is `x.@count`, `average:(x)` is `x.@avg`. A single value counts as a
///   collection of one, nil as an empty one. Every other function applies to each member of a
///   collection argument (`lowercase:(tags.name)` is the lowercased names; compared, it is a
///   collection, so `lowercase:(tags.name) == "home"` means ANY); with two collections it is nil.
/// - **Numbers**: integers (and booleans, as 0 and 1) stay exact while the result fits in 64 bits,
///   and become a double when it does not; a decimal with integers or decimals is exact decimal
///   arithmetic; a double anywhere makes the result a double. `/` gives a double for two integers
///   (`7 / 2` is 3.5, as NSExpression), a decimal when a decimal is involved.
/// - **Division by zero** (`/` and `modulus:by:`, every kind) gives nil — what SQL gives, and what
///   Core Data's SQLite store gives; NSExpression in memory gives infinity or raises instead. A
///   non-finite date, and a decimal NaN, become nil and double NaN respectively.
/// - **Dates**: `date + seconds`, `seconds + date` and `date - seconds` are dates; `date - date` is
///   the seconds between them, a double.
public enum PredicateFunction: String, Sendable, Hashable, CaseIterable {
    /// The sum of a collection's non-nil numbers (0 for none): `@sum`.
    case sum = "sum:"
    /// The number of members of a collection: `@count`.
    case count = "count:"
    /// The least non-nil member, in sort order (nil for none): `@min`.
    case min = "min:"
    /// The greatest non-nil member, in sort order (nil for none): `@max`.
    case max = "max:"
    /// The mean of a collection's non-nil numbers, a double (nil for none): `@avg`.
    case average = "average:"
    /// The middle of a collection's non-nil numbers in order: for an even count, the mean of the
    /// two middle ones as a double (nil for none).
    case median = "median:"
    /// The population standard deviation of a collection's non-nil numbers, a double (nil for
    /// none).
    case stddev = "stddev:"

    /// `a + b`.
    case add = "add:to:"
    /// `a - b`: `from:subtract:(a, b)`.
    case subtract = "from:subtract:"
    /// `a * b`.
    case multiply = "multiply:by:"
    /// `a / b`: a double for two integers, nil when `b` is zero.
    case divide = "divide:by:"
    /// The remainder of `a / b`, with the sign of `a` (Swift's `%`, `truncatingRemainder`); nil
    /// when `b` is zero.
    case modulus = "modulus:by:"
    /// `a ** b`, a double.
    case raise = "raise:toPower:"
    /// `-a`. Not an NSExpression function: the parser makes it of a unary minus before anything
    /// but a number (`-price`), and it prints as one.
    case negate = "negate:"

    /// The absolute value, of the number's kind.
    case abs = "abs:"
    /// The square root, a double (NaN for a negative number).
    case sqrt = "sqrt:"
    /// The base-10 logarithm, a double.
    case log = "log:"
    /// The natural logarithm, a double.
    case ln = "ln:"
    /// e raised to the number, a double.
    case exp = "exp:"
    /// The greatest whole number not above the number, of the number's kind.
    case floor = "floor:"
    /// The least whole number not below the number, of the number's kind.
    case ceiling = "ceiling:"
    /// The number without its fraction, of the number's kind.
    case trunc = "trunc:"

    /// A string in lower case (Swift's `lowercased()`, every script, no locale).
    case lowercase = "lowercase:"
    /// A string in upper case (Swift's `uppercased()`).
    case uppercase = "uppercase:"
    /// The number of characters of a string (Swift's `count`: extended grapheme clusters, so that
    /// canonically equivalent strings have the same length).
    case length = "length:"

    /// The current date and time, read once per fetch by the SQLite store and once per
    /// evaluation in memory.
    case now = "now"
    /// Its argument unchanged: Core Data's hint not to use an index, accepted and ignored.
    case noindex = "noindex:"

    /// How many arguments the function takes.
    public var arity: Int {
        switch self {
        case .now: 0
        case .add, .subtract, .multiply, .divide, .modulus, .raise: 2
        default: 1
        }
    }

    /// Whether the function reduces a collection to one value (`sum:` … `stddev:`).
    public var isAggregate: Bool {
        switch self {
        case .sum, .count, .min, .max, .average, .median, .stddev: true
        default: false
        }
    }

    /// The infix operator that writes the function (`+ - * / **`); nil for the others.
    public var infixOperator: String? {
        switch self {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        case .divide: "/"
        case .raise: "**"
        default: nil
        }
    }

    /// The function a name calls in the format language: the selector (`add:to:`), or its first
    /// part without the colon (`add`, `now`).
    public init?(name: String) {
        if let function = PredicateFunction(rawValue: name) {
            self = function
            return
        }
        guard let function = PredicateFunction.allCases.first(where: { $0.baseName == name }) else { return nil }
        self = function
    }

    /// The first part of the selector, without its colon: `add` for `add:to:`.
    public var baseName: String {
        String(rawValue.prefix { $0 != ":" })
    }

    /// The collection operator an aggregate means (`@sum`), for the evaluator and the SQL
    /// compiler; `@median` and `@stddev` exist only here, not in key paths.
    package var collectionOperator: String? {
        switch self {
        case .sum: "@sum"
        case .count: "@count"
        case .min: "@min"
        case .max: "@max"
        case .average: "@avg"
        case .median: "@median"
        case .stddev: "@stddev"
        default: nil
        }
    }
}
