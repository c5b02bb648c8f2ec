internal import Foundation
internal import Strata
internal import StrataSQL

/// How each attribute type is kept in PostgreSQL, exactly:
///
/// | type | column | text sent and read |
/// |---|---|---|
/// | string, uri | `text` | the string (a URI's `absoluteString`) |
/// | int16, int32, int64 | `smallint`, `integer`, `bigint` | decimal digits |
/// | decimal | `numeric` | Strata's decimal text; `NaN` |
/// | double | `double precision` | the shortest text that reads back to the same bits: `-0`, `NaN`, `Infinity`, `-Infinity` kept |
/// | float | `real` | likewise, for 32 bits |
/// | bool | `boolean` | `true`/`false` |
/// | date | `double precision` | seconds since 2001-01-01 UTC (`timeIntervalSinceReferenceDate`), bit for bit as the SQLite store keeps it; `to_timestamp("createdAt" + 978307200)` shows it as a timestamp |
/// | binary, transformable | `bytea` | hex (`\x…`); an empty value is an empty `bytea`, never NULL |
/// | uuid | `uuid` | the UUID |
///
/// A date is not a `timestamptz`, whose microseconds would round a `Date`'s bits away.
enum PostgresValueCoding {
    /// The column type of an attribute type.
    static func columnType(_ type: AttributeType) -> String {
        PostgreSQLDialect().columnType(type)
    }

    /// The text parameter of a value; nil for nil.
    /// - Throws: `validationFailed` for a string PostgreSQL cannot hold (one with a NUL character).
    static func encode(_ value: AttributeValue?, attribute: String, entity: String) throws(StrataError) -> String? {
        guard let value else { return nil }
        switch value {
        case .string(let text):
            guard !text.utf8.contains(0) else {
                throw StrataError(.validationFailed, "\(entity).\(attribute) holds a string with a NUL character (U+0000), which PostgreSQL's text cannot store; nothing was saved")
            }
            return text
        case .integer(let number): return String(number)
        case .decimal(let number): return number.isNaN ? "NaN" : DecimalText.text(for: number)
        case .double(let number): return text(of: number)
        case .float(let number): return number.isNaN ? "NaN" : number.isInfinite ? (number < 0 ? "-Infinity" : "Infinity") : number.description
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let date): return text(of: date.timeIntervalSinceReferenceDate)
        case .binary(let data): return hex(data)
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        }
    }

    /// A double's text: Swift's shortest round-trip digits, with PostgreSQL's names for the
    /// values that are not numbers.
    static func text(of number: Double) -> String {
        number.isNaN ? "NaN" : number.isInfinite ? (number < 0 ? "-Infinity" : "Infinity") : number.description
    }

    /// `bytea` input in hex: `\x` then two digits a byte.
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        bytes.reserveCapacity(2 + data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A value read back as text.
    /// - Throws: `corruptStore` naming the column when the text is not a value of the type (a
    ///   row edited by hand).
    static func decode(_ text: String, as type: AttributeType, column: String, location: String) throws(StrataError) -> AttributeValue {
        let value: AttributeValue?
        switch type {
        case .string: value = .string(text)
        case .int16, .int32, .int64: value = Int64(text).map { .integer($0) }
        case .decimal: value = text == "NaN" ? .decimal(.nan) : Decimal(string: text, locale: posix).map { .decimal($0) }
        case .double: value = double(text).map { .double($0) }
        // Read as a Float, not through a Double: rounding the shortest digits of a float to a
        // double first can land on a midpoint and round to the neighbouring float
        // ("7.038531e-26" is 0x15AE43FD; through a Double it becomes 0x15AE43FE).
        case .float: value = double(text).map { number in .float(number.isFinite ? Float(text) ?? Float(number) : Float(number)) }
        case .bool: value = text == "t" ? .bool(true) : text == "f" ? .bool(false) : nil
        case .date: value = double(text).flatMap { $0.isFinite ? .date(Date(timeIntervalSinceReferenceDate: $0)) : nil }
        case .binary, .transformable: value = bytes(text).map { .binary($0) }
        case .uuid: value = UUID(uuidString: text).map { .uuid($0) }
        case .uri: value = URL(string: text).map { .uri($0) }
        }
        guard let value else {
            throw StrataError(.corruptStore, "column \"\(column)\" holds '\(text.prefix(40))', which is not a \(type) value", file: location)
        }
        return value
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    private static func double(_ text: String) -> Double? {
        switch text {
        case "NaN": .nan
        case "Infinity": .infinity
        case "-Infinity": -.infinity
        default: Double(text)
        }
    }

    /// The bytes of `bytea` output in hex.
    private static func bytes(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }
}
