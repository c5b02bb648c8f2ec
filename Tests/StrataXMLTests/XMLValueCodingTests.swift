import Foundation
import Strata
import StrataTestKit
@testable import StrataXML
import Testing

/// The byte-level parsers behind the XML store's value encodings.
@Suite struct XMLValueCodingTests {
    func parse<T>(_ text: String, _ parser: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        Array(text.utf8).withUnsafeBufferPointer(parser)
    }

    @Test func integers() {
        #expect(parse("-9223372036854775808", XMLValueCoding.parseInteger) == Int64.min)
        #expect(parse("9223372036854775807", XMLValueCoding.parseInteger) == Int64.max)
        #expect(parse("9223372036854775808", XMLValueCoding.parseInteger) == nil)
        #expect(parse("-9223372036854775809", XMLValueCoding.parseInteger) == nil)
        #expect(parse("007", XMLValueCoding.parseInteger) == 7)
        for bad in ["", "-", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "١"] {
            #expect(parse(bad, XMLValueCoding.parseInteger) == nil, "\(bad)")
        }
    }

    @Test func doublesAreStrict() {
        #expect(parse("1e-05", XMLValueCoding.parseDouble) == 1e-5)
        #expect(parse("-0.0", XMLValueCoding.parseDouble)?.sign == .minus)
        #expect(parse("NaN", XMLValueCoding.parseDouble)?.isNaN == true)
        #expect(parse("-Infinity", XMLValueCoding.parseDouble) == -.infinity)
        for bad in ["", "inf", "nan", "+1", " 1", "0x1p3", ".5", "5.", "1e", "1e999", "Infinity ", "1,5"] {
            #expect(parse(bad, XMLValueCoding.parseDouble) == nil, "\(bad)")
        }
    }

    @Test func decimals() {
        let cases = ["0", "-12.5", "12.50", "0.000001", "18446744073709551615", "-1234567890.123456789",
                     "123456789012345678901234567890.12345678", "99999999999999999999999999999999999999"]
        for text in cases {
            #expect(parse(text, XMLValueCoding.parseDecimal) == Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), "\(text)")
        }
        #expect(parse("1234567890123456789012345678901234567891", XMLValueCoding.parseDecimal) == nil, "40 significant digits")
        #expect(parse("1234567890123456789012345678901234567890", XMLValueCoding.parseDecimal) == Decimal(string: "1234567890123456789012345678901234567890"), "39 significant digits and a zero")
        #expect(parse("1e-200", XMLValueCoding.parseDecimal) == nil, "below the exponent range")
        for bad in ["", "-", "1.", ".1", "1.2.3", "12abc", "1e", " 1"] {
            #expect(parse(bad, XMLValueCoding.parseDecimal) == nil, "\(bad)")
        }
    }

    @Test func uuids() {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(parse("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", XMLValueCoding.parseUUID) == uuid)
        #expect(parse("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", XMLValueCoding.parseUUID) == uuid)
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<200 {
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { raw in for index in raw.indices { raw[index] = UInt8.random(in: 0 ... .max, using: &generator) } }
            let random = UUID(uuid: bytes)
            #expect(XMLValueCoding.uuidText(random) == random.uuidString)
        }
        for bad in ["", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5G", "E621E1F8-C36C-495A-93FC_0C247A3E6E5F"] {
            #expect(parse(bad, XMLValueCoding.parseUUID) == nil, "\(bad)")
        }
        // Any byte in place of a digit: only the 22 hexadecimal digits read (Foundation's own
        // reader is no guide: on Linux it takes some other bytes too).
        let valid = Array("e621e1f8-C36C-495a-93FC-0c247A3E6E5F".utf8)
        let hexadecimal = Set("0123456789abcdefABCDEF".utf8)
        for position in [0, 7, 9, 14, 19, 24, 35] {
            for byte in [UInt8](0...255) {
                var bytes = valid
                bytes[position] = byte
                let expected = hexadecimal.contains(byte) ? UUID(uuidString: String(decoding: bytes, as: UTF8.self)) : nil
                #expect(bytes.withUnsafeBufferPointer(XMLValueCoding.parseUUID) == expected, "\(bytes)")
            }
        }
    }

    /// The fast date reader gives exactly the `Date` the general ISO 8601 reader gives, so that
    /// a date the writer checked with one reads back equal with the other.
    @Test(arguments: [21, 22] as [UInt64])
    func canonicalDatesMatchTheGeneralReader(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = ISO8601.string(from: date)
            let fast = parse(text, XMLValueCoding.parseCanonicalDate)
            #expect(fast != nil && fast == ISO8601.date(from: text), "\(text)")
            if let iso = XMLValueCoding.isoText(for: date) {
                #expect(iso == text)
                #expect(parse(iso, XMLValueCoding.parseCanonicalDate) == date)
            }
        }
        for bad in ["2024-02-30T10:00:00.000Z", "2024-05-01T24:00:00.000Z", "2024-05-01T10:00:00.000+01:00", "2024-05-01T10:00:00Z"] {
            #expect(parse(bad, XMLValueCoding.parseCanonicalDate) == nil, "\(bad)")
        }
    }
}
