package import Strata

/// How a value of a predicate, a column or an aggregate is kept in SQL, so that SQL functions
/// can turn it back into the `PredicateValue` the in-memory evaluator would see.
///
/// | kind | storage |
/// | --- | --- |
/// | integer, bool | INTEGER (bool 0/1) |
/// | double (and float) | REAL in an `ANY` column, so -0.0 keeps its sign; NaN as the TEXT `'NaN'` |
/// | decimal | TEXT, the decimal's description (exact, 38 digits) |
/// | string, uri | TEXT (uri: `absoluteString`) |
/// | uuid | TEXT, upper-case `uuidString` |
/// | date | REAL seconds since 2001-01-01 UTC (`timeIntervalSinceReferenceDate`, exact) |
/// | binary | BLOB (an empty value is a zero-length blob, never NULL) |
/// | number | the result of `@sum`: INTEGER, REAL, `'NaN'` or decimal TEXT, told apart by type |
package enum ValueKind: Int64, Sendable {
    case integer = 1
    case bool
    case double
    case decimal
    case string
    case date
    case binary
    case uuid
    case uri
    case number
    case object

    package init(_ type: AttributeType) {
        switch type {
        case .string: self = .string
        case .int16, .int32, .int64: self = .integer
        case .decimal: self = .decimal
        case .double, .float: self = .double
        case .bool: self = .bool
        case .date: self = .date
        case .binary, .transformable: self = .binary
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }

    /// The kind of a non-null, non-array constant.
    package init?(_ value: PredicateValue) {
        switch value {
        case .null, .array: return nil
        case .bool: self = .bool
        case .integer: self = .integer
        case .double: self = .double
        case .decimal: self = .decimal
        case .string: self = .string
        case .date: self = .date
        case .data: self = .binary
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .object: self = .object
        }
    }
}
