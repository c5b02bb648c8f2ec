import Foundation
@testable import StrataXML
import Testing

/// The fast decimal formatter writes exactly what `Decimal.description` writes.
@Suite struct DecimalTextTests {
    /// SplitMix64: a small seeded generator, so that failures reproduce.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let posix = Locale(identifier: "en_US_POSIX")

    func check(_ decimal: Decimal, _ source: @autoclosure () -> String) {
        #expect(DecimalText.text(for: decimal) == decimal.description, "from \(source())")
        if let fast = DecimalText.fastText(for: decimal) {
            #expect(fast == decimal.description, "from \(source())")
        }
    }

    @Test func layoutIsRecognized() {
        #expect(DecimalText.layoutIsAsExpected)
    }

    @Test func fixedValues() {
        let texts = [
            "0", "-0", "1", "-1", "9", "10", "100", "0.1", "-0.1", "0.001", "123.456", "-123.456",
            "18446744073709551615", "18446744073709551616", "-18446744073709551617",
            "9999999999999999999", "10000000000000000000", "10000000000000000001",
            "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
            "12345678901234567890123456789012345678", "0.12345678901234567890123456789012345678",
            "1234567890123456789.0123456789012345678", "340282366920938463463374607431768211455",
            "1e100", "1e127", "-1e-127", "1e-128", "123e-130", "0.5", "1.50", "2.000",
        ]
        for text in texts {
            guard let decimal = Decimal(string: text, locale: Self.posix) else { continue }
            check(decimal, text)
        }
        check(Decimal(1) / Decimal(3), "1/3")
        check(Decimal(-2) / Decimal(3), "-2/3")
        check(Decimal(sign: .plus, exponent: -2, significand: Decimal(150)), "150e-2")
        check(Decimal(sign: .minus, exponent: 5, significand: Decimal(12)), "-12e5")
        check(Decimal.greatestFiniteMagnitude, "greatestFiniteMagnitude")
        check(Decimal.leastNonzeroMagnitude, "leastNonzeroMagnitude")
        check(Decimal.leastFiniteMagnitude, "leastFiniteMagnitude")
        check(Decimal.zero, "zero")
        check(Decimal(0.1), "Double 0.1")
        for key in 1...2_000 { check(Decimal(key) / 100, "\(key)/100") }
    }

    @Test func seededRandomValues() {
        var generator = SeededGenerator(state: 0x5EED_DEC1_4A1E)
        for round in 0..<20_000 {
            let digitCount = Int.random(in: 1...38, using: &generator)
            var digits = String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<digitCount { digits.append(String(Int.random(in: 0...9, using: &generator))) }
            let exponent: Int
            switch round % 4 {
            case 0: exponent = Int.random(in: -40...0, using: &generator)
            case 1: exponent = Int.random(in: -128...127, using: &generator)
            case 2: exponent = Int.random(in: -6...6, using: &generator)
            default: exponent = 0
            }
            let negative = Bool.random(using: &generator)
            let text = "\(negative ? "-" : "")\(digits)e\(exponent)"
            guard let decimal = Decimal(string: text, locale: Self.posix), !decimal.isNaN else { continue }
            check(decimal, text)
            // Arithmetic results too: their mantissas need not be normalized.
            let divisor = Decimal(Int.random(in: 1...999, using: &generator))
            check(decimal / divisor, "\(text) / \(divisor)")
            check(decimal * divisor, "\(text) * \(divisor)")
        }
    }
}

/// Doubles and floats read from bytes (C locale `strtod`/`strtof`) exactly as `Double(_: String)`
/// and `Float(_: String)` read them.
@Suite struct NumberParsingTests {
    func parse(_ text: String) -> (Double?, Float?) {
        Array(text.utf8).withUnsafeBufferPointer { (CNumberParsing.double($0), CNumberParsing.float($0)) }
    }

    @Test func seededRandomNumbers() {
        var generator = DecimalTextTests.SeededGenerator(state: 0xF10A7)
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
