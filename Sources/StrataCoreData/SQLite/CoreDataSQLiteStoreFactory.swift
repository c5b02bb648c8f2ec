public import Foundation
public import Strata
internal import StrataSQLite

extension StoreType {
    /// A SQLite store written by Core Data (tables `Z<ENTITY>`, `Z_PRIMARYKEY`, `Z_METADATA`),
    /// read in place with the app's model; see ``CoreDataSQLiteStoreFactory``.
    public static let coreDataSQLite: StoreType = "coredata"
}

/// Opens SQLite stores written by Core Data, for reading: register it with a coordinator, a
/// container or a `StoreTypeRegistry` to read an app's store with its model, dump it, query it
/// or convert it into any Strata store.
///
/// ```swift
/// let types = StoreTypeRegistry([CoreDataSQLiteStoreFactory(), SQLiteStoreFactory()])
/// let coordinator = PersistentStoreCoordinator(schema: model, storeTypes: types)
/// try coordinator.addStore(StoreDescription(type: .coreDataSQLite, url: appStore))
/// ```
///
/// A Core Data store is recognised by its content — a SQLite database with `Z_METADATA` and
/// `Z_PRIMARYKEY` tables — whatever its file name, and before Strata's own SQLite type. It has no
/// file extension of its own, so a `.sqlite` path that does not exist yet stays a Strata store.
///
/// Reading never changes the store's files (`CoreDataSQLiteFile`); the store is read-only:
/// see ``CoreDataSQLiteStore``.
public struct CoreDataSQLiteStoreFactory: PersistentStoreFactory {
    public init() {}

    public var type: StoreType { .coreDataSQLite }

    /// None: Core Data stores are told by their content, and Strata never creates one.
    public var fileExtensions: [String] { [] }

    /// False: the first bytes show only a SQLite database (``recognizesContent(of:header:)``
    /// looks inside).
    public func recognizes(header: Data) -> Bool { false }

    /// True for a SQLite database with the tables `Z_METADATA` and `Z_PRIMARYKEY`, read without
    /// changing any of its files.
    public func recognizesContent(of url: URL, header: Data) -> Bool {
        let sqlite = Data("SQLite format 3\0".utf8)
        guard header.count >= sqlite.count, header.prefix(sqlite.count) == sqlite else { return false }
        let tables = try? CoreDataSQLiteFile.read(url) { (database) throws(StrataError) in try database.tableNames() }
        return tables.map { $0.contains("Z_METADATA") && $0.contains("Z_PRIMARYKEY") } ?? false
    }

    /// Opens the existing Core Data store at `url` with `schema`, the model it was written with,
    /// loading every object. A store that does not match the model is refused
    /// (`incompatibleModel`) naming the entity, table or column that differs.
    /// - Throws: `storeIO` for a missing file (Strata never creates a Core Data store),
    ///   `corruptStore` for a file that is not a Core Data store or holds a value the model
    ///   cannot take.
    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        guard let url else {
            throw StrataError(.invalidConfiguration, "a \(type) store needs the path of a Core Data SQLite file")
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no Core Data store at '\(url.relativePath)': Strata reads Core Data stores but never creates one; to make a new store, use the type sqlite, xml or binary", file: url.path)
        }
        if let configurationName {
            throw StrataError(.invalidConfiguration, "a Core Data store is read with the whole model; configuration '\(configurationName)' cannot be given", file: url.path)
        }
        return try CoreDataSQLiteStore(url: url, schema: schema)
    }

    /// The store's metadata with no model: its UUID as the store identifier, Core Data's entity
    /// version hashes (base64), its version identifiers as the model name, its custom keys; no
    /// schema (a Core Data store keeps none Strata can read).
    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        try summary(at: url, countingObjects: false).storeMetadata
    }

    /// What the store says about itself, read without a model: metadata, entities and, when
    /// `countingObjects`, the number of rows of each.
    public func summary(at url: URL, countingObjects: Bool = true) throws(StrataError) -> CoreDataStoreSummary {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no store at '\(url.relativePath)'", file: url.path)
        }
        return try CoreDataSQLiteFile.read(url) { (database) throws(StrataError) in
            try CoreDataStoreSummary.read(database, counting: countingObjects)
        }
    }

    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        throw CoreDataSQLiteStore.readOnlyError(url, doing: "migrated")
    }
}
