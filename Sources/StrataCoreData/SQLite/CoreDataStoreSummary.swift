public import Foundation
public import Strata
internal import StrataBinaryPlist
internal import StrataSQLite

/// What a Core Data SQLite store says about itself, read without a model: its metadata
/// (`Z_METADATA`), its entities (`Z_PRIMARYKEY`) and how many rows each holds.
///
/// ```swift
/// let summary = try CoreDataSQLiteStoreFactory().summary(at: url)
/// print(summary.storeUUID, summary.entityVersionHashes["Person"]?.base64EncodedString() ?? "-")
/// ```
public struct CoreDataStoreSummary: Sendable, Hashable {
    /// One row of `Z_PRIMARYKEY`, with the number of objects of exactly this entity.
    public struct Entity: Sendable, Hashable {
        /// The entity's number (`Z_ENT`), stored in every row of its table.
        public var number: Int64
        public var name: String
        /// The parent entity's number (`Z_SUPER`), 0 for a root entity.
        public var superNumber: Int64
        /// The largest primary key handed out in the entity's hierarchy (`Z_MAX`).
        public var maximumPrimaryKey: Int64
        /// The table of the entity's root (`Z<ROOT>`), nil when the store has no such table.
        public var table: String?
        /// Rows of exactly this entity (subentities not counted); nil without a table.
        public var objectCount: Int?
    }

    /// `NSStoreUUID` (or `Z_METADATA.Z_UUID`).
    public var storeUUID: String
    /// `NSStoreType` (`SQLite`).
    public var storeType: String?
    /// `NSStoreModelVersionHashes`: each entity's version hash as Core Data computed it.
    public var entityVersionHashes: [String: Data]
    /// `NSStoreModelVersionIdentifiers`: the model's version identifiers.
    public var modelVersionIdentifiers: [String]
    /// `NSPersistenceFrameworkVersion`: the build of Core Data that wrote the store.
    public var frameworkVersion: String?
    /// Every key of the metadata, Core Data's own (`NS…`, `_NS…`) included, as text (data as
    /// base64).
    public var metadata: [String: String]
    /// The keys an app set itself (every key not starting with `NS` or `_NS`).
    public var customMetadata: [String: String]
    /// `Z_PRIMARYKEY`, by entity number.
    public var entities: [Entity]

    /// The metadata as Strata's stores give it, with no model: the store UUID as identifier,
    /// Core Data's entity hashes (base64) and digest, no schema.
    public var storeMetadata: StoreMetadata {
        StoreMetadata(
            storeIdentifier: storeUUID, storeType: .coreDataSQLite,
            modelName: modelVersionIdentifiers.joined(separator: ", "),
            modelVersionHash: metadata["NSStoreModelVersionHashesDigest"] ?? "",
            entityVersionHashes: entityVersionHashes.mapValues { $0.base64EncodedString() },
            schemaJSON: "", custom: customMetadata)
    }
}

extension CoreDataStoreSummary {
    /// Reads `Z_METADATA` and `Z_PRIMARYKEY`; counts rows only when `counting`.
    static func read(_ database: Database, counting: Bool) throws(StrataError) -> CoreDataStoreSummary {
        let file = database.path
        let tables = try database.tableNames()
        for table in ["Z_METADATA", "Z_PRIMARYKEY"] where !tables.contains(table) {
            throw StrataError(.corruptStore, "the SQLite database is not a Core Data store: it has no \(table) table", file: file)
        }
        let rows = try database.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1", []) { row in
            (row.isNull(0) ? nil : row.text(0), row.isNull(1) ? nil : row.blob(1))
        }
        guard let (uuid, plist) = rows.first else {
            throw StrataError(.corruptStore, "the Core Data store's Z_METADATA table is empty: the store was never completely created", file: file)
        }
        var values: [String: PropertyListValue] = [:]
        if let plist {
            guard case .dictionary(let dictionary) = try PropertyListValue(binaryPlist: plist, file: "\(file) (Z_METADATA.Z_PLIST)") else {
                throw StrataError(.corruptStore, "the Core Data metadata (Z_METADATA.Z_PLIST) is not a dictionary", file: file)
            }
            values = dictionary
        }
        var hashes: [String: Data] = [:]
        if case .dictionary(let stored)? = values["NSStoreModelVersionHashes"] {
            for (entity, value) in stored {
                if case .data(let hash) = value { hashes[entity] = hash }
            }
        }
        var identifiers: [String] = []
        if case .array(let stored)? = values["NSStoreModelVersionIdentifiers"] {
            identifiers = stored.map(\.text)
        }
        guard let storeUUID = values["NSStoreUUID"]?.text ?? uuid else {
            throw StrataError(.corruptStore, "the Core Data metadata has no store UUID (NSStoreUUID, Z_METADATA.Z_UUID)", file: file)
        }
        let metadata = values.mapValues(\.text)
        let custom = metadata.filter { !$0.key.hasPrefix("NS") && !$0.key.hasPrefix("_NS") }
        let entities = try readEntities(database, tables: tables, counting: counting)
        return CoreDataStoreSummary(
            storeUUID: storeUUID, storeType: metadata["NSStoreType"], entityVersionHashes: hashes,
            modelVersionIdentifiers: identifiers, frameworkVersion: metadata["NSPersistenceFrameworkVersion"],
            metadata: metadata, customMetadata: custom, entities: entities)
    }

    /// `Z_PRIMARYKEY`, each entity with its root's table and, when `counting`, its row count.
    private static func readEntities(_ database: Database, tables: Set<String>, counting: Bool) throws(StrataError) -> [Entity] {
        var entities: [Entity] = []
        do {
            entities = try database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", []) { row in
                Entity(number: row.int64(0), name: row.text(1), superNumber: row.int64(2), maximumPrimaryKey: row.int64(3))
            }
        } catch {
            throw StrataError(.corruptStore, "the Core Data store's Z_PRIMARYKEY table cannot be read: \(error.message)", file: database.path)
        }
        let byNumber = Dictionary(entities.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var counts: [String: [Int64: Int]] = [:]
        for index in entities.indices {
            // The root: up the Z_SUPER chain (bounded, in case of a cycle).
            var root = entities[index]
            for _ in 0..<byNumber.count where root.superNumber != 0 {
                guard let parent = byNumber[root.superNumber] else { break }
                root = parent
            }
            let table = "Z" + root.name.uppercased()
            guard tables.contains(table) else { continue }
            entities[index].table = table
            guard counting else { continue }
            if counts[table] == nil {
                var perEntity: [Int64: Int] = [:]
                try database.each("SELECT Z_ENT, count(*) FROM \(quoted(table)) GROUP BY Z_ENT", []) { row in
                    perEntity[row.int64(0)] = Int(row.int64(1))
                }
                counts[table] = perEntity
            }
            entities[index].objectCount = counts[table]?[entities[index].number] ?? 0
        }
        return entities
    }
}

/// An SQL identifier in double quotes.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
