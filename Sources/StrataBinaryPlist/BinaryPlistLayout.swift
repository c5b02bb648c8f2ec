internal import Foundation
internal import Strata

/// The names and rules of the store layout inside the property list; `Docs/BinaryPlistFormat.md`
/// describes it for people.
enum BinaryPlistLayout {
    /// The layout version this code writes and reads; a file with a larger one was written by a
    /// newer Strata.
    static let formatVersion: Int64 = 1

    enum TopKey {
        static let metadata = "metadata"
        static let objects = "objects"
    }

    enum MetadataKey {
        static let formatVersion = "formatVersion"
        static let storeIdentifier = "storeIdentifier"
        static let storeType = "storeType"
        static let modelName = "modelName"
        static let modelVersionHash = "modelVersionHash"
        static let entityVersionHashes = "entityVersionHashes"
        static let schema = "schema"
        static let custom = "custom"
        static let keySequences = "keySequences"

        /// In the order they are written.
        static let all = [
            formatVersion, storeIdentifier, storeType, modelName, modelVersionHash,
            entityVersionHashes, schema, custom, keySequences,
        ]
    }

    /// Record keys that are not properties: property names start with a letter, so these never
    /// clash with one.
    enum RecordKey {
        static let primaryKey = "@id"
        static let version = "@version"
    }

    /// A decimal as text that ``decimal(from:)`` reads back to the same value: the plain form
    /// (`12.5`, `-0.001`) when it is exact and short enough, else the significand and the exponent
    /// (`340282366920938463463374607431768211455e127`).
    static func text(of decimal: Decimal) -> String? {
        guard !decimal.isNaN else { return nil }
        let plain = decimal.description
        if let parsed = AttributeValue.parseDecimal(plain), parsed == decimal { return plain }
        let scientific = (decimal.sign == .minus ? "-" : "") + decimal.significand.description + "e\(decimal.exponent)"
        if let parsed = Self.decimal(from: scientific), parsed == decimal { return scientific }
        return nil
    }

    /// Reads a decimal written as text: the strict form of the JSON data format (at most 38
    /// significant digits), or a significand of up to 39 digits with an exponent, which is how
    /// ``text(of:)`` writes values that need all 128 bits of `Decimal`'s significand.
    static func decimal(from text: String) -> Decimal? {
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
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// `Entity/p12`: a reference that names its entity (see ``reference(from:)``).
    static func referenceText(_ id: ObjectID, primaryKey: Int64) -> String {
        "\(id.entityName)/p\(primaryKey)"
    }

    /// Splits `Entity/p12` into the entity name and the key; nil when the text is not that form.
    static func parseReference(_ text: Substring) -> (entity: Substring, primaryKey: Int64)? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let entity = text[..<slash]
        let rest = text[text.index(after: slash)...]
        guard !entity.isEmpty, rest.first == "p", let key = Int64(rest.dropFirst()) else { return nil }
        return (entity, key)
    }
}
