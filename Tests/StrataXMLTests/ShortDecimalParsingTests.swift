import Foundation
import StrataTestKit
@testable import StrataXML
import Testing

/// The exact integer conversion of short decimal numbers gives, bit for bit, what the C
/// library's correctly rounded `strtod` and `strtof` give (and declines the numbers it does
/// not handle).
@Suite struct ShortDecimalParsingTests {
    /// Checks `text` with both conversions; true when the short one handled it.
    @discardableResult
    func check(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> (double: Bool, float: Bool) {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            let double = ShortDecimalParsing.double(bytes)
            let float = ShortDecimalParsing.float(bytes)
            if let double {
                #expect(double.bitPattern == Double(text)?.bitPattern, "\(text)", sourceLocation: sourceLocation)
            }
            if let float {
                #expect(float.bitPattern == Float(text)?.bitPattern, "\(text)", sourceLocation: sourceLocation)
                #expect(float.isFinite, "\(text)", sourceLocation: sourceLocation)
            }
            return (double != nil, float != nil)
        }
    }

    @Test func fixedNumbers() {
        let texts = [
            "0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "1e-05", "1E5", "1e+5", "0.30000000000000004", "3.141592653589793",
            "14285.714285714286", "33333.332", "16777216", "16777217", "16777218", "16777219", "16777216.5",
            // Halfway between two doubles: ties go to the even one.
            "9007199254740993", "9007199254740995", "9007199254740993.0", "18014398509481990", "18014398509481986",
            "9223372036854775807", "9999999999999999999", "1.7976931348623157", "4.9406564584124654", "2.2250738585072014",
            "1e27", "9999999999999999999e27", "1e-19", "1234567890123456789e-19", "0.0000000000000000001",
            "3.4028235e38", "3.4028236e38", "1e38", "1e39", "0.000001", "123456789012345678", "1.00000005960464477539062500000001",
        ]
        for text in texts { check(text) }
        // Handled here, not passed on.
        #expect(check("14285.714285714286") == (true, true))
        #expect(check("9007199254740993") == (true, true))
        #expect(check("1e-19") == (true, true))
        #expect(check("1e27") == (true, true))
        #expect(check("1e39").float == false, "out of the float range: for the general conversion")
        // Passed on: too many digits, or exponents out of reach.
        #expect(check("12345678901234567890") == (false, false))
        #expect(check("1e28") == (false, false))
        #expect(check("1e-20") == (false, false))
        #expect(check("1e10000") == (false, false))
        // Not the form the store writes: for the general conversion, which refuses them.
        for text in ["", "-", "+1", " 1", "1 ", "1.", ".5", "-.5", "1e", "1e+", "1E-", "1.2.3", "1e5e5", "1e5.5", "0x10",
                     "--1", "1-", "NaN", "inf", "Infinity", "1,5", "١"] {
            #expect(check(text) == (false, false), "\(text)")
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func seededRandomNumbers(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var handled = 0
        for round in 0..<100_000 {
            var text: String
            switch round % 5 {
            case 0:
                // The shortest text of a random double or float, as the writer writes it.
                let bits = generator.next()
                let double = Double(bitPattern: bits)
                text = double.isFinite ? double.description : "1"
                if round % 10 == 0 {
                    let float = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
                    text = float.isFinite ? float.description : "1"
                }
            case 1:
                // Up to 19 digits with a point somewhere.
                let digits = String(generator.next() % 10_000_000_000_000_000_000)
                let point = Int.random(in: 0...digits.count, using: &generator)
                let whole = point == 0 ? "0" : String(digits.prefix(point))
                text = point == digits.count ? whole : whole + "." + digits.dropFirst(point)
            case 2:
                // Digits and an exponent around the edges of what is handled.
                let digits = String(generator.next() >> Int.random(in: 0...63, using: &generator))
                text = "\(digits)e\(Int.random(in: -45...45, using: &generator))"
            case 3:
                // Integers between 2^24 and 2^64: many halfway cases for floats and doubles.
                text = String(generator.next() >> Int.random(in: 0...40, using: &generator))
            default:
                // Leading and trailing zeros, signs.
                let digits = String(generator.next() % 1_000_000_000)
                text = "-000\(digits).\(String(repeating: "0", count: Int.random(in: 0...8, using: &generator)))e-\(Int.random(in: 0...12, using: &generator))"
            }
            let result = check(text)
            if result.double { handled += 1 }
        }
        // Most of these are short enough: the integer path is what they exercise.
        #expect(handled > 60_000)
    }
}
