import Foundation
import Strata
import StrataTestKit
import Testing

/// The message of the error `AttributeValue(json:as:)` throws, or nil when it reads the value.
private func formatError(_ json: JSONValue, _ type: AttributeType) -> String? {
    do {
        _ = try AttributeValue(json: json, as: type)
        return nil
    } catch {
        return error.message
    }
}

private func decimal(_ text: String) -> Decimal {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
}

@Suite("AttributeValue JSON encoding")
struct AttributeValueJSONTests {
    // MARK: - Strings and booleans

    @Test func strings() throws {
        #expect(try AttributeValue(json: .string("héllo 😀"), as: .string) == .string("héllo 😀"))
        #expect(try AttributeValue(json: .string(""), as: .string) == .string(""))
        #expect(AttributeValue.string("a\"b").jsonValue == .string("a\"b"))
        #expect(formatError(.number("1"), .string) == "expected a string, found a number")
        #expect(formatError(.null, .string) == "expected a string, found null")
    }

    @Test func booleans() throws {
        #expect(try AttributeValue(json: .bool(true), as: .bool) == .bool(true))
        #expect(try AttributeValue(json: .bool(false), as: .bool) == .bool(false))
        #expect(AttributeValue.bool(false).jsonValue == .bool(false))
        #expect(formatError(.string("true"), .bool) == "expected true or false, found a string")
        #expect(formatError(.number("1"), .bool) == "expected true or false, found a number")
    }

    // MARK: - Integers

    @Test(arguments: [
        (AttributeType.int16, "-32768"), (.int16, "32767"), (.int16, "0"), (.int16, "-0"),
        (.int32, "-2147483648"), (.int32, "2147483647"),
        (.int64, "-9223372036854775808"), (.int64, "9223372036854775807"),
        (.int64, "9007199254740993"), (.int64, "-9007199254740993"),
    ])
    func integersInRange(_ type: AttributeType, _ lexeme: String) throws {
        let value = try AttributeValue(json: .number(lexeme), as: type)
        let expected = try #require(Int64(lexeme))
        #expect(value == .integer(expected))
        #expect(value.jsonValue == .number(String(expected)))
    }

    @Test(arguments: [
        (AttributeType.int16, "-32769", "an int16 (a whole number from -32768 to 32767)"),
        (.int16, "32768", "an int16 (a whole number from -32768 to 32767)"),
        (.int32, "-2147483649", "an int32 (a whole number from -2147483648 to 2147483647)"),
        (.int32, "2147483648", "an int32 (a whole number from -2147483648 to 2147483647)"),
        (.int64, "-9223372036854775809", "an int64 (a whole number from -9223372036854775808 to 9223372036854775807)"),
        (.int64, "9223372036854775808", "an int64 (a whole number from -9223372036854775808 to 9223372036854775807)"),
        (.int64, "18446744073709551616", "an int64 (a whole number from -9223372036854775808 to 9223372036854775807)"),
        // Not whole numbers as written: no silent truncation or rounding.
        (.int16, "1.5", "an int16 (a whole number from -32768 to 32767)"),
        (.int16, "1.0", "an int16 (a whole number from -32768 to 32767)"),
        (.int32, "1e3", "an int32 (a whole number from -2147483648 to 2147483647)"),
        (.int64, "-0.0", "an int64 (a whole number from -9223372036854775808 to 9223372036854775807)"),
        (.int64, "9.223372036854775807e18", "an int64 (a whole number from -9223372036854775808 to 9223372036854775807)"),
    ])
    func integersOutOfRangeOrNotWhole(_ type: AttributeType, _ lexeme: String, _ expectation: String) {
        #expect(formatError(.number(lexeme), type) == "expected \(expectation), found \(lexeme)")
    }

    @Test(arguments: [AttributeType.int16, .int32, .int64])
    func integersMustBeJSONNumbers(_ type: AttributeType) throws {
        let range = try #require(type.integerRange)
        let expectation = "an \(type.rawValue) (a whole number from \(range.lowerBound) to \(range.upperBound))"
        #expect(formatError(.string("5"), type) == "expected \(expectation), found a string")
        #expect(formatError(.bool(true), type) == "expected \(expectation), found a boolean")
        #expect(formatError(.null, type) == "expected \(expectation), found null")
        #expect(formatError(.array([JSONNode]()), type) == "expected \(expectation), found an array")
    }

    // MARK: - Decimals

    @Test(arguments: [
        "123456789012345678901234567890",
        "1234567890.12345678901234567891",
        "-0.000000000000000000000000000001",
        "99999999999999999999999999999999999999",
        "0.00000000000000000000000000000000000000000000000001",
        "12.5",
        "-3",
        // Zeros after the last other digit are not significant: Decimal.description writes
        // 10^50 with every zero, and it must read back.
        "100000000000000000000000000000000000000000000000000",
        "12345678901234567890123456789012345678000000",
    ])
    func decimalsAreExactBothWays(_ text: String) throws {
        let fromString = try AttributeValue(json: .string(text), as: .decimal)
        let fromNumber = try AttributeValue(json: .number(text), as: .decimal)
        #expect(fromString == .decimal(decimal(text)))
        #expect(fromNumber == fromString)
        // Written back as a string with every digit.
        #expect(fromString.jsonValue == .string(text))
    }

    @Test func decimalsAreWrittenInCanonicalForm() throws {
        #expect(try AttributeValue(json: .string("12.50"), as: .decimal).jsonValue == .string("12.5"))
        #expect(try AttributeValue(json: .string("1e-3"), as: .decimal).jsonValue == .string("0.001"))
        #expect(try AttributeValue(json: .string("1.5E+3"), as: .decimal).jsonValue == .string("1500"))
        #expect(try AttributeValue(json: .string("-0"), as: .decimal).jsonValue == .string("0"))
        #expect(try AttributeValue(json: .string("+7"), as: .decimal) == .decimal(7))
        #expect(try AttributeValue(json: .string("000123.4500"), as: .decimal) == .decimal(decimal("123.45")))
    }

    /// `Decimal(string:)` reads a prefix of these ("12abc" as 12); Strata must not.
    @Test(arguments: [
        "12abc", "1.2.3", "1,5", "12 ", " 12", "1e", "1e+", "e5", ".", "-", "--1", "+-1", "0x10",
        "1_000", "NaN", "Infinity", "", "١٢", "1e5.5", "12.50€",
        // More than the 38 significant digits a Decimal holds exactly.
        "123456789012345678901234567890123456789",
        "1.23456789012345678901234567890123456789",
        // Beyond Decimal's exponent range.
        "1e200", "1e-200",
    ])
    func decimalsThatAreNotNumbers(_ text: String) {
        let message = "expected a decimal number like \"12.50\" with at most 38 significant digits, found \(String(reflecting: text))"
        #expect(formatError(.string(text), .decimal) == message)
    }

    @Test func decimalsMustBeStringsOrNumbers() {
        #expect(formatError(.bool(true), .decimal) == "expected a decimal written as a string, like \"12.50\", found a boolean")
        #expect(formatError(.null, .decimal) == "expected a decimal written as a string, like \"12.50\", found null")
    }

    // MARK: - Doubles and floats

    @Test func doubles() throws {
        #expect(try AttributeValue(json: .number("1.5"), as: .double) == .double(1.5))
        #expect(try AttributeValue(json: .number("9007199254740993"), as: .double) == .double(9_007_199_254_740_992))
        #expect(try AttributeValue(json: .number("1.7976931348623157e308"), as: .double) == .double(.greatestFiniteMagnitude))
        #expect(try AttributeValue(json: .number("5e-324"), as: .double) == .double(.leastNonzeroMagnitude))
        let negativeZero = try AttributeValue(json: .number("-0"), as: .double)
        guard case .double(let zero) = negativeZero else {
            Issue.record("expected a double, got \(negativeZero)")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
        #expect(negativeZero.jsonValue == .number("-0.0"))
    }

    @Test(arguments: [AttributeType.double, .float])
    func nonFiniteNumbersAreStrings(_ type: AttributeType) throws {
        let nan = try AttributeValue(json: .string("NaN"), as: type)
        let infinity = try AttributeValue(json: .string("Infinity"), as: type)
        let negativeInfinity = try AttributeValue(json: .string("-Infinity"), as: type)
        if type == .double {
            #expect(nan == .double(.nan))
            #expect(infinity == .double(.infinity))
            #expect(negativeInfinity == .double(-.infinity))
        } else {
            #expect(nan == .float(.nan))
            #expect(infinity == .float(.infinity))
            #expect(negativeInfinity == .float(-.infinity))
        }
        #expect(nan.jsonValue == .string("NaN"))
        #expect(infinity.jsonValue == .string("Infinity"))
        #expect(negativeInfinity.jsonValue == .string("-Infinity"))
        for wrong in ["nan", "NAN", "inf", "Inf", "infinity", "+Infinity", "-NaN", "1.5", ""] {
            #expect(
                formatError(.string(wrong), type) == "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found a string",
                "\(wrong)")
        }
        #expect(formatError(.bool(true), type) == "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found a boolean")
    }

    @Test func numbersBeyondTheDoubleRangeAreErrors() {
        #expect(formatError(.number("1e400"), .double) == "1e400 is out of the range of a double")
        #expect(formatError(.number("-1.8e308"), .double) == "-1.8e308 is out of the range of a double")
    }

    @Test func floatRange() throws {
        #expect(try AttributeValue(json: .number("3.4028235e38"), as: .float) == .float(.greatestFiniteMagnitude))
        #expect(try AttributeValue(json: .number("-3.4028235e38"), as: .float) == .float(-.greatestFiniteMagnitude))
        #expect(try AttributeValue(json: .number("1.1754944e-38"), as: .float) == .float(.leastNormalMagnitude))
        #expect(try AttributeValue(json: .number("0.1"), as: .float) == .float(0.1))
        for lexeme in ["3.4028236e38", "-3.5e38", "1e39", "1e400"] {
            #expect(formatError(.number(lexeme), .float) == "\(lexeme) is out of the range of a float; use a double attribute")
        }
    }

    @Test func floatsAreWrittenInTheirShortestForm() {
        #expect(AttributeValue.float(0.1).jsonValue == .number("0.1"))
        #expect(AttributeValue.float(5).jsonValue == .number("5.0"))
        #expect(AttributeValue.float(1e-5).jsonValue == .number("1e-05"))
        #expect(AttributeValue.float(.greatestFiniteMagnitude).jsonValue == .number("3.4028235e+38"))
        #expect(AttributeValue.double(0.1).jsonValue == .number("0.1"))
        #expect(AttributeValue.double(1e-7).jsonValue == .number("1e-07"))
        #expect(AttributeValue.double(1e16).jsonValue == .number("1e+16"))
    }

    /// Every finite double and float, written and read back, is the same bits; the text written
    /// is a valid JSON number.
    @Test(arguments: [7 as UInt64, 1234])
    func floatingPointRoundTrip(_ seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var checked = 0
        while checked < 500 {
            let double = Double(bitPattern: random.next())
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            guard double.isFinite, float.isFinite else { continue }
            checked += 1
            for (value, type) in [(AttributeValue.double(double), AttributeType.double), (.float(float), .float)] {
                let json = value.jsonValue
                let lexeme = try #require(json.numberLexeme)
                let parsed = try JSONParser.parse(Array(lexeme.utf8)).value
                #expect(parsed == .number(lexeme), "\(lexeme) is not a JSON number")
                let read = try AttributeValue(json: json, as: type)
                switch (read, value) {
                case (.double(let a), .double(let b)): #expect(a.bitPattern == b.bitPattern, "\(lexeme)")
                case (.float(let a), .float(let b)): #expect(a.bitPattern == b.bitPattern, "\(lexeme)")
                default: Issue.record("\(value) read back as \(read)")
                }
            }
        }
    }

    // MARK: - Dates

    @Test func datesAsISOStringsAndAsSeconds() throws {
        let expected = AttributeValue.date(Date(timeIntervalSince1970: 1_714_557_600))
        #expect(try AttributeValue(json: .string("2024-05-01T10:00:00.000Z"), as: .date) == expected)
        #expect(try AttributeValue(json: .string("2024-05-01T12:00:00+02:00"), as: .date) == expected)
        #expect(try AttributeValue(json: .number("1714557600"), as: .date) == expected)
        #expect(try AttributeValue(json: .number("1.7145576e9"), as: .date) == expected)
        #expect(expected.jsonValue == .string("2024-05-01T10:00:00.000Z"))

        let beforeEpoch = try AttributeValue(json: .number("-1.5"), as: .date)
        #expect(beforeEpoch.jsonValue == .string("1969-12-31T23:59:58.500Z"))
        let bareDate = try AttributeValue(json: .string("2024-05-01"), as: .date)
        #expect(bareDate.jsonValue == .string("2024-05-01T00:00:00.000Z"))
        let withMilliseconds = try AttributeValue(json: .number("1714557600.123"), as: .date)
        #expect(withMilliseconds.jsonValue == .string("2024-05-01T10:00:00.123Z"))
    }

    @Test func invalidDates() {
        #expect(formatError(.string("05/01/2024"), .date) == #"expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "05/01/2024""#)
        #expect(formatError(.string("2023-02-29"), .date) == #"expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "2023-02-29""#)
        #expect(formatError(.bool(true), .date) == #"expected an ISO 8601 date string like "2024-05-01T10:00:00.000Z" or seconds since 1970, found a boolean"#)
    }

    /// Seconds beyond what the text form can write (the years ±999999) are errors, not a date at
    /// infinity or one that would be written as a different date.
    @Test(arguments: ["1e400", "-1e400", "1e300", "-1e300", "-31619087596800.01", "31494784780800"])
    func secondsOutOfRangeAreErrors(_ lexeme: String) throws {
        #expect(formatError(.number(lexeme), .date) == "expected seconds since 1970 within the years -999999 to 999999, found \(lexeme)")
    }

    @Test(arguments: [
        ("-31619087596800", "-999999-01-01T00:00:00.000Z"),
        ("31494784780799", "+999999-12-31T23:59:59.000Z"),
        ("31494784780799.5", "+999999-12-31T23:59:59.500Z"),
        ("-62135596800", "0001-01-01T00:00:00.000Z"),
        ("253402300799.999", "9999-12-31T23:59:59.999Z"),
        ("0", "1970-01-01T00:00:00.000Z"),
        ("-0.001", "1969-12-31T23:59:59.999Z"),
    ])
    func datesFromSecondsAtTheEndsOfTheRange(_ lexeme: String, _ expected: String) throws {
        let value = try AttributeValue(json: .number(lexeme), as: .date)
        #expect(value.jsonValue == .string(expected))
        #expect(try AttributeValue(json: .string(expected), as: .date) == value)
    }

    // MARK: - Binary, UUID, URI

    @Test(arguments: [AttributeType.binary, .transformable])
    func binaryIsBase64(_ type: AttributeType) throws {
        #expect(try AttributeValue(json: .string(""), as: type) == .binary(Data()))
        #expect(try AttributeValue(json: .string("AAEC/w=="), as: type) == .binary(Data([0, 1, 2, 255])))
        #expect(try AttributeValue(json: .string("YQ=="), as: type) == .binary(Data("a".utf8)))
        #expect(AttributeValue.binary(Data()).jsonValue == .string(""))
        #expect(AttributeValue.binary(Data([0, 1, 2, 255])).jsonValue == .string("AAEC/w=="))
        #expect(AttributeValue.binary(Data([0xFB, 0xFF])).jsonValue == .string("+/8="))
        for invalid in ["not base64!", "YQ", "YQ=", "Y===", "YW Jj", "YWJj\n", "=YWJ"] {
            #expect(
                formatError(.string(invalid), type) == "expected base64-encoded data, found \(String(reflecting: invalid)) which is not valid base64",
                "\(String(reflecting: invalid))")
        }
        #expect(formatError(.array([JSONNode]()), type) == "expected base64-encoded data in a string, found an array")
    }

    @Test func binaryRoundTrip() throws {
        var random = SeededGenerator(seed: 0xB17E5)
        for length in 0..<200 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            let json = AttributeValue.binary(data).jsonValue
            #expect(try AttributeValue(json: json, as: .binary) == .binary(data))
        }
    }

    @Test func uuids() throws {
        let upper = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let uuid = try #require(UUID(uuidString: upper))
        #expect(try AttributeValue(json: .string(upper.lowercased()), as: .uuid) == .uuid(uuid))
        #expect(try AttributeValue(json: .string("e621E1f8-C36c-495a-93FC-0c247A3E6E5F"), as: .uuid) == .uuid(uuid))
        #expect(try AttributeValue(json: .string(upper.lowercased()), as: .uuid).jsonValue == .string(upper))
        for invalid in ["3F2504E0-4F89", "E621E1F8C36C495A93FC0C247A3E6E5F", "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}", "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", ""] {
            #expect(
                formatError(.string(invalid), .uuid) == "expected a UUID like \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", found \(String(reflecting: invalid))",
                "\(invalid)")
        }
        #expect(formatError(.number("1"), .uuid) == "expected a UUID string, found a number")
    }

    @Test(arguments: [
        "https://example.com/products?id=1&x=%20#top", "mailto:someone@example.com", "urn:isbn:0451450523",
        "file:///tmp/a.txt", "a/b", "../relative?q", "https://例え.jp/パス",
    ])
    func uris(_ text: String) throws {
        let value = try AttributeValue(json: .string(text), as: .uri)
        guard case .uri(let url) = value else {
            Issue.record("expected a URI, got \(value)")
            return
        }
        #expect(url == URL(string: text))
        #expect(try AttributeValue(json: value.jsonValue, as: .uri) == value)
    }

    @Test func invalidURIs() {
        #expect(formatError(.string(""), .uri) == #"expected a URI like "https://example.com/a", found """#)
        #expect(formatError(.string("http://[::1"), .uri) == #"expected a URI like "https://example.com/a", found "http://[::1""#)
        #expect(formatError(.bool(false), .uri) == "expected a URI string, found a boolean")
    }

    // MARK: - Equality and order

    @Test func nanEqualsNaN() {
        #expect(AttributeValue.double(.nan) == .double(.nan))
        #expect(AttributeValue.double(-.nan) == .double(.nan))
        #expect(AttributeValue.double(Double(nan: 0x1234, signaling: false)) == .double(.nan))
        #expect(AttributeValue.double(.signalingNaN) == .double(.nan))
        #expect(AttributeValue.float(.nan) == .float(.nan))
        #expect(AttributeValue.float(Float(nan: 7, signaling: false)) == .float(-.nan))
        #expect(AttributeValue.double(.nan) != .float(.nan))
        #expect(AttributeValue.double(.nan) != .double(0))
        // Equal values hash equally, so NaNs collapse in a set.
        let values: Set<AttributeValue> = [
            .double(.nan), .double(-.nan), .double(Double(nan: 0x1234, signaling: false)), .float(.nan), .float(-.nan),
        ]
        #expect(values.count == 2)
        #expect(AttributeValue.double(.nan).hashValue == AttributeValue.double(Double(nan: 99, signaling: false)).hashValue)
    }

    @Test func equalityOfOtherValues() {
        #expect(AttributeValue.double(0) == .double(-0.0))
        #expect(AttributeValue.double(0).hashValue == AttributeValue.double(-0.0).hashValue)
        #expect(AttributeValue.decimal(decimal("1.50")) == .decimal(decimal("1.5")))
        #expect(AttributeValue.decimal(decimal("1.50")).hashValue == AttributeValue.decimal(decimal("1.5")).hashValue)
        // Different kinds are different values, even when numerically equal.
        #expect(AttributeValue.integer(1) != .double(1))
        #expect(AttributeValue.double(1) != .float(1))
        #expect(AttributeValue.integer(1) != .decimal(1))
        #expect(AttributeValue.string("1") != .integer(1))
        #expect(AttributeValue.binary(Data()) != .string(""))
    }

    @Test(arguments: [
        (AttributeValue.integer(1), AttributeValue.integer(2), -1),
        (.integer(2), .integer(2), 0),
        (.integer(-1), .integer(-2), 1),
        (.integer(1), .double(1.5), -1),
        (.double(1.5), .integer(1), 1),
        (.integer(2), .double(2), 0),
        (.integer(2), .float(2), 0),
        (.integer(1), .decimal(1.5), -1),
        (.decimal(2), .integer(2), 0),
        (.decimal(0.5), .double(0.25), 1),
        (.float(0.5), .double(0.5), 0),
        (.float(0.1), .double(0.1), 1), // 0.1 as a float is 0.100000001490116...
        (.double(-.infinity), .integer(.min), -1),
        (.double(.infinity), .decimal(Decimal.greatestFiniteMagnitude), 1),
        // Where a double rounds, integers and decimals still compare exactly.
        (.integer(9_007_199_254_740_993), .integer(9_007_199_254_740_992), 1),
        (.integer(9_007_199_254_740_993), .decimal(9_007_199_254_740_992), 1),
        (.decimal(9_007_199_254_740_992), .integer(9_007_199_254_740_993), -1),
        (.integer(.max), .decimal(Decimal(Int64.max)), 0),
        (.integer(.max), .decimal(Decimal(Int64.max) + 1), -1),
        (.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992), 1),
        (.double(9_007_199_254_740_992), .integer(9_007_199_254_740_993), -1),
        (.integer(.max), .double(9_223_372_036_854_775_808), -1), // 2^63 is above Int64.max
        (.integer(.min), .double(-9_223_372_036_854_775_808), 0), // -2^63 is Int64.min exactly
        (.integer(16_777_217), .float(16_777_216), 1),
        (.date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: 0.001)), -1),
        (.date(Date(timeIntervalSince1970: 5)), .date(Date(timeIntervalSince1970: 5)), 0),
    ] as [(AttributeValue, AttributeValue, Int)])
    func order(_ lhs: AttributeValue, _ rhs: AttributeValue, _ expected: Int) {
        #expect(AttributeValue.order(lhs, rhs) == expected)
        #expect(AttributeValue.order(rhs, lhs) == -expected)
    }

    @Test(arguments: [
        (AttributeValue.double(.nan), AttributeValue.integer(1)),
        (.double(.nan), .double(.nan)),
        (.float(.nan), .decimal(1)),
        (.date(Date(timeIntervalSince1970: 0)), .integer(0)),
        (.string("a"), .string("b")),
        (.bool(false), .bool(true)),
        (.string("1"), .integer(1)),
        (.uuid(UUID()), .uuid(UUID())),
    ] as [(AttributeValue, AttributeValue)])
    func unorderedPairs(_ lhs: AttributeValue, _ rhs: AttributeValue) {
        #expect(AttributeValue.order(lhs, rhs) == nil)
        #expect(AttributeValue.order(rhs, lhs) == nil)
    }

    /// Across integers, decimals and doubles of a generated set, order is antisymmetric and agrees
    /// with comparing the exact values as decimals.
    @Test func orderAgreesWithExactComparison() {
        var random = SeededGenerator(seed: 0x0DE4)
        var values: [(AttributeValue, Decimal)] = []
        for _ in 0..<60 {
            let integer = Int64.random(in: -1_000_000...1_000_000, using: &random)
            values.append((.integer(integer), Decimal(integer)))
            let cents = Int64.random(in: -100_000_000...100_000_000, using: &random)
            values.append((.decimal(Decimal(cents) / 100), Decimal(cents) / 100))
            // Halves are exact in binary and in decimal.
            let halves = Int.random(in: -2_000_000...2_000_000, using: &random)
            values.append((.double(Double(halves) / 2), Decimal(halves) / 2))
        }
        for (a, exactA) in values {
            for (b, exactB) in values {
                let expected = exactA < exactB ? -1 : exactA > exactB ? 1 : 0
                #expect(AttributeValue.order(a, b) == expected, "\(a) vs \(b)")
            }
        }
    }
}
