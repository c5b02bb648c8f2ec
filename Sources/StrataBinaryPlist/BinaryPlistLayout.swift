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

    /// The shared names of ``StoreMetadata``'s fields, and this format's own (below).
    typealias MetadataKey = StoreMetadata.Key

    /// Record keys that are not properties: property names start with a letter, so these never
    /// clash with one.
    enum RecordKey {
        static let primaryKey = "@id"
        static let version = "@version"
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

/// The metadata dictionary's keys besides the shared ones.
extension StoreMetadata.Key {
    static let formatVersion = "formatVersion"
    static let keySequences = "keySequences"

    /// Every key of a binary store's metadata dictionary, in the order they are written.
    static let all = [
        formatVersion, storeIdentifier, storeType, modelName, modelVersionHash,
        entityVersionHashes, schema, custom, keySequences,
    ]
}
