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
///
/// Saves send many rows at once as one array per column in PostgreSQL's binary format
/// (``append(_:as:to:attribute:entity:)``), and fetches read rows in the binary format
/// (``decode(binary:of:as:column:location:)``): the same values, bit for bit, without a text
/// conversion on either side; decimals alone go as text (`numeric`'s own binary format is
/// base-10000 digits, read back into text here).
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

    // MARK: - Binary format

    /// The element type of a column's array in a multi-row save, and the cast that makes the
    /// array's elements the column's values (decimals go as text, which `numeric` reads).
    static func arrayElement(_ type: AttributeType) -> (element: PGType, array: String, cast: String) {
        switch type {
        case .string, .uri: (.text, "text[]", "")
        case .int16: (.int2, "smallint[]", "")
        case .int32: (.int4, "integer[]", "")
        case .int64: (.int8, "bigint[]", "")
        case .decimal: (.text, "text[]", "::numeric")
        case .double, .date: (.float8, "double precision[]", "")
        case .float: (.float4, "real[]", "")
        case .bool: (.bool, "boolean[]", "")
        case .binary, .transformable: (.bytea, "bytea[]", "")
        case .uuid: (.uuid, "uuid[]", "")
        }
    }

    /// Appends a value to its column's array (``arrayElement(_:)``), exactly as
    /// ``encode(_:attribute:entity:)`` sends it as text; false, with nothing appended, when the
    /// value is not of the attribute's type or out of its range (the save then sends the record
    /// as text, which gives the server's own answer to it).
    /// - Throws: `validationFailed` for a string with a NUL character, as ``encode(_:attribute:entity:)``.
    static func append(_ value: AttributeValue?, as type: AttributeType, to array: inout PGArrayWriter, attribute: String, entity: String) throws(StrataError) -> Bool {
        guard let value else {
            array.appendNull()
            return true
        }
        switch (type, value) {
        case (.string, .string(var text)):
            let nul = text.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: UInt8.self) { !$0.isEmpty && memchr($0.baseAddress!, 0, $0.count) != nil }
            }
            guard !nul else { _ = try encode(value, attribute: attribute, entity: entity); return false }
            text.withUTF8 { array.append(element: UnsafeRawBufferPointer($0)) }
        case (.uri, .uri(let url)):
            array.append(element: url.absoluteString)
        case (.int16, .integer(let number)):
            guard let small = Int16(exactly: number) else { return false }
            array.append(element: small)
        case (.int32, .integer(let number)):
            guard let small = Int32(exactly: number) else { return false }
            array.append(element: small)
        case (.int64, .integer(let number)):
            array.append(element: number)
        case (.decimal, .decimal):
            guard let text = try encode(value, attribute: attribute, entity: entity) else { return false }
            array.append(element: text)
        case (.double, .double(let number)):
            array.append(element: number.bitPattern)
        case (.date, .date(let date)):
            array.append(element: date.timeIntervalSinceReferenceDate.bitPattern)
        case (.float, .float(let number)):
            array.append(element: number.bitPattern)
        case (.bool, .bool(let flag)):
            array.append(element: UInt8(flag ? 1 : 0))
        case (.binary, .binary(let data)), (.transformable, .binary(let data)):
            data.withUnsafeBytes { array.append(element: $0) }
        case (.uuid, .uuid(let uuid)):
            withUnsafeBytes(of: uuid.uuid) { array.append(element: $0) }
        default:
            return false
        }
        return true
    }

    /// A value read in the binary format from a column of type `columnType`.
    /// - Throws: `corruptStore` naming the column when the value is not one of the attribute's
    ///   type (as ``decode(_:as:column:location:)``), or the column has another type than the
    ///   store made it with.
    static func decode(binary bytes: UnsafeRawBufferPointer, of columnType: PGType, as type: AttributeType, column: String, location: String) throws(StrataError) -> AttributeValue {
        func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            bytes.count == MemoryLayout<T>.size ? T(bigEndian: bytes.loadUnaligned(as: T.self)) : nil
        }
        func string() -> String { String(decoding: bytes, as: UTF8.self) }
        let value: AttributeValue?
        switch (type, columnType) {
        case (.string, .text): value = .string(string())
        case (.int16, .int2): value = integer(Int16.self).map { .integer(Int64($0)) }
        case (.int32, .int4): value = integer(Int32.self).map { .integer(Int64($0)) }
        case (.int64, .int8): value = integer(Int64.self).map { .integer($0) }
        case (.double, .float8): value = integer(UInt64.self).map { .double(Double(bitPattern: $0)) }
        case (.float, .float4): value = integer(UInt32.self).map { .float(Float(bitPattern: $0)) }
        case (.bool, .bool): value = bytes.count == 1 ? .bool(bytes[0] != 0) : nil
        case (.binary, .bytea), (.transformable, .bytea): value = .binary(Data(bytes))
        case (.uuid, .uuid):
            value = bytes.count == 16 ? .uuid(UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))) : nil
        case (.date, .float8):
            guard let bits = integer(UInt64.self) else { value = nil; break }
            let seconds = Double(bitPattern: bits)
            guard seconds.isFinite else { return try decode(text(of: seconds), as: type, column: column, location: location) }
            value = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.decimal, .numeric):
            guard let text = numericText(bytes) else { value = nil; break }
            return try decode(text, as: type, column: column, location: location)
        case (.uri, .text):
            return try decode(string(), as: type, column: column, location: location)
        default:
            throw StrataError(.corruptStore, "column \"\(column)\" has the type with OID \(columnType.rawValue), not the one the store keeps a \(type) value in", file: location)
        }
        guard let value else {
            throw StrataError(.corruptStore, "column \"\(column)\" holds \(bytes.count) bytes, which is not a \(type) value", file: location)
        }
        return value
    }

    /// The text of a `numeric` in its binary format (`numeric_send`: the number of base-10000
    /// digits, the weight of the first, the sign, the display scale, then the digits); nil
    /// when the bytes are not one.
    static func numericText(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count >= 8 else { return nil }
        func word(_ index: Int) -> Int { Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))) }
        let count = word(0), weight = Int(Int16(truncatingIfNeeded: word(1))), sign = word(2), scale = word(3)
        guard bytes.count == 8 + 2 * count else { return nil }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: return nil
        }
        // Digits of the integer part (base-10000 groups at weights weight…0), then `scale`
        // decimal digits.
        var text = sign == 0x4000 ? "-" : ""
        if weight < 0 {
            text += "0"
        } else {
            for index in 0...weight {
                let digit = index < count ? word(4 + index) : 0
                text += index == 0 ? String(digit) : String(repeating: "0", count: 4 - String(digit).count) + String(digit)
            }
        }
        if scale > 0 {
            var fraction = ""
            var index = weight + 1
            while fraction.count < scale {
                let digit = index >= 0 && index < count ? word(4 + index) : 0
                let group = String(digit)
                fraction += String(repeating: "0", count: 4 - group.count) + group
                index += 1
            }
            text += "." + fraction.prefix(scale)
        }
        return text
    }

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
