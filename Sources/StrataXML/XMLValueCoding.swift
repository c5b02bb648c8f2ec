package import Foundation
package import Strata

/// Why the text of an element is not a valid encoding of its attribute type.
package struct XMLValueError: Error {
    package var message: String

    package init(message: String) {
        self.message = message
    }
}

/// The text forms of attribute values in an XML store, chosen so that every value reads back
/// exactly (`==` on ``AttributeValue``, NaN included):
///
/// | type | text |
/// | --- | --- |
/// | `string` | the string itself; `encoding="base64"` (base64 of its UTF-8) when it holds a character XML 1.0 cannot carry |
/// | `int16`, `int32`, `int64` | decimal digits with an optional `-` |
/// | `decimal` | plain decimal notation (`-12.5`, never an exponent), or `NaN` |
/// | `double`, `float` | Swift's shortest round-trip text (`0.1`, `1e-05`, `-0.0`), or `NaN`, `Infinity`, `-Infinity` |
/// | `bool` | `true` or `false` |
/// | `date` | ISO 8601 UTC with milliseconds; a date that is not a whole number of milliseconds is written as seconds since 2001-01-01 (Core Data's form) so that it stays exact |
/// | `binary`, `transformable` | base64 (no line breaks); empty data is an empty element |
/// | `uuid` | upper-case UUID text |
/// | `uri` | the absolute URI text |
package enum XMLValueCoding {
    // MARK: - Writing

    /// Appends the text of a value of an attribute of type `type` whose text never needs
    /// escaping: every type but `string` and `uri` (which the writer escapes itself).
    /// - Returns: false when the value is of another kind (nothing is appended).
    static func append(_ value: AttributeValue, type: AttributeType, to sink: inout XMLByteSink) throws(XMLValueError) -> Bool {
        switch (type, value) {
        case (.int16, .integer(let integer)), (.int32, .integer(let integer)), (.int64, .integer(let integer)):
            guard type.integerRange!.contains(integer) else {
                throw XMLValueError(message: "\(integer) is out of the range of an \(type.rawValue)")
            }
            sink.appendDecimal(integer)
        case (.decimal, .decimal(let decimal)):
            appendDecimal(decimal, to: &sink)
        case (.double, .double(let double)):
            appendNumber(double, to: &sink)
        case (.float, .float(let float)):
            appendNumber(float, to: &sink)
        case (.bool, .bool(let bool)):
            sink.append(bool ? "true" : "false")
        case (.date, .date(let date)):
            var written = false
            sink.withSpace(24) { out in
                written = writeISO(date, into: out)
                return written ? 24 : 0
            }
            if !written { appendNumber(date.timeIntervalSinceReferenceDate, to: &sink) }
        case (.binary, .binary(let data)), (.transformable, .binary(let data)):
            data.withUnsafeBytes { sink.appendBase64($0) }
        case (.uuid, .uuid(let uuid)):
            sink.withSpace(36) { writeUUID(uuid, into: $0) }
        default:
            return false
        }
        return true
    }

    /// Swift's shortest text that reads back to the same value (`description`), or `NaN`,
    /// `Infinity`, `-Infinity`.
    static func appendNumber<Number: BinaryFloatingPoint & TextOutputStreamable>(_ number: Number, to sink: inout XMLByteSink) {
        if number.isNaN {
            sink.append("NaN")
        } else if number.isInfinite {
            sink.append(number < 0 ? "-Infinity" : "Infinity")
        } else {
            // The text of `description`, handed over without a String.
            number.write(to: &sink)
        }
    }

    /// Plain notation (``DecimalText``), or `NaN`.
    static func appendDecimal(_ decimal: Decimal, to sink: inout XMLByteSink) {
        if decimal.isNaN { return sink.append("NaN") }
        var written = false
        if DecimalText.layoutIsAsExpected {
            sink.withSpace(DecimalText.maximumLength) { out in
                guard let count = DecimalText.write(decimal, into: out) else { return 0 }
                written = true
                return count
            }
        }
        if !written { sink.write(decimal.description) }
    }

    // MARK: - Reading

    /// Reads the text of an attribute element.
    /// - Parameter base64: the element carried `encoding="base64"` (strings only).
    package static func value(from text: UnsafeBufferPointer<UInt8>, type: AttributeType, base64: Bool) throws(XMLValueError) -> AttributeValue {
        switch type {
        case .string:
            return .string(base64 ? try decodeBase64Text(text) : String(decoding: text, as: UTF8.self))
        case .int16, .int32, .int64:
            let range = type.integerRange!
            guard let integer = parseInteger(text), range.contains(integer) else {
                throw XMLValueError(message: "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(quoted(text))")
            }
            return .integer(integer)
        case .decimal:
            guard let decimal = parseDecimal(text) else {
                throw XMLValueError(message: "expected a decimal number like 12.50 with at most 38 significant digits, found \(quoted(text))")
            }
            return .decimal(decimal)
        case .double:
            if let double = ShortDecimalParsing.double(text) { return .double(double) }
            guard let double = parseDouble(text) else {
                throw XMLValueError(message: "expected a number (or NaN, Infinity, -Infinity), found \(quoted(text))")
            }
            return .double(double)
        case .float:
            if let float = ShortDecimalParsing.float(text) { return .float(float) }
            guard let double = parseDouble(text) else {
                throw XMLValueError(message: "expected a number (or NaN, Infinity, -Infinity), found \(quoted(text))")
            }
            // Parse the float from the text itself: rounding through a double first can be off by one ulp.
            let float = double.isFinite
                ? CNumberParsing.float(text) ?? Float(String(decoding: text, as: UTF8.self)) ?? .infinity
                : Float(double)
            guard float.isFinite || !double.isFinite else {
                throw XMLValueError(message: "\(quoted(text)) is out of the range of a float")
            }
            return .float(float)
        case .bool:
            if equals(text, "true") { return .bool(true) }
            if equals(text, "false") { return .bool(false) }
            throw XMLValueError(message: "expected true or false, found \(quoted(text))")
        case .date:
            if let date = parseCanonicalDate(text) { return .date(date) }
            let string = String(decoding: text, as: UTF8.self)
            if let date = ISO8601.date(from: string) { return .date(date) }
            if let seconds = parseDouble(text) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            throw XMLValueError(message: "expected an ISO 8601 date like 2024-05-01T10:00:00.000Z (or seconds since 2001-01-01), found \(quoted(text))")
        case .binary, .transformable:
            return .binary(try decodeBase64(text))
        case .uuid:
            guard let uuid = parseUUID(text) else {
                throw XMLValueError(message: "expected a UUID like E621E1F8-C36C-495A-93FC-0C247A3E6E5F, found \(quoted(text))")
            }
            return .uuid(uuid)
        case .uri:
            let string = String(decoding: text, as: UTF8.self)
            guard !string.isEmpty, let url = URL(string: string) else {
                throw XMLValueError(message: "expected a URI like https://example.com/a, found \(quoted(text))")
            }
            return .uri(url)
        }
    }

    /// The text of a free-text element, decoding `encoding="base64"`.
    static func string(from text: UnsafeBufferPointer<UInt8>, base64: Bool) throws(XMLValueError) -> String {
        base64 ? try decodeBase64Text(text) : String(decoding: text, as: UTF8.self)
    }

    /// `-?[0-9]+` within Int64.
    package static func parseInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !text.isEmpty else { return nil }
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < text.count else { return nil }
        var value: Int64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulate negatively so that Int64.min parses.
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// `-?digits[.digits][e[+-]digits]`, or `NaN`, `Infinity`, `-Infinity`. Stricter than
    /// `Double(_:)`, which also takes hexadecimal, `inf`, `+1` and `nan(0x1)`.
    package static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if equals(text, "NaN") { return .nan }
        if equals(text, "Infinity") { return .infinity }
        if equals(text, "-Infinity") { return -.infinity }
        if let double = ShortDecimalParsing.double(text) { return double }
        guard isDecimalNumber(text, allowExponent: true),
              let double = CNumberParsing.double(text) ?? Double(String(decoding: text, as: UTF8.self)), double.isFinite
        else { return nil }
        return double
    }

    /// Reads a decimal only when `Decimal` holds the written number exactly: at most 38 (39 below
    /// 2^128) significant digits and an exponent within its range. `NaN` is the not-a-number decimal.
    static func parseDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Decimal? {
        if equals(text, "NaN") { return .nan }
        if let decimal = AttributeValue.shortDecimal(text) { return decimal }
        guard isDecimalNumber(text, allowExponent: true), text.count <= 400 else { return nil }
        let string = String(decoding: text, as: UTF8.self)
        guard let decimal = Decimal(string: string, locale: posix), !decimal.isNaN,
              let written = normalized(string), let held = normalized(decimal.description),
              written == held
        else { return nil }
        return decimal
    }

    /// Made once: a `Locale` costs microseconds to make.
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// A decimal number's sign, significant digits and exponent (`-1250` → `-`, `125`, 1), so
    /// that two spellings of one number compare equal.
    private static func normalized(_ text: String) -> String? {
        var mantissa = Substring(text)
        var exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(mantissa[mantissa.index(after: e)...]) else { return nil }
            exponent = value
            mantissa = mantissa[..<e]
        }
        let negative = mantissa.hasPrefix("-")
        if negative || mantissa.hasPrefix("+") { mantissa = mantissa.dropFirst() }
        var digits = ""
        if let point = mantissa.firstIndex(of: ".") {
            let fraction = mantissa[mantissa.index(after: point)...]
            exponent -= fraction.count
            digits = String(mantissa[..<point]) + fraction
        } else {
            digits = String(mantissa)
        }
        let trimmedLeading = digits.drop { $0 == "0" }
        guard !trimmedLeading.isEmpty else { return "0" }
        var significant = String(trimmedLeading)
        while significant.hasSuffix("0") {
            significant.removeLast()
            exponent += 1
        }
        return (negative ? "-" : "") + significant + "e" + String(exponent)
    }

    private static func isDecimalNumber(_ text: UnsafeBufferPointer<UInt8>, allowExponent: Bool) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - start
        }
        if index < text.count, text[index] == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { return false }
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if allowExponent, index < text.count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == text.count
    }

    // MARK: - Dates and UUIDs

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` when that text reads back (``parseCanonicalDate(_:)``) to
    /// exactly `date`; nil otherwise (years outside 0–9999, dates between milliseconds).
    static func isoText(for date: Date) -> String? {
        let text = String(unsafeUninitializedCapacity: 24) { writeISO(date, into: $0.baseAddress!) ? 24 : 0 }
        return text.isEmpty ? nil : text
    }

    /// Writes the 24 bytes of `YYYY-MM-DDTHH:MM:SS.mmmZ` into `bytes` when that text reads back
    /// (``parseCanonicalDate(_:)``) to exactly `date`; false otherwise (years outside 0–9999,
    /// dates between milliseconds), with the bytes undefined.
    static func writeISO(_ date: Date, into bytes: UnsafeMutablePointer<UInt8>) -> Bool {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return false }
        let total = Int64(milliseconds)
        let seconds = floorDivide(total, 1000)
        let millis = Int(total - seconds * 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else { return false }
        func put(_ value: Int, at offset: Int, width: Int) {
            var value = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, width: 4)
        bytes[4] = UInt8(ascii: "-")
        put(month, at: 5, width: 2)
        bytes[7] = UInt8(ascii: "-")
        put(day, at: 8, width: 2)
        bytes[10] = UInt8(ascii: "T")
        put(secondOfDay / 3600, at: 11, width: 2)
        bytes[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, at: 14, width: 2)
        bytes[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, at: 17, width: 2)
        bytes[19] = UInt8(ascii: ".")
        put(millis, at: 20, width: 3)
        bytes[23] = UInt8(ascii: "Z")
        return parseCanonicalDate(UnsafeBufferPointer(start: bytes, count: 24)) == date
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS.mmmZ` (the form the writer uses) without building a string,
    /// with the arithmetic of ``ISO8601/date(from:)`` so that both give the same `Date`
    /// (`Double(ms) / 1000` is the correctly rounded value of "0.mmm", as `Double("0.mmm")` is).
    /// Nil for any other form, which the general parser then reads.
    static func parseCanonicalDate(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 24, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "."),
              text[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ offset: Int, _ width: Int) -> Int? {
            var value = 0
            for position in offset..<(offset + width) {
                let digit = text[position] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              let millis = number(20, 3),
              (1...12).contains(month), day >= 1, day <= daysInMonth(year, month),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let scaled = Double(millis) / 1000 * 1000
        let whole = Double(seconds) * 1000 + scaled.rounded(.down)
        let rest = scaled - scaled.rounded(.down)
        return Date(timeIntervalSince1970: (whole + rest) / 1000)
    }

    /// `uuidString` without Foundation's formatting (which goes through `sprintf` on Linux).
    static func uuidText(_ uuid: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { writeUUID(uuid, into: $0.baseAddress!) }
    }

    /// Writes the 36 bytes of `uuidString` into `bytes`; returns 36.
    static func writeUUID(_ uuid: UUID, into bytes: UnsafeMutablePointer<UInt8>) -> Int {
        let digits: StaticString = "0123456789ABCDEF"
        withUnsafeBytes(of: uuid.uuid) { raw in
            var position = 0
            for index in 0..<16 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    bytes[position] = UInt8(ascii: "-")
                    position += 1
                }
                bytes[position] = digits.utf8Start[Int(raw[index] >> 4)]
                bytes[position + 1] = digits.utf8Start[Int(raw[index] & 0x0F)]
                position += 2
            }
        }
        return 36
    }

    /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in either case.
    static func parseUUID(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-")
        else { return nil }
        // The 32 digits as two 64-bit numbers; `invalid` collects a bit from any byte that is
        // not a hexadecimal digit.
        let base = text.baseAddress!
        var high: UInt64 = 0
        var low: UInt64 = 0
        var invalid: UInt8 = 0
        func read(_ start: Int, _ count: Int, into word: inout UInt64) {
            for offset in start..<(start + count) {
                let value = hexValue(base[offset])
                invalid |= value
                word = word << 4 | UInt64(value & 0x0F)
            }
        }
        read(0, 8, into: &high)
        read(9, 4, into: &high)
        read(14, 4, into: &high)
        read(19, 4, into: &low)
        read(24, 12, into: &low)
        guard invalid & 0x10 == 0 else { return nil }
        func byte(_ word: UInt64, _ index: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
        return UUID(uuid: (
            byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5), byte(high, 6), byte(high, 7),
            byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3), byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)))
    }

    /// The value of a hexadecimal digit (either case), or 0x10 for any other byte.
    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8 {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : 0x10
    }

    // The calendar arithmetic is ISO8601's own (proleptic Gregorian calendar).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 { ISO8601.days(fromCivil: year, month, day) }
    private static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) { ISO8601.civil(fromDays: days) }
    private static func daysInMonth(_ year: Int, _ month: Int) -> Int { ISO8601.daysInMonth(year, month) }
    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { ISO8601.floorDivide(a, b) }

    // MARK: - Base64

    /// Base64 without line breaks; whitespace between the characters is tolerated (a file edited
    /// by hand may wrap long values), anything else is an error.
    package static func decodeBase64(_ text: UnsafeBufferPointer<UInt8>) throws(XMLValueError) -> Data {
        if text.isEmpty { return Data() }
        if let data = Data(base64Encoded: Data(text)) { return data }
        let compact = text.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if let data = Data(base64Encoded: Data(compact)) { return data }
        throw XMLValueError(message: "expected base64-encoded data, found \(quoted(text)) which is not valid base64")
    }

    private static func decodeBase64Text(_ text: UnsafeBufferPointer<UInt8>) throws(XMLValueError) -> String {
        let data = try decodeBase64(text)
        guard let string = String(validating: data, as: UTF8.self) else {
            throw XMLValueError(message: "the base64 text does not decode to UTF-8 text")
        }
        return string
    }

    @inline(__always)
    static func equals(_ text: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        text.count == literal.utf8CodeUnitCount && bytesEqual(text.baseAddress!, literal.utf8Start, count: text.count)
    }

    /// Whether the `count` bytes at `first` and `second` are equal: eight at a time in a loop,
    /// which for the layout's short names and words beats a call to `memcmp`.
    @inline(__always)
    static func bytesEqual(_ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, count: Int) -> Bool {
        var index = 0
        while index + 8 <= count {
            guard UnsafeRawPointer(first + index).loadUnaligned(as: UInt64.self)
                == UnsafeRawPointer(second + index).loadUnaligned(as: UInt64.self) else { return false }
            index += 8
        }
        // The last 0 to 7 bytes: four, two and one at a time.
        if count - index >= 4 {
            guard UnsafeRawPointer(first + index).loadUnaligned(as: UInt32.self)
                == UnsafeRawPointer(second + index).loadUnaligned(as: UInt32.self) else { return false }
            index += 4
        }
        if count - index >= 2 {
            guard UnsafeRawPointer(first + index).loadUnaligned(as: UInt16.self)
                == UnsafeRawPointer(second + index).loadUnaligned(as: UInt16.self) else { return false }
            index += 2
        }
        return index == count || first[index] == second[index]
    }

    /// The text for an error message: quoted, and cut after 60 characters.
    package static func quoted(_ text: UnsafeBufferPointer<UInt8>) -> String {
        let string = String(decoding: text, as: UTF8.self)
        return string.count > 60 ? String(reflecting: String(string.prefix(60))) + "…" : String(reflecting: string)
    }
}
