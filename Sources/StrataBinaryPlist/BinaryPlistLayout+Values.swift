internal import Foundation
internal import Strata

/// The text forms of decimals and UUIDs, written and read without Foundation's formatters on the
/// common path (`Decimal.description` and `UUID(uuidString:)` cost microseconds each, which a
/// store of 100k objects multiplies into a large share of a save or load).
extension BinaryPlistLayout {
    // MARK: - Decimals

    /// A decimal as text that ``decimal(from:)`` reads back to the same value: the plain form
    /// (`12.5`, `-0.001`, `1200`) when it has at most 38 digits, else the significand and the
    /// exponent (`340282366920938463463374607431768211455e127`). Nil for NaN.
    static func text(of decimal: Decimal) -> String? {
        guard !decimal.isNaN else { return nil }
        if decimal.isZero { return "0" }
        let significand = decimal.significand
        let small = NSDecimalNumber(decimal: significand).uint64Value
        guard Decimal(small) == significand else { return slowText(of: decimal) }
        var mantissa = small
        var exponent = decimal.exponent
        while exponent < 0 && mantissa % 10 == 0 {
            mantissa /= 10
            exponent += 1
        }
        let digits = String(mantissa)
        let sign = decimal.sign == .minus ? "-" : ""
        if exponent >= 0 {
            guard digits.utf8.count + exponent <= 38 else { return sign + digits + "e\(exponent)" }
            return sign + digits + String(repeating: "0", count: exponent)
        }
        let fraction = -exponent
        if digits.utf8.count > fraction {
            let point = digits.index(digits.endIndex, offsetBy: -fraction)
            return sign + digits[..<point] + "." + digits[point...]
        }
        return sign + "0." + String(repeating: "0", count: fraction - digits.utf8.count) + digits
    }

    /// Significands beyond 64 bits: Foundation's text, checked to read back exactly.
    private static func slowText(of decimal: Decimal) -> String? {
        let plain = decimal.description
        if let parsed = AttributeValue.parseDecimal(plain), parsed == decimal { return plain }
        let scientific = (decimal.sign == .minus ? "-" : "") + decimal.significand.description + "e\(decimal.exponent)"
        if let parsed = Self.decimal(from: scientific), parsed == decimal { return scientific }
        return nil
    }

    /// Reads a decimal written as text: the strict form of the JSON data format (at most 38
    /// significant digits: `-12.50`, `1e-7`), or a significand of up to 39 digits with an
    /// exponent, which is how ``text(of:)`` writes values that need all 128 bits of `Decimal`'s
    /// significand. Nil for anything else.
    static func decimal(from text: String) -> Decimal? {
        if let fast = fastDecimal(text) { return fast }
        if let decimal = AttributeValue.parseDecimal(text) { return decimal }
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard let e = bytes.firstIndex(of: UInt8(ascii: "e")) else { return nil }
        let significand = bytes[..<e]
        var exponent = bytes[(e + 1)...]
        if exponent.first == UInt8(ascii: "-") { exponent = exponent.dropFirst() }
        func isDigits(_ part: ArraySlice<UInt8>, _ maximum: Int) -> Bool {
            !part.isEmpty && part.count <= maximum && part.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        guard isDigits(significand, 39), isDigits(exponent, 3) else { return nil }
        return Decimal(string: text, locale: posix)
    }

    /// Made once: a `Locale` costs microseconds to make.
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `[-]digits[.digits][e[-]digits]` with a significand that fits 64 bits and an exponent
    /// `Decimal` holds; nil for everything else, which the strict parsers then decide.
    private static func fastDecimal(_ text: String) -> Decimal? {
        var text = text
        return text.withUTF8 { bytes -> Decimal? in
            var index = 0
            let negative = bytes.first == UInt8(ascii: "-")
            if negative { index = 1 }
            var mantissa: UInt64 = 0
            var digits = 0
            var fraction = 0
            var seenPoint = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ".") {
                    guard !seenPoint else { return nil }
                    seenPoint = true
                } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    let (times10, overflow1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                    guard !overflow1, !overflow2 else { return nil }
                    mantissa = sum
                    digits += 1
                    if seenPoint { fraction += 1 }
                } else {
                    break
                }
                index += 1
            }
            guard digits > 0 else { return nil }
            var exponent = 0
            if index < bytes.count {
                guard bytes[index] == UInt8(ascii: "e") else { return nil }
                index += 1
                let negativeExponent = index < bytes.count && bytes[index] == UInt8(ascii: "-")
                if negativeExponent { index += 1 }
                let start = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                guard index == bytes.count, index > start, index - start <= 3 else { return nil }
                if negativeExponent { exponent = -exponent }
            }
            exponent -= fraction
            guard exponent >= -128, exponent <= 127 else { return nil }
            return Decimal(sign: negative && mantissa != 0 ? .minus : .plus, exponent: exponent, significand: Decimal(mantissa))
        }
    }

    // MARK: - UUIDs

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The upper-case text form, as `UUID.uuidString` writes it.
    static func text(of uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = hexDigits[Int(byte >> 4)]
                    text[position + 1] = hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// Parses `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in either case; nil for anything else.
    static func uuid(fromASCII bytes: UnsafeRawBufferPointer) -> UUID? {
        UUIDText.uuid(ascii: bytes)
    }
}
