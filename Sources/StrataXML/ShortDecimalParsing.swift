/// Correctly rounded `Double` and `Float` values of short decimal numbers, computed exactly
/// with integers instead of `strtod` (whose general algorithm cost more than the rest of
/// reading a number): the text's significant digits `w` (at most 19, so that they fit in a
/// `UInt64`) and its decimal exponent `e` give the value `w × 10^e` as
///
/// - `w × 5^e × 2^e` for `0 ≤ e ≤ 27` (`5^27 < 2^64`, so `w × 5^e` is an exact 128-bit product),
/// - `(w × 2^s) / 10^-e × 2^-s` for `-19 ≤ e < 0` (`10^19 < 2^64`): a 128-by-64-bit division
///   whose quotient has 63 or 64 bits and whose remainder says whether anything is left,
///
/// rounded once, to nearest with ties to even, from those exact integers. Any other number
/// (more digits, a larger exponent) and any other text returns nil, for the caller's general
/// conversion and its error. `ShortDecimalParsingTests` compares both with `strtod`/`strtof`
/// bit for bit.
enum ShortDecimalParsing {
    /// The value of `text` if it is `-?digits[.digits][(e|E)[+-]digits]` (the form
    /// ``XMLValueCoding/parseDouble(_:)`` accepts) and short enough; nil otherwise.
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let (negative, significand, exponent) = parts(text) else { return nil }
        guard let (mantissa, binaryExponent) = rounded(significand, exponent, bits: 53) else { return nil }
        let magnitude = Double(sign: .plus, exponent: binaryExponent, significand: Double(mantissa))
        return negative ? -magnitude : magnitude
    }

    /// As ``double(_:)``, rounded once to a `Float`; nil also outside the finite `Float` range.
    static func float(_ text: UnsafeBufferPointer<UInt8>) -> Float? {
        guard let (negative, significand, exponent) = parts(text) else { return nil }
        guard let (mantissa, binaryExponent) = rounded(significand, exponent, bits: 24) else { return nil }
        // Normal floats only: a 24-bit mantissa times 2^binaryExponent below 2^128.
        guard mantissa == 0 || binaryExponent + 24 <= 128 else { return nil }
        let magnitude = Float(sign: .plus, exponent: binaryExponent, significand: Float(mantissa))
        return negative ? -magnitude : magnitude
    }

    /// The sign, the significant digits and the decimal exponent of
    /// `-?digits[.digits][(e|E)[+-]digits]`; nil for any other text, for more than 19
    /// significant digits and for an exponent of more than four digits.
    private static func parts(_ text: UnsafeBufferPointer<UInt8>) -> (negative: Bool, significand: UInt64, exponent: Int)? {
        let count = text.count
        guard count > 0, let base = text.baseAddress else { return nil }
        var index = 0
        let negative = base[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var significand: UInt64 = 0
        var digits = 0
        var exponent = 0
        // Digits, skipping leading zeros; false for a 20th significant digit.
        func digit(_ value: UInt8) -> Bool {
            if digits > 0 || value != 0 {
                guard digits < 19 else { return false }
                significand = significand &* 10 &+ UInt64(value)
                digits += 1
            }
            return true
        }
        let wholeStart = index
        while index < count, case let value = base[index] &- UInt8(ascii: "0"), value < 10 {
            guard digit(value) else { return nil }
            index += 1
        }
        guard index > wholeStart else { return nil }
        if index < count && base[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count, case let value = base[index] &- UInt8(ascii: "0"), value < 10 {
                guard digit(value) else { return nil }
                exponent -= 1
                index += 1
            }
            guard index > fractionStart else { return nil }
        }
        if index < count && (base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E")) {
            index += 1
            var exponentNegative = false
            if index < count && (base[index] == UInt8(ascii: "-") || base[index] == UInt8(ascii: "+")) {
                exponentNegative = base[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var written = 0
            while index < count, case let value = base[index] &- UInt8(ascii: "0"), value < 10 {
                guard index - exponentStart < 4 else { return nil }
                written = written * 10 + Int(value)
                index += 1
            }
            guard index > exponentStart else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard index == count else { return nil }
        return (negative, significand, exponent)
    }

    /// `significand × 10^exponent` rounded to `bits` bits: the mantissa (below `2^bits`) and the
    /// power of two it is multiplied by; nil outside the exponents this handles.
    private static func rounded(_ significand: UInt64, _ exponent: Int, bits: Int) -> (mantissa: UInt64, exponent: Int)? {
        if significand == 0 { return (0, 0) }
        if exponent >= 0 {
            guard exponent <= 27 else { return nil }
            let (high, low) = significand.multipliedFullWidth(by: powersOfFive[exponent])
            return round(high: high, low: low, inexact: false, bits: bits, scale: exponent)
        }
        guard exponent >= -19 else { return nil }
        let divisor = powersOfTen[-exponent]
        // Shift so that the quotient has 63 or 64 bits: (w × 2^shift) / divisor < 2^64.
        let shift = 63 + (64 - divisor.leadingZeroBitCount) - (64 - significand.leadingZeroBitCount)
        let high = shift >= 64 ? significand << (shift - 64) : (shift == 0 ? 0 : significand >> (64 - shift))
        let low = shift >= 64 ? 0 : significand << shift
        let (quotient, remainder) = divisor.dividingFullWidth((high, low))
        return round(high: 0, low: quotient, inexact: remainder != 0, bits: bits, scale: -shift)
    }

    /// The 128-bit integer `high:low` (plus something below one when `inexact`) times
    /// `2^scale`, rounded to `bits` bits, to nearest with ties to even.
    private static func round(high: UInt64, low: UInt64, inexact: Bool, bits: Int, scale: Int) -> (mantissa: UInt64, exponent: Int) {
        let length = high != 0 ? 128 - high.leadingZeroBitCount : 64 - low.leadingZeroBitCount
        guard length > bits else { return (low, scale) }  // exact: fits in `bits` bits
        let dropped = length - bits
        // The kept bits, the first dropped bit, and whether any later bit (or the remainder) is set.
        let kept: UInt64
        let half: Bool
        let rest: Bool
        if dropped < 64 {
            kept = dropped == 0 ? low : (low >> dropped) | (high << (64 - dropped))
            half = (low >> (dropped - 1)) & 1 == 1
            rest = dropped > 1 && low & ((1 << (dropped - 1)) - 1) != 0
        } else {
            kept = high >> (dropped - 64)
            half = dropped == 64 ? low >> 63 == 1 : (high >> (dropped - 65)) & 1 == 1
            let lowerMask: UInt64 = dropped == 64 ? (1 << 63) - 1 : (dropped - 65 == 0 ? 0 : (1 << (dropped - 65)) - 1)
            rest = (dropped == 64 ? low & lowerMask : (high & lowerMask) | low) != 0
        }
        var mantissa = kept
        if half && (rest || inexact || mantissa & 1 == 1) { mantissa += 1 }
        var exponent = scale + dropped
        if mantissa >> bits != 0 {
            mantissa >>= 1
            exponent += 1
        }
        return (mantissa, exponent)
    }

    private static let powersOfFive: [UInt64] = (0...27).map { power in (0..<power).reduce(1) { result, _ in result * 5 } }
    private static let powersOfTen: [UInt64] = (0...19).map { power in (0..<power).reduce(1) { result, _ in result * 10 } }
}
