package import Foundation

/// Why a JSON value is not a valid encoding of an attribute type; `message` says what was
/// expected, for example `expected an int16 (an integer from -32768 to 32767), found 40000`.
package struct ValueFormatError: Error, Sendable, Hashable {
    package var message: String
}

extension AttributeValue {
    /// Reads a value in the encoding of Strata's JSON data format (DESIGN.md): dates as ISO 8601
    /// (or seconds since 1970), decimals as strings (or exact JSON numbers), binary and
    /// transformable data as base64, UUIDs as strings, and non-finite doubles as "NaN",
    /// "Infinity" and "-Infinity". Integers must be whole numbers within the type's range; the
    /// number's text is parsed directly, so int64 values above 2^53 stay exact.
    package init(json: JSONValue, as type: AttributeType) throws(ValueFormatError) {
        switch type {
        case .string:
            guard let string = json.stringValue else { throw .expected("a string", found: json) }
            self = .string(string)
        case .int16, .int32, .int64:
            let range = type.integerRange!
            let expectation = type == .int64
                ? "an int64 (a whole number from \(range.lowerBound) to \(range.upperBound))"
                : "an \(type.rawValue) (a whole number from \(range.lowerBound) to \(range.upperBound))"
            guard let lexeme = json.numberLexeme else { throw .expected(expectation, found: json) }
            guard let value = Int64(lexeme), range.contains(value) else {
                throw ValueFormatError(message: "expected \(expectation), found \(lexeme)")
            }
            self = .integer(value)
        case .decimal:
            let text: String
            switch json {
            case .string(let string): text = string
            case .number(let lexeme): text = lexeme
            default: throw .expected("a decimal written as a string, like \"12.50\"", found: json)
            }
            guard let decimal = Self.parseDecimal(text) else {
                throw ValueFormatError(message: "expected a decimal number like \"12.50\" with at most 38 significant digits, found \(Echo.value(String(reflecting: text)))")
            }
            self = .decimal(decimal)
        case .double, .float:
            let value: Double
            switch json {
            case .number(let lexeme):
                value = Double(lexeme)!
            case .string("NaN"): value = .nan
            case .string("Infinity"): value = .infinity
            case .string("-Infinity"): value = -.infinity
            default:
                throw .expected("a number (or \"NaN\", \"Infinity\", \"-Infinity\")", found: json)
            }
            if type == .float {
                guard let lexeme = json.numberLexeme else {
                    self = .float(Float(value))
                    return
                }
                let float = Float(lexeme)!
                guard float.isFinite else {
                    throw ValueFormatError(message: "\(lexeme) is out of the range of a float; use a double attribute")
                }
                self = .float(float)
            } else {
                guard value.isFinite || json.numberLexeme == nil else {
                    throw ValueFormatError(message: "\(json.numberLexeme!) is out of the range of a double")
                }
                self = .double(value)
            }
        case .bool:
            guard let bool = json.boolValue else { throw .expected("true or false", found: json) }
            self = .bool(bool)
        case .date:
            switch json {
            case .string(let string):
                guard let date = ISO8601.date(from: string) else {
                    throw ValueFormatError(message: "expected an ISO 8601 date like \"2024-05-01T10:00:00.000Z\", found \(Echo.value(String(reflecting: string)))")
                }
                self = .date(date)
            case .number(let lexeme):
                let seconds = Double(lexeme)!
                guard ISO8601.representableSeconds.contains(seconds) else {
                    throw ValueFormatError(message: "expected seconds since 1970 within the years -999999 to 999999, found \(lexeme)")
                }
                self = .date(Date(timeIntervalSince1970: seconds))
            default:
                throw .expected("an ISO 8601 date string like \"2024-05-01T10:00:00.000Z\" or seconds since 1970", found: json)
            }
        case .binary, .transformable:
            guard let string = json.stringValue else { throw .expected("base64-encoded data in a string", found: json) }
            guard let data = Data(base64Encoded: string) else {
                throw ValueFormatError(message: "expected base64-encoded data, found \(Echo.value(String(reflecting: string))) which is not valid base64")
            }
            self = .binary(data)
        case .uuid:
            guard let string = json.stringValue else { throw .expected("a UUID string", found: json) }
            guard let uuid = UUID(uuidString: string) else {
                throw ValueFormatError(message: "expected a UUID like \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", found \(Echo.value(String(reflecting: string)))")
            }
            self = .uuid(uuid)
        case .uri:
            guard let string = json.stringValue else { throw .expected("a URI string", found: json) }
            guard !string.isEmpty, let url = URL(string: string) else {
                throw ValueFormatError(message: "expected a URI like \"https://example.com/a\", found \(Echo.value(String(reflecting: string)))")
            }
            self = .uri(url)
        }
    }

    /// The value in the encoding of Strata's JSON data format.
    package var jsonValue: JSONValue {
        switch self {
        case .string(let value): .string(value)
        case .integer(let value): .number(String(value))
        case .decimal(let value): .string(value.isNaN ? value.description : DecimalText.text(for: value))
        case .double(let value): Self.json(value)
        case .float(let value):
            // Swift prints the shortest text that reads back to the same value (`5.0`, `1e-05`,
            // `1e+38`); each of those forms is also a valid JSON number.
            value.isFinite ? .number(value.description) : Self.json(Double(value))
        case .bool(let value): .bool(value)
        case .date(let value): .string(ISO8601.string(from: value))
        case .binary(let value): .string(value.base64EncodedString())
        case .uuid(let value): .string(value.uuidString)
        case .uri(let value): .string(value.absoluteString)
        }
    }

    private static func json(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value == .infinity { return .string("Infinity") }
        if value == -.infinity { return .string("-Infinity") }
        return .number(value.description)
    }

    /// Parses a decimal strictly: `[-]digits[.digits][e[±]digits]`, at most 38 significant digits
    /// (what `Decimal` holds exactly; zeros before the first and after the last other digit do
    /// not count, so `Decimal.description`'s long whole numbers such as 10^50 read back).
    /// `Decimal(string:)` alone would accept `"12abc"` as 12 and round a 45-digit number.
    package static func parseDecimal(_ text: String) -> Decimal? {
        var text = text
        if let short = text.withUTF8({ shortDecimal($0) }) { return short }
        var position = 0
        var firstSignificant: Int?
        var lastSignificant = 0
        var seenPoint = false
        var seenDigit = false
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var exponentPart: ArraySlice<UInt8> = []
        if let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponentPart = bytes[(e + 1)...]
            bytes = bytes[..<e]
            if exponentPart.first == UInt8(ascii: "-") || exponentPart.first == UInt8(ascii: "+") {
                exponentPart = exponentPart.dropFirst()
            }
            guard !exponentPart.isEmpty, exponentPart.count <= 3,
                  exponentPart.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
        }
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                seenDigit = true
                if byte != UInt8(ascii: "0") {
                    if firstSignificant == nil { firstSignificant = position }
                    lastSignificant = position
                }
                position += 1
            } else {
                return nil
            }
        }
        let significant = firstSignificant.map { lastSignificant - $0 + 1 } ?? 0
        guard seenDigit, significant <= 38 else { return nil }
        return Decimal(string: text, locale: posix)
    }

    /// Made once: a `Locale` costs microseconds to make, more than parsing a decimal.
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The value of `-?digits[.digits]` with at most 19 digits in all, built exactly from its
    /// digits — the value `Decimal(string:)` reads, with the same text, at a fraction of its
    /// cost; nil for any other text (for the general reading and its checks).
    package static func shortDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Decimal? {
        var index = 0
        let negative = !text.isEmpty && text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var significand: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var digitsBeforePoint = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint, digits > 0 else { return nil }
                seenPoint = true
                digitsBeforePoint = digits
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10, digits < 19 else { return nil }
                significand = significand * 10 + UInt64(digit)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            }
            index += 1
        }
        guard digits > 0, !seenPoint || digits > digitsBeforePoint else { return nil }
        return Decimal(sign: negative ? .minus : .plus, exponent: -fractionDigits, significand: Decimal(significand))
    }
}

extension ValueFormatError {
    static func expected(_ expectation: String, found json: JSONValue) -> ValueFormatError {
        ValueFormatError(message: "expected \(expectation), found \(json.kindName)")
    }
}
