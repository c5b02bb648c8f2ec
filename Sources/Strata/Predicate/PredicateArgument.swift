public import Foundation

/// A Swift value that can fill a `%@` (or `%d`, `%f`, `%s`, `%K`) in a predicate format, or stand
/// on the right of a comparison built in code.
///
/// ```swift
/// let p = try FetchPredicate(format: "title BEGINSWITH[c] %@ AND priority >= %d", "Buy", 3)
/// let q = FetchExpression.key("tags.name").in(["home", "work"])
/// ```
/// Strings, every integer type, `Double`, `Float`, `Bool`, `Decimal`, `Date`, `Data`, `UUID`,
/// `URL`, ``ObjectID``, ``PredicateValue``, arrays and sets of these, and optionals of these
/// (`nil` is `NIL`) conform.
public protocol PredicateArgument {
    /// The value as a predicate constant.
    var predicateValue: PredicateValue { get }
}

extension PredicateValue: PredicateArgument {
    public var predicateValue: PredicateValue { self }
}

extension String: PredicateArgument {
    public var predicateValue: PredicateValue { .string(self) }
}

extension Bool: PredicateArgument {
    public var predicateValue: PredicateValue { .bool(self) }
}

extension Int: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension Int8: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension Int16: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension Int32: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension Int64: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(self) }
}

extension UInt: PredicateArgument {
    /// An integer; a value above `Int64.max` becomes an exact `.decimal`.
    public var predicateValue: PredicateValue { UInt64(self).predicateValue }
}

extension UInt8: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension UInt16: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension UInt32: PredicateArgument {
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension UInt64: PredicateArgument {
    /// An integer; a value above `Int64.max` becomes an exact `.decimal`.
    public var predicateValue: PredicateValue {
        if let value = Int64(exactly: self) { return .integer(value) }
        return .decimal(Decimal(self))
    }
}

extension Double: PredicateArgument {
    public var predicateValue: PredicateValue { .double(self) }
}

extension Float: PredicateArgument {
    public var predicateValue: PredicateValue { .double(Double(self)) }
}

extension Decimal: PredicateArgument {
    public var predicateValue: PredicateValue { .decimal(self) }
}

extension Date: PredicateArgument {
    public var predicateValue: PredicateValue { .date(self) }
}

extension Data: PredicateArgument {
    public var predicateValue: PredicateValue { .data(self) }
}

extension UUID: PredicateArgument {
    public var predicateValue: PredicateValue { .uuid(self) }
}

extension URL: PredicateArgument {
    public var predicateValue: PredicateValue { .uri(self) }
}

extension ObjectID: PredicateArgument {
    public var predicateValue: PredicateValue { .object(self) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value, or `.null`.
    public var predicateValue: PredicateValue { self?.predicateValue ?? .null }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    public var predicateValue: PredicateValue { .array(map(\.predicateValue)) }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    /// An array sorted by the elements' printed form, so that equal sets give equal predicates.
    public var predicateValue: PredicateValue {
        .array(map(\.predicateValue).sorted { $0.description < $1.description })
    }
}
