public import Foundation
public import Strata

/// Opens ``PostgresStore``s: register it with a coordinator, a container or the CLI to use
/// `postgres://` store locations.
///
/// ```swift
/// let types = StoreTypeRegistry([SQLiteStoreFactory(), PostgresStoreFactory()])
/// ```
public struct PostgresStoreFactory: PersistentStoreFactory {
    public init() {}

    public var type: StoreType { .postgres }
    /// None: a PostgreSQL store is a URL, never a file.
    public var fileExtensions: [String] { [] }
    /// `postgres` and `postgresql`.
    public var urlSchemes: [String] { PostgresLocation.schemes }

    /// False: no file is a PostgreSQL store.
    public func recognizes(header: Data) -> Bool { false }

    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        guard let url else {
            throw StrataError(.invalidConfiguration, "a PostgreSQL store needs a URL like postgres://user@host:5432/database?schema=name")
        }
        return try PostgresStore(location: PostgresLocation(url), schema: schema, configurationName: configurationName)
    }

    /// Reads `strata_metadata` of the store's schema; nothing is written.
    /// - Throws: `storeIO` when there is no store in the schema (or the server cannot be reached).
    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        let location = try PostgresLocation(url)
        let pool = PGConnectionPool(location: location)
        return try pool.read { (connection) throws(StrataError) -> StoreMetadata in
            guard let metadata = try PostgresMetadata.read(connection, location: location) else {
                throw StrataError(.storeIO, "no store at '\(location.description)': the schema '\(location.schema)' has no strata_metadata table", file: location.description)
            }
            return metadata
        }
    }

    public func unsupportedFeatures(of schema: Schema, configurationName: String?) -> [String] {
        PostgresLayout(schema: schema, configurationName: configurationName).problems
    }

    /// Drops the store's schema with every table in it (`DROP SCHEMA … CASCADE`); a schema that
    /// does not exist is no error. Only for a store no process has open.
    public func destroyStore(at url: URL) throws(StrataError) {
        let location = try PostgresLocation(url)
        try PGConnectionPool(location: location).write { (connection) throws(StrataError) in
            _ = try connection.run("DROP SCHEMA IF EXISTS \(quoted(location.schema)) CASCADE")
        }
    }
}
