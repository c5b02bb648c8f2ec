internal import CSQLite
internal import Foundation
internal import Strata

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
enum ValueKind: Int64, Sendable {
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

    init(_ type: AttributeType) {
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
    init?(_ value: PredicateValue) {
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

    /// The declared type of a column of this kind (tables are STRICT).
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .decimal, .uuid, .uri: "TEXT"
        case .int16, .int32, .int64, .bool: "INTEGER"
        // ANY keeps a bound REAL as it is: a REAL column would store -0.0 as the integer 0.
        case .double, .float: "ANY"
        case .date: "REAL"
        case .binary, .transformable: "BLOB"
        }
    }
}

/// Conversions between attribute and predicate values and their SQL storage.
enum ValueCodec {
    static let nanText = "NaN"

    static func decimalText(_ value: Decimal) -> String {
        value.description
    }

    static func decimal(_ text: String) -> Decimal? {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    static func double(_ value: Double) -> SQLValue {
        value.isNaN ? .text(nanText) : .real(value)
    }

    // MARK: Attribute values

    static func encode(_ value: AttributeValue?) -> SQLValue {
        guard let value else { return .null }
        switch value {
        case .string(let v): return .text(v)
        case .integer(let v): return .integer(v)
        case .decimal(let v): return .text(decimalText(v))
        case .double(let v): return double(v)
        case .float(let v): return double(Double(v))
        case .bool(let v): return .integer(v ? 1 : 0)
        case .date(let v): return .real(v.timeIntervalSinceReferenceDate)
        case .binary(let v): return .blob(v)
        case .uuid(let v): return .text(v.uuidString)
        case .uri(let v): return .text(v.absoluteString)
        }
    }

    /// Binds an attribute value as ``encode(_:)-swift.type.method`` stores it, without building the
    /// `SQLValue` in between (the save's inner loop).
    static func bind(_ value: AttributeValue?, to statement: Statement, at index: Int32) throws(StrataError) {
        switch value {
        case .integer(let v)?: try statement.bindInteger(v, at: index)
        case .bool(let v)?: try statement.bindInteger(v ? 1 : 0, at: index)
        case .double(let v)? where !v.isNaN: try statement.bindReal(v, at: index)
        case .float(let v)? where !v.isNaN: try statement.bindReal(Double(v), at: index)
        case .date(let v)?: try statement.bindReal(v.timeIntervalSinceReferenceDate, at: index)
        case .string(let v)?: try statement.bindText(v, at: index)
        default: try statement.bind(encode(value), at: index)
        }
    }

    /// The attribute value of a column read by `statement` at `index`.
    static func decode(_ statement: Statement, _ index: Int32, as type: AttributeType) -> AttributeValue? {
        let storage = statement.type(index)
        if storage == SQLITE_NULL { return nil }
        switch type {
        case .string:
            return .string(statement.text(index))
        case .int16, .int32, .int64:
            return .integer(statement.int64(index))
        case .bool:
            return .bool(statement.int64(index) != 0)
        case .double:
            if storage == SQLITE_TEXT { return .double(.nan) }
            return .double(statement.double(index))
        case .float:
            if storage == SQLITE_TEXT { return .float(.nan) }
            return .float(Float(statement.double(index)))
        case .decimal:
            if storage == SQLITE_TEXT { return decimal(statement.text(index)).map { .decimal($0) } }
            if storage == SQLITE_INTEGER { return .decimal(Decimal(statement.int64(index))) }
            return .decimal(Decimal(statement.double(index)))
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: statement.double(index)))
        case .binary, .transformable:
            return .binary(statement.blob(index))
        case .uuid:
            return UUID(uuidString: statement.text(index)).map { .uuid($0) }
        case .uri:
            return URL(string: statement.text(index)).map { .uri($0) }
        }
    }

    // MARK: FetchPredicate values

    /// A constant as it is stored for its kind.
    static func encode(_ value: PredicateValue) -> SQLValue {
        switch value {
        case .null, .array: return .null
        case .bool(let v): return .integer(v ? 1 : 0)
        case .integer(let v): return .integer(v)
        case .double(let v): return double(v)
        case .decimal(let v): return .text(decimalText(v))
        case .string(let v): return .text(v)
        case .date(let v): return .real(v.timeIntervalSinceReferenceDate)
        case .data(let v): return .blob(v)
        case .uuid(let v): return .text(v.uuidString)
        case .uri(let v): return .text(v.absoluteString)
        case .object(let id): return .integer(id.primaryKey ?? 0)
        }
    }

    /// The predicate value an SQL value of `kind` stands for.
    static func decode(_ value: SQLValue, as kind: ValueKind) -> PredicateValue {
        switch (kind, value) {
        case (_, .null): return .null
        case (.integer, .integer(let v)): return .integer(v)
        case (.integer, .real(let v)): return .double(v)
        case (.bool, .integer(let v)): return .bool(v != 0)
        case (.double, .real(let v)): return .double(v)
        case (.double, .integer(let v)): return .double(Double(v))
        case (.double, .text): return .double(.nan)
        case (.decimal, .text(let v)): return decimal(v).map { .decimal($0) } ?? .null
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        case (.string, .text(let v)): return .string(v)
        case (.date, .real(let v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case (.date, .integer(let v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.binary, .blob(let v)): return .data(v)
        case (.uuid, .text(let v)): return UUID(uuidString: v).map { .uuid($0) } ?? .null
        case (.uri, .text(let v)): return URL(string: v).map { .uri($0) } ?? .null
        case (.number, .integer(let v)): return .integer(v)
        case (.number, .real(let v)): return .double(v)
        case (.number, .text(let v)): return v == nanText ? .double(.nan) : decimal(v).map { .decimal($0) } ?? .null
        case (_, .text(let v)): return .string(v)
        case (_, .integer(let v)): return .integer(v)
        case (_, .real(let v)): return .double(v)
        case (_, .blob(let v)): return .data(v)
        }
    }
}
