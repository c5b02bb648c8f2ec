internal import Foundation

/// What every store keeps about itself, readable without opening a stack: its identity, type,
/// and the model it was written with (name, hashes and the whole schema JSON), so that a store
/// describes itself and a store opened with another model is detected before data is touched.
public struct StoreMetadata: Sendable, Hashable, Codable {
    /// The store's UUID, part of every permanent object ID and URI.
    public var storeIdentifier: String
    public var storeType: StoreType
    public var modelName: String
    public var modelVersionHash: String
    public var entityVersionHashes: [String: String]
    /// The model as canonical JSON (``Schema/jsonString``).
    public var schemaJSON: String
    /// Keys an app sets for itself (``PersistentStoreCoordinator/setMetadata(_:forKey:in:)``).
    public var custom: [String: String]

    /// The names store files give these fields (a SQLite store's `strata_metadata` rows, a
    /// binary store's metadata dictionary), one spelling for every format. A format adds its own
    /// keys in an extension.
    public enum Key {
        public static let storeIdentifier = "storeIdentifier"
        public static let storeType = "storeType"
        public static let modelName = "modelName"
        public static let modelVersionHash = "modelVersionHash"
        public static let entityVersionHashes = "entityVersionHashes"
        public static let schema = "schema"
        public static let custom = "custom"
    }

    public init(
        storeIdentifier: String, storeType: StoreType, modelName: String, modelVersionHash: String,
        entityVersionHashes: [String: String], schemaJSON: String, custom: [String: String] = [:]
    ) {
        self.storeIdentifier = storeIdentifier
        self.storeType = storeType
        self.modelName = modelName
        self.modelVersionHash = modelVersionHash
        self.entityVersionHashes = entityVersionHashes
        self.schemaJSON = schemaJSON
        self.custom = custom
    }

    /// Metadata for a new store of `schema`.
    public init(newStoreOf type: StoreType, schema: Schema, identifier: String) {
        self.init(
            storeIdentifier: identifier, storeType: type, modelName: schema.name,
            modelVersionHash: schema.versionHash, entityVersionHashes: schema.entityVersionHashes,
            schemaJSON: schema.jsonString)
    }

    /// The model the store was written with.
    public func schema() throws(StrataError) -> Schema {
        guard !schemaJSON.isEmpty else {
            throw StrataError(.invalidConfiguration, "the \(storeType) store keeps no Strata model; open it with its model (strata: --schema <model>)")
        }
        do {
            return try Schema(data: Data(schemaJSON.utf8), file: "the schema stored in the store")
        } catch {
            throw StrataError(.corruptStore, "the schema stored in the store does not load:\n\(error)")
        }
    }

    /// Nil when the store was written with `schema`; otherwise an error that names the entities
    /// that were added, removed or changed.
    public func incompatibility(with schema: Schema) -> StrataError? {
        guard modelVersionHash != schema.versionHash else { return nil }
        let current = schema.entityVersionHashes
        let added = current.keys.filter { entityVersionHashes[$0] == nil }.sorted()
        let removed = entityVersionHashes.keys.filter { current[$0] == nil }.sorted()
        let changed = current.keys.filter { entityVersionHashes[$0] != nil && entityVersionHashes[$0] != current[$0] }.sorted()
        var parts: [String] = []
        if !changed.isEmpty { parts.append("changed: \(changed.joined(separator: ", "))") }
        if !added.isEmpty { parts.append("only in the model: \(added.joined(separator: ", "))") }
        if !removed.isEmpty { parts.append("only in the store: \(removed.joined(separator: ", "))") }
        if parts.isEmpty { parts.append("the model's version hash modifier differs") }
        return StrataError(
            .incompatibleModel,
            "the store was written with model '\(modelName)' (hash \(modelVersionHash.prefix(12))…), which differs from model '\(schema.name)' (hash \(schema.versionHash.prefix(12))…): \(parts.joined(separator: "; ")). Migrate the store, or open it with the model it was written with")
    }
}
