public import Foundation

/// A stored attribute value, typed as the model describes it.
///
/// Integer attributes of every width use `.integer`; `binary` and `transformable` attributes use
/// `.binary` (a transformable value is stored as the data its value transformer produced).
/// Equality treats NaN as equal to NaN so that a value, a default and a round trip through any
/// store compare as the same value.
public enum AttributeValue: Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case decimal(Decimal)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case date(Date)
    case binary(Data)
    case uuid(UUID)
    case uri(URL)

    public var description: String {
        switch self {
        case .string(let value): String(reflecting: value)
        case .integer(let value): String(value)
        case .decimal(let value): value.description
        case .double(let value): value.description
        case .float(let value): value.description
        case .bool(let value): String(value)
        case .date(let value): ISO8601.string(from: value)
        case .binary(let value): "<\(value.count) bytes>"
        case .uuid(let value): value.uuidString
        case .uri(let value): value.absoluteString
        }
    }
}

extension AttributeValue: Hashable {
    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        case (.bool(let a), .bool(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.binary(let a), .binary(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.uri(let a), .uri(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value): hasher.combine(0); hasher.combine(value)
        case .integer(let value): hasher.combine(1); hasher.combine(value)
        case .decimal(let value): hasher.combine(2); hasher.combine(value)
        case .double(let value): hasher.combine(3); hasher.combine(value.isNaN ? .nan : value)
        case .float(let value): hasher.combine(4); hasher.combine(value.isNaN ? .nan : value)
        case .bool(let value): hasher.combine(5); hasher.combine(value)
        case .date(let value): hasher.combine(6); hasher.combine(value)
        case .binary(let value): hasher.combine(7); hasher.combine(value)
        case .uuid(let value): hasher.combine(8); hasher.combine(value)
        case .uri(let value): hasher.combine(9); hasher.combine(value)
        }
    }
}

extension AttributeValue {
    /// Compares two values of the ordered types (numbers and dates): -1, 0 or 1; nil when they
    /// cannot be compared (different kinds, or a NaN). Integers, decimals, doubles and floats
    /// compare by numeric value across kinds.
    package static func order(_ lhs: AttributeValue, _ rhs: AttributeValue) -> Int? {
        switch (lhs, rhs) {
        case (.date(let a), .date(let b)):
            return a < b ? -1 : a > b ? 1 : 0
        case (.integer(let a), .integer(let b)):
            return a < b ? -1 : a > b ? 1 : 0
        case (.decimal(let a), .decimal(let b)):
            return a < b ? -1 : a > b ? 1 : 0
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue, !a.isNaN, !b.isNaN else { return nil }
            if a != b { return a < b ? -1 : 1 }
            // Equal as doubles: compare exactly where a double would round (large int64s).
            switch (lhs, rhs) {
            case (.integer(let x), .decimal(let y)): return order(.decimal(Decimal(x)), .decimal(y))
            case (.decimal(let x), .integer(let y)): return order(.decimal(x), .decimal(Decimal(y)))
            case (.integer(let x), .double), (.integer(let x), .float): return order(x, wholeNumber: b)
            case (.double, .integer(let y)), (.float, .integer(let y)): return -order(y, wholeNumber: a)
            default: return 0
            }
        }
    }

    /// Compares an integer with the double it rounds to, which is a whole number but may be
    /// 2^63, one past `Int64.max`.
    private static func order(_ integer: Int64, wholeNumber double: Double) -> Int {
        guard let exact = Int64(exactly: double) else { return double > 0 ? -1 : 1 }
        return integer < exact ? -1 : integer > exact ? 1 : 0
    }

    /// The value as a double, for numbers; nil for the other kinds.
    package var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        // Through the exact text: NSDecimalNumber.doubleValue is off by one step for many values on Linux.
        case .decimal(let value): Double(value.description) ?? NSDecimalNumber(decimal: value).doubleValue
        case .double(let value): value
        case .float(let value): Double(value)
        default: nil
        }
    }
}
