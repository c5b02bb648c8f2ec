internal import Foundation
internal import Strata

/// The `strata_metadata` table: one row per key, with the SQLite store's keys (the whole schema
/// JSON under `schema`, each custom key under `custom.`).
enum PostgresMetadata {
    private static let customPrefix = StoreMetadata.Key.custom + "."

    /// The store's metadata; nil when the schema has no `strata_metadata` table (no store yet).
    static func read(_ connection: PGConnection, location: PostgresLocation) throws(StrataError) -> StoreMetadata? {
        let exists = try connection.run(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'strata_metadata'", [location.schema])
        guard exists.count == 1 else { return nil }
        let rows = try connection.run("SELECT \"key\", \"value\" FROM \"strata_metadata\"")
        var values: [String: String] = [:]
        for row in 0..<rows.count {
            if let key = rows.text(row, 0) { values[key] = rows.text(row, 1) }
        }
        func required(_ key: String) throws(StrataError) -> String {
            guard let value = values[key] else {
                throw StrataError(.corruptStore, "strata_metadata has no '\(key)' row", file: location.description)
            }
            return value
        }
        let hashesText = try required(StoreMetadata.Key.entityVersionHashes)
        guard let hashes = (try? JSONSerialization.jsonObject(with: Data(hashesText.utf8))) as? [String: String] else {
            throw StrataError(.corruptStore, "strata_metadata's entityVersionHashes is not a JSON object of strings", file: location.description)
        }
        var custom: [String: String] = [:]
        for (key, value) in values where key.hasPrefix(customPrefix) { custom[String(key.dropFirst(customPrefix.count))] = value }
        return StoreMetadata(
            storeIdentifier: try required(StoreMetadata.Key.storeIdentifier),
            storeType: StoreType(rawValue: try required(StoreMetadata.Key.storeType)),
            modelName: try required(StoreMetadata.Key.modelName),
            modelVersionHash: try required(StoreMetadata.Key.modelVersionHash),
            entityVersionHashes: hashes, schemaJSON: try required(StoreMetadata.Key.schema), custom: custom)
    }

    /// Writes every row of a new store's metadata.
    static func write(_ metadata: StoreMetadata, _ connection: PGConnection) throws(StrataError) {
        let hashes = (try? JSONSerialization.data(withJSONObject: metadata.entityVersionHashes, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let rows = [
            (StoreMetadata.Key.storeIdentifier, metadata.storeIdentifier),
            (StoreMetadata.Key.storeType, metadata.storeType.rawValue),
            (StoreMetadata.Key.modelName, metadata.modelName),
            (StoreMetadata.Key.modelVersionHash, metadata.modelVersionHash),
            (StoreMetadata.Key.entityVersionHashes, hashes),
            (StoreMetadata.Key.schema, metadata.schemaJSON),
        ]
        for (key, value) in rows {
            try connection.run("INSERT INTO \"strata_metadata\" (\"key\", \"value\") VALUES ($1, $2)", [key, value])
        }
        try writeCustom(metadata.custom, connection)
    }

    /// Replaces the custom keys.
    static func writeCustom(_ custom: [String: String], _ connection: PGConnection) throws(StrataError) {
        try connection.run("DELETE FROM \"strata_metadata\" WHERE starts_with(\"key\", $1)", [customPrefix])
        for key in custom.keys.sorted() {
            try connection.run("INSERT INTO \"strata_metadata\" (\"key\", \"value\") VALUES ($1, $2)", [customPrefix + key, custom[key]!])
        }
    }
}
