import Foundation
import Strata
import StrataTestKit
import Testing

/// The fast decimal formatter writes exactly what `Decimal.description` writes.
@Suite struct DecimalTextTests {
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
        var generator = SeededGenerator(seed: 0x5EED_DEC1_4A1E)
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

/// Short decimals are read from their digits exactly as `Decimal(string:)` reads them.
@Suite struct ShortDecimalTests {
    @Test func shortDecimalsReadAsDecimalStringReadsThem() throws {
        var generator = SeededGenerator(seed: 0xDEC_5407)
        var texts = ["0", "-0", "0.00", "007.50", "62.95", "-1.5", "9999999999999999999", "0.000000000000000001", "1.0"]
        for _ in 0..<5_000 {
            let digits = Int.random(in: 1...19, using: &generator)
            var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let point = Int.random(in: 0...digits, using: &generator)
            if point > 0 && point < digits { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            texts.append(Bool.random(using: &generator) ? "-" + text : text)
        }
        let posix = Locale(identifier: "en_US_POSIX")
        for text in texts {
            var bytes = text
            let short = try #require(bytes.withUTF8 { AttributeValue.shortDecimal($0) }, "\(text)")
            let general = try #require(Decimal(string: text, locale: posix))
            #expect(short == general, "\(text)")
            #expect(short.description == general.description, "\(text)")
        }
        // Other forms are left to the general reading.
        for text in ["1e5", "+1", ".5", "1.", "1.2.3", "12345678901234567890", "0.0000000000000000001", "", "-", "1_0"] {
            var bytes = text
            #expect(bytes.withUTF8 { AttributeValue.shortDecimal($0) } == nil, "\(text)")
        }
    }
}
