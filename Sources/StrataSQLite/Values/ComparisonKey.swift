internal import Foundation
internal import Strata

/// The shadow-column values that let plain SQL (the built-in BINARY collation, no function of
/// Strata's) compare strings, URIs and decimals exactly as the in-memory evaluator does, so that
/// the schema names nothing but SQLite's own collations and the `sqlite3` shell can check,
/// vacuum, reindex and edit a store.
///
/// - A string or URI column `x` has `"_x_nfc"`: the NFC form of the value when it differs from
///   the value, else NULL (nearly always). `coalesce("_x_nfc", "x")` is then the NFC form, whose
///   byte order is `StringMatching.compare`'s order and whose equality is canonical equivalence.
/// - A decimal column `x` has `"_x_key"`: ``decimal(_:)``, text whose byte order is the numeric
///   order (1.0, 1.00 and 1 share one key; -0 is 0).
enum ComparisonKey {
    /// The shadow column of a string or URI attribute.
    static func stringColumn(_ attribute: String) -> String { "_\(attribute)_nfc" }

    /// The shadow column of a decimal attribute.
    static func decimalColumn(_ attribute: String) -> String { "_\(attribute)_key" }

    /// The SQL of a string column's comparison key under `alias` (nil: unqualified).
    static func stringExpression(_ attribute: String, alias: String?) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        return "coalesce(\(prefix)\(quoted(stringColumn(attribute))), \(prefix)\(quoted(attribute)))"
    }

    /// The value of an attribute's shadow column: the string's NFC form when it differs (a
    /// URI's `absoluteString` likewise), the decimal's key; NULL otherwise.
    static func shadowValue(of value: AttributeValue?) -> SQLValue {
        switch value {
        case .string(let text)?: string(text).map { .text($0) } ?? .null
        case .uri(let url)?: string(url.absoluteString).map { .text($0) } ?? .null
        case .decimal(let decimal)?: .text(self.decimal(decimal))
        default: .null
        }
    }

    /// The key a stored value (as ``ValueCodec`` encodes it) of a column of `type` is compared
    /// by: NFC text for strings and URIs, ``decimal(_:)`` for decimals, else the value itself.
    static func comparable(_ value: SQLValue, type: AttributeType) -> SQLValue {
        switch (type, value) {
        case (.string, .text(let text)), (.uri, .text(let text)): .text(normalizedString(text))
        case (.decimal, .text(let text)): decimal(text: text).map { .text($0) } ?? .null
        default: value
        }
    }

    /// The value of `"_x_nfc"` for a stored string: its NFC form, or nil when it is NFC.
    static func string(_ text: String) -> String? {
        StringMatching.normalized(text)
    }

    /// The comparison key of a string: its NFC form.
    static func normalizedString(_ text: String) -> String {
        StringMatching.normalized(text) ?? text
    }

    /// The key of decimal text as stored (for the layout upgrade's fill and query arguments);
    /// nil for text with no number at the start. It reads leniently: a damaged value such as
    /// `12abc` gets the key of 12, but the reader refuses that row and `strata check` names it.
    static func decimal(text: String) -> String? {
        ValueCodec.decimal(text).map(decimal)
    }

    /// An order-preserving text key of a decimal: `"1"` for zero; for a positive value `"2"`,
    /// the biased adjusted exponent in three digits, then the significant digits without
    /// trailing zeros; for a negative value `"0"`, the complemented exponent, the digits
    /// complemented (9 − d) and `"~"`, which sorts after every digit, so that a shorter
    /// complemented run (a number nearer zero) sorts after a longer one with the same start.
    /// NaN (which no store keeps: it reads back as nil) sorts after everything, as `"3"`.
    static func decimal(_ value: Decimal) -> String {
        value.isNaN ? "3" : decimal(description: value.description)
    }

    /// ``decimal(_:)`` of a decimal other than NaN from its `description` (what ``ValueCodec``
    /// stores), for a save that made that text already: making it is most of the key's cost.
    static func decimal(description: String) -> String {
        var text = description
        return text.withUTF8(decimalKey)
    }

    /// ``decimal(description:)`` of the description's UTF-8 bytes, built in one buffer: the
    /// plain notation Foundation writes ("-0.00123", "12300", "1.5").
    private static func decimalKey(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let zero = UInt8(ascii: "0")
        let negative = bytes.first == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        let dot = bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
        let integerCount = dot - start
        let count = integerCount + max(0, bytes.count - dot - 1)
        // The digits without the sign and the point.
        func digit(_ index: Int) -> UInt8 {
            index < integerCount ? bytes[start + index] : bytes[dot + 1 + index - integerCount]
        }
        var first = 0
        while first < count, digit(first) == zero { first += 1 }
        guard first < count else { return "1" }
        var last = count - 1
        while digit(last) == zero { last -= 1 }
        // The exponent of the first significant digit: 123.4 → 2, 0.01 → -2. Decimal's range
        // (exponent -128…127, 38 digits) keeps it within -166…165.
        let biased = integerCount - 1 - first + 500
        let exponent = negative ? 999 - biased : biased
        let length = 4 + last - first + 1 + (negative ? 1 : 0)
        return String(unsafeUninitializedCapacity: length) { key in
            key[0] = negative ? zero : UInt8(ascii: "2")
            key[1] = zero + UInt8(exponent / 100)
            key[2] = zero + UInt8(exponent / 10 % 10)
            key[3] = zero + UInt8(exponent % 10)
            var index = 4
            for position in first...last {
                let value = digit(position) - zero
                key[index] = zero + (negative ? 9 - value : value)
                index += 1
            }
            if negative { key[index] = UInt8(ascii: "~") }
            return length
        }
    }
}
