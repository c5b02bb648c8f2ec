import Foundation
import Strata
import StrataTestKit
@testable import StrataXML
import Testing

/// The byte-level writer behind the XML store's objects: every value's bytes are the text the
/// store has always written (`description`, `uuidString`, `base64EncodedString()`, …) and read
/// back exactly.
@Suite struct XMLByteSinkTests {
    /// What `body` appends, through a buffer of `capacity` bytes (small ones drain often).
    func collect(capacity: Int = XMLByteSink.maximumSpace, _ body: (inout XMLByteSink) -> Void) -> [UInt8] {
        var collected: [UInt8] = []
        let (drained, _) = XMLByteSink.with(capacity: capacity, drain: { collected.append(contentsOf: $0); return true }, body)
        #expect(drained)
        return collected
    }

    func text(_ body: (inout XMLByteSink) -> Void) -> String {
        String(decoding: collect(body), as: UTF8.self)
    }

    /// The text the writer gives a value of an attribute of type `type`.
    func valueText(_ value: AttributeValue, _ type: AttributeType) throws -> String {
        var matched = false
        var failure: XMLValueError?
        let text = text { sink in
            do throws(XMLValueError) { matched = try XMLValueCoding.append(value, type: type, to: &sink) } catch { failure = error }
        }
        if let failure { throw failure }
        #expect(matched)
        return text
    }

    /// Reads `text` back as the reader does.
    func read(_ text: String, _ type: AttributeType) throws -> AttributeValue {
        try Array(text.utf8).withUnsafeBufferPointer { bytes throws(XMLValueError) in
            try XMLValueCoding.value(from: bytes, type: type, base64: false)
        }
    }

    @Test func doublesAreTheirDescriptionAndReadBackBitForBit() throws {
        var generator = SeededGenerator(seed: 0xD0B1E)
        var values: [Double] = [
            0, -0.0, 0.1, 1e-5, 1e16, 1e22, 1e23, 100, 0.30000000000000004, .pi, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9_007_199_254_740_992.0.nextUp,
            123_456_789_012_345_680, Double.leastNormalMagnitude.nextDown, 1.7976931348623157e308, 4.35,
        ]
        for exponent in -330...310 { values.append(Double("1e\(exponent)")!) }
        for _ in 0..<100_000 {
            values.append(Double(bitPattern: generator.next()))
            values.append(Double(generator.next() % 100_000_000) / 7)
        }
        try checkNumbers(values, .double, wrap: AttributeValue.double) { value in
            if case .double(let double) = value { double } else { nil }
        }
    }

    /// Each number's text is `NaN`, `Infinity`, `-Infinity` or its `description`, and reads back
    /// bit for bit (any NaN as NaN).
    func checkNumbers<Number: BinaryFloatingPoint & CustomStringConvertible>(
        _ values: [Number], _ type: AttributeType, wrap: (Number) -> AttributeValue, unwrap: (AttributeValue) -> Number?
    ) throws {
        for value in values {
            let text = try valueText(wrap(value), type)
            if value.isNaN {
                #expect(text == "NaN")
            } else if value.isInfinite {
                #expect(text == (value < 0 ? "-Infinity" : "Infinity"))
            } else {
                #expect(text == value.description)
            }
            guard let back = unwrap(try read(text, type)) else {
                Issue.record("\(text) read back as another kind")
                continue
            }
            #expect(back.isNaN ? value.isNaN : (back == value && back.sign == value.sign), "\(text)")
        }
    }

    @Test func floatsAreTheirDescriptionAndReadBackBitForBit() throws {
        var generator = SeededGenerator(seed: 0xF10A7)
        var values: [Float] = [0, -0.0, 0.1, 1e-10, 16_777_216, Float(16_777_216).nextUp, 3.4028235e38, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .pi, 33_333.332]
        for _ in 0..<100_000 {
            values.append(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
            values.append(Float(generator.next() % 10_000_000) / 3)
        }
        try checkNumbers(values, .float, wrap: AttributeValue.float) { value in
            if case .float(let float) = value { float } else { nil }
        }
    }

    @Test func integersAreTheirDescription() throws {
        var generator = SeededGenerator(seed: 0x1E7)
        var values: [Int64] = [0, 1, -1, 9, 10, -10, .max, .min, .max - 1, .min + 1, 1_000_000_000_000_000_000]
        for _ in 0..<10_000 {
            let value = Int64(bitPattern: generator.next())
            values.append(value >> (value & 63))
        }
        for value in values {
            #expect(text { $0.appendDecimal(value) } == String(value))
            #expect(try valueText(.integer(value), .int64) == String(value))
        }
        #expect(throws: XMLValueError.self) { try valueText(.integer(40_000), .int16) }
        #expect(throws: XMLValueError.self) { try valueText(.integer(Int64(Int32.min) - 1), .int32) }
    }

    @Test func otherValuesAreTheTextTheStoreHasAlwaysWritten() throws {
        #expect(try valueText(.bool(true), .bool) == "true")
        #expect(try valueText(.bool(false), .bool) == "false")
        let uuid = UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!
        #expect(try valueText(.uuid(uuid), .uuid) == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(try valueText(.date(Date(timeIntervalSince1970: 1_714_557_600.123)), .date) == "2024-05-01T10:00:00.123Z")
        #expect(try valueText(.date(Date(timeIntervalSinceReferenceDate: 737_049_600.123456)), .date) == "737049600.123456")
        #expect(try valueText(.decimal(Decimal(string: "-12.50")!), .decimal) == "-12.5")
        #expect(try valueText(.decimal(.nan), .decimal) == "NaN")
        #expect(try valueText(.decimal(0), .decimal) == "0")
        #expect(try valueText(.binary(Data([0, 1, 2])), .transformable) == "AAEC")
        var matched = true
        _ = collect { sink in matched = (try? XMLValueCoding.append(.string("x"), type: .int16, to: &sink)) ?? true }
        #expect(!matched, "a value of another kind is refused")
    }

    @Test func base64IsFoundations() {
        var generator = SeededGenerator(seed: 0xBA5E)
        for length in Array(0...200) + [4095, 4096, 4097, 100_000] {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0 ... .max, using: &generator) })
            let encoded = collect { sink in data.withUnsafeBytes { sink.appendBase64($0) } }
            #expect(String(decoding: encoded, as: UTF8.self) == data.base64EncodedString(), "\(length) bytes")
        }
    }

    /// The word-at-a-time scan classifies text exactly as a byte-by-byte one.
    @Test func scanAgreesWithAByteByByteScan() {
        func reference(_ bytes: [UInt8]) -> (needsEscaping: Bool, hasIllegalCharacter: Bool) {
            var needsEscaping = false
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0x0D: needsEscaping = true
                case 0x09, 0x0A: break
                case 0x00..<0x20: return (needsEscaping, true)
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE:
                    return (needsEscaping, true)
                default: break
                }
            }
            return (needsEscaping, false)
        }
        var generator = SeededGenerator(seed: 0x5CA2)
        let plain = Array("plain text of a typical length, é 漢字".utf8)
        let interesting: [UInt8] = [0x00, 0x07, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x26, 0x3C, 0x3E, 0x7F, 0x80, 0xBE, 0xBF, 0xEF, 0xFF]
        for _ in 0..<20_000 {
            var bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in plain.randomElement(using: &generator)! }
            for _ in 0..<Int.random(in: 0...3, using: &generator) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = interesting.randomElement(using: &generator)!
            }
            let scan = bytes.withUnsafeBufferPointer { XMLByteSink.scan($0) }
            let expected = reference(bytes)
            #expect(scan.hasIllegalCharacter == expected.hasIllegalCharacter, "\(bytes)")
            if !expected.hasIllegalCharacter {
                #expect(scan.needsEscaping == expected.needsEscaping, "\(bytes)")
            }
        }
    }

    @Test func textIsEscapedOnlyWhereNeeded() {
        func escaped(_ text: String) -> String {
            self.text { sink in
                Array(text.utf8).withUnsafeBufferPointer { sink.appendText($0, XMLByteSink.scan($0)) }
            }
        }
        #expect(escaped("") == "")
        #expect(escaped("plain") == "plain")
        #expect(escaped("<&>\"' ]]> &amp;") == "&lt;&amp;&gt;\"' ]]&gt; &amp;amp;")
        #expect(escaped("tab\there\nnewline\r\ncrlf\rcr") == "tab\there\nnewline&#13;\ncrlf&#13;cr")
        #expect(escaped("a long line without anything to escape, then <one>") == "a long line without anything to escape, then &lt;one&gt;")
    }

    /// Pieces larger and smaller than the buffer come out whole and in order.
    @Test func drainsKeepEveryByteInOrder() {
        var generator = SeededGenerator(seed: 0xD2A1)
        var expected: [UInt8] = []
        let collected = collect(capacity: 300) { sink in
            for round in 0..<2_000 {
                switch round % 4 {
                case 0:
                    let piece = (0..<Int.random(in: 0...700, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
                    expected += piece
                    sink.append(piece)
                case 1:
                    let value = Int64(bitPattern: generator.next())
                    expected += Array(String(value).utf8)
                    sink.appendDecimal(value)
                case 2:
                    expected.append(UInt8(ascii: "x"))
                    sink.append(UInt8(ascii: "x"))
                default:
                    expected += Array("</attribute>\n".utf8)
                    sink.append("</attribute>\n")
                }
            }
        }
        #expect(collected == expected)
    }

    @Test func aFailedDrainIsReported() {
        var calls = 0
        let (drained, _) = XMLByteSink.with(capacity: 256, drain: { _ in calls += 1; return false }) { sink in
            for _ in 0..<1_000 { sink.append("0123456789") }
        }
        #expect(!drained)
        #expect(calls == 1, "nothing more is handed over after a failure")
    }
}
