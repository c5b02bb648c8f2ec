internal import CSQLite
internal import Foundation
internal import Strata
internal import StrataSQL

extension ValueKind {
    /// The declared type of a column of this kind (tables are STRICT).
    static func columnType(_ type: AttributeType) -> String {
        SQLiteDialect().columnType(type)
    }
}

/// Conversions between attribute and predicate values and their SQL storage.
enum ValueCodec {
    static let nanText = "NaN"

    static func decimalText(_ value: Decimal) -> String {
        DecimalText.text(for: value)
    }

    static func decimal(_ text: String) -> Decimal? {
        Decimal(string: text, locale: posix)
    }

    /// Made once: a `Locale` costs microseconds to make.
    private static let posix = Locale(identifier: "en_US_POSIX")

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

    /// What a stored value that is not of its attribute's type was expected to be.
    struct Mismatch: Error {
        let expected: String
    }

    /// The attribute value of a column read by `statement` at `index`; nil for NULL.
    ///
    /// Strict: a value that is not of `type` — another storage class, an integer out of the
    /// type's range, a bool other than 0 or 1, a text that is not a decimal, a UUID or a URI —
    /// throws instead of turning into another value. The checks read the column in place: no
    /// allocation beyond the value itself.
    /// - Throws: ``Mismatch``, saying what was expected.
    static func decode(_ statement: Statement, _ index: Int32, as type: AttributeType) throws(Mismatch) -> AttributeValue? {
        let column = statement.column(index)
        let storage = column.type
        if storage == SQLITE_NULL { return nil }
        switch type {
        case .string:
            guard storage == SQLITE_TEXT, let text = column.validText else { throw Mismatch(expected: "a text in UTF-8") }
            return .string(text)
        case .int16:
            return .integer(try integer(column, storage, in: Int64(Int16.min)...Int64(Int16.max), "an int16"))
        case .int32:
            return .integer(try integer(column, storage, in: Int64(Int32.min)...Int64(Int32.max), "an int32"))
        case .int64:
            guard storage == SQLITE_INTEGER else { throw Mismatch(expected: "an integer") }
            return .integer(column.int64)
        case .bool:
            return .bool(try integer(column, storage, in: 0...1, "a bool") == 1)
        case .double:
            return .double(try double(column, storage))
        case .float:
            let value = try double(column, storage)
            guard !value.isFinite || value.magnitude <= Double(Float.greatestFiniteMagnitude) else {
                throw Mismatch(expected: "a float (a number within ±\(Float.greatestFiniteMagnitude))")
            }
            return .float(Float(value))
        case .decimal:
            guard storage == SQLITE_TEXT, let value = column.withText(strictDecimal) else {
                throw Mismatch(expected: "a decimal written as text, like \"12.50\"")
            }
            return .decimal(value)
        case .date:
            guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { throw Mismatch(expected: "a date (seconds since 2001 as a real)") }
            let seconds = column.double
            guard seconds.isFinite else { throw Mismatch(expected: "a date (a finite number of seconds since 2001)") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .binary, .transformable:
            guard storage == SQLITE_BLOB else { throw Mismatch(expected: "a blob") }
            return .binary(column.blob)
        case .uuid:
            guard storage == SQLITE_TEXT, let uuid = column.withText({ UUIDText.uuid(ascii: UnsafeRawBufferPointer($0)) }) else {
                throw Mismatch(expected: "a UUID like \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")
            }
            return .uuid(uuid)
        case .uri:
            guard storage == SQLITE_TEXT, let text = column.validText, !text.isEmpty, let url = URL(string: text) else {
                throw Mismatch(expected: "a URI like \"https://example.com/a\"")
            }
            return .uri(url)
        }
    }

    @inline(__always)
    private static func integer(_ column: Statement.Column, _ storage: Int32, in range: ClosedRange<Int64>, _ name: StaticString) throws(Mismatch) -> Int64 {
        let value = column.int64
        guard storage == SQLITE_INTEGER, range.contains(value) else {
            throw Mismatch(expected: "\(name) (an integer from \(range.lowerBound) to \(range.upperBound))")
        }
        return value
    }

    /// A REAL; an INTEGER (SQLite may hand back a whole-number REAL as one, and the shell stores
    /// `2` as one); NaN is kept as the text 'NaN', since SQLite stores a NaN REAL as NULL.
    @inline(__always)
    private static func double(_ column: Statement.Column, _ storage: Int32) throws(Mismatch) -> Double {
        switch storage {
        case SQLITE_FLOAT: return column.double
        case SQLITE_INTEGER: return Double(column.int64)
        case SQLITE_TEXT where column.withText({ $0.elementsEqual(nanText.utf8) }): return .nan
        default: throw Mismatch(expected: "a number (a real, an integer or the text 'NaN')")
        }
    }

    /// A decimal from its whole text, by the one strict rule (``AttributeValue/parseDecimal(_:)``:
    /// what `Decimal.description` writes, at most 38 significant digits) or `NaN`; nil for
    /// anything else, which Foundation's parser would read in part (`12abc` as 12) or round.
    static func strictDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Decimal? {
        if bytes.elementsEqual(nanText.utf8) { return Decimal.nan }
        return AttributeValue.parseDecimal(String(decoding: bytes, as: UTF8.self))
    }

    /// A stored value as an error message shows it: a text quoted with its control characters
    /// escaped and cut after 60 characters, a blob by its size.
    static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return "the integer \(v)"
        case .real(let v): return "the real \(v)"
        case .blob(let v): return "a blob of \(v.count) byte\(v.count == 1 ? "" : "s")"
        case .text(let v): return "the text \(shown(v))"
        }
    }

    /// A text as an error message shows it: quoted, control characters escaped, cut after 60
    /// characters.
    static func shown(_ text: String) -> String {
        text.count > 60 ? String(reflecting: String(text.prefix(60))) + "…" : String(reflecting: text)
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
