import Foundation
import StrataTestKit
@testable import StrataXML
import Testing

/// Doubles and floats read from bytes (C locale `strtod`/`strtof`) exactly as `Double(_: String)`
/// and `Float(_: String)` read them.
@Suite struct NumberParsingTests {
    func parse(_ text: String) -> (Double?, Float?) {
        Array(text.utf8).withUnsafeBufferPointer { (CNumberParsing.double($0), CNumberParsing.float($0)) }
    }

    @Test func seededRandomNumbers() {
        var generator = SeededGenerator(seed: 0xF10A7)
        var texts = ["0", "-0", "0.1", "1e-05", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
                     "1e309", "1e-400", "3.4028235e38", "3.4028236e38", "1.4e-45", "7e-46", "123456789012345678901234567890",
                     "0.30000000000000004", "9007199254740993", "16777217", "1.00000005960464477539062500000001"]
        for _ in 0..<20_000 {
            let bits = generator.next()
            let double = Double(bitPattern: bits)
            if double.isFinite { texts.append(double.description) }
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 7))
            if float.isFinite { texts.append(float.description) }
            texts.append(String(Double(generator.next() % 10_000_000) / 7))
            // Decimal text near float halfway points, with more digits than a float keeps.
            texts.append("\(generator.next() % 100_000).\(generator.next() % 1_000_000_000_000)")
        }
        for text in texts {
            let (double, float) = parse(text)
            #expect(double?.bitPattern == Double(text)?.bitPattern, "\(text)")
            #expect(float?.bitPattern == Float(text)?.bitPattern, "\(text)")
        }
    }
}
