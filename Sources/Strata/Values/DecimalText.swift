package import Foundation

/// A fast, exact replacement for `Decimal.description` (a third of an XML save's time went
/// there; the SQLite store and the JSON data format write decimals with it too).
///
/// This toolchain's `Decimal` does not expose `_mantissa` and friends publicly, so the 128-bit
/// mantissa is read from the value's bytes: swift-foundation lays a `Decimal` out as an `Int8`
/// exponent, a byte of length and flags, two reserved bytes, then the mantissa as eight
/// little-endian `UInt16` words. The sign and the exponent come from public API (`sign`,
/// `exponent`). Because the layout is not a promise, ``layoutIsAsExpected`` checks it once on
/// probe values against `description`; on any mismatch every call falls back to `description`.
package enum DecimalText {
    /// The same text as `decimal.description` for a decimal that is not NaN.
    package static func text(for decimal: Decimal) -> String {
        guard layoutIsAsExpected else { return decimal.description }
        return fastText(for: decimal) ?? decimal.description
    }

    /// Whether ``fastText(for:)`` agrees with `description` on probe values (computed once).
    package static let layoutIsAsExpected: Bool = {
        guard MemoryLayout<Decimal>.size == 20 else { return false }
        let probes = [
            "-123.45", "0.001", "1e30", "7", "-0.5", "12345678901234567890123456789012345678",
            "-98765432109876543210.123456789", "4294967296", "18446744073709551616", "1e-100",
        ]
        for probe in probes {
            guard let decimal = Decimal(string: probe, locale: Locale(identifier: "en_US_POSIX")),
                  fastText(for: decimal) == decimal.description else { return false }
        }
        return true
    }()

    /// The text, or nil for a form left to `description` (zero, NaN).
    package static func fastText(for decimal: Decimal) -> String? {
        var failed = false
        let text = String(unsafeUninitializedCapacity: maximumLength) { out in
            guard let count = write(decimal, into: out.baseAddress!) else {
                failed = true
                return 0
            }
            return count
        }
        return failed ? nil : text
    }

    /// The longest text ``write(_:into:)`` writes: a sign, 39 digits and 127 zeros.
    package static let maximumLength = 1 + 39 + 127

    /// Writes the text of `decimal` into `out`, which has room for ``maximumLength`` bytes:
    /// the number of bytes written, or nil for a form left to `description` (zero, NaN).
    package static func write(_ decimal: Decimal, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        if decimal.isNaN { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        withUnsafeBytes(of: decimal) { raw in
            for word in 0..<4 {
                low |= UInt64(raw.load(fromByteOffset: 4 + 2 * word, as: UInt16.self)) << (16 * UInt64(word))
                high |= UInt64(raw.load(fromByteOffset: 12 + 2 * word, as: UInt16.self)) << (16 * UInt64(word))
            }
        }
        if low == 0 && high == 0 { return nil }
        let exponent = decimal.exponent
        let negative = decimal.sign == .minus

        // The digits of the mantissa, most significant first, into a 40-byte buffer.
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { raw -> Int in
            let buffer = raw.bindMemory(to: UInt8.self)
            var position = buffer.count
            if high == 0 {
                position = writeDigits(low, into: buffer, end: position, minimumCount: 0)
            } else {
                // Split the 128-bit mantissa into base-10^19 chunks.
                let chunk: UInt64 = 10_000_000_000_000_000_000
                let (q1, r1) = chunk.dividingFullWidth((high % chunk, low))
                // (high, low) = top·chunk·2^64 + (high % chunk)·2^64 + low = chunk·(top·2^64 + q1) + r1
                let top = high / chunk  // at most 1
                position = writeDigits(r1, into: buffer, end: position, minimumCount: 19)
                if top == 0 {
                    position = writeDigits(q1, into: buffer, end: position, minimumCount: 0)
                } else {
                    let (q2, r2) = chunk.dividingFullWidth((top, q1))
                    position = writeDigits(r2, into: buffer, end: position, minimumCount: 19)
                    position = writeDigits(q2, into: buffer, end: position, minimumCount: 0)
                }
            }
            let digitCount = buffer.count - position
            let digitStart = buffer.baseAddress! + position
            var index = 0
            if negative { out[0] = UInt8(ascii: "-"); index = 1 }
            if exponent >= 0 {
                (out + index).initialize(from: digitStart, count: digitCount)
                index += digitCount
                (out + index).initialize(repeating: UInt8(ascii: "0"), count: exponent)
                index += exponent
            } else if -exponent < digitCount {
                let whole = digitCount + exponent
                (out + index).initialize(from: digitStart, count: whole)
                index += whole
                out[index] = UInt8(ascii: ".")
                (out + index + 1).initialize(from: digitStart + whole, count: digitCount - whole)
                index += 1 + digitCount - whole
            } else {
                out[index] = UInt8(ascii: "0")
                out[index + 1] = UInt8(ascii: ".")
                index += 2
                (out + index).initialize(repeating: UInt8(ascii: "0"), count: -exponent - digitCount)
                index += -exponent - digitCount
                (out + index).initialize(from: digitStart, count: digitCount)
                index += digitCount
            }
            return index
        }
    }

    /// Writes `value` in decimal ending just before `end`, padded with zeros to `minimumCount`
    /// digits; returns the index of the first digit written.
    private static func writeDigits(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, end: Int, minimumCount: Int) -> Int {
        var value = value
        var position = end
        repeat {
            position -= 1
            buffer[position] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0")
            value /= 10
        } while value != 0
        while end - position < minimumCount {
            position -= 1
            buffer[position] = UInt8(ascii: "0")
        }
        return position
    }
}
