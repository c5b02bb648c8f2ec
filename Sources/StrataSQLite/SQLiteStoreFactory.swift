public import Foundation
public import Logging
public import Strata

/// Opens ``SQLiteStore``s: register it with a coordinator or container to use `.sqlite` stores.
///
/// ```swift
/// let types = StoreTypeRegistry([SQLiteStoreFactory()])
/// ```
public struct SQLiteStoreFactory: PersistentStoreFactory {
    /// Where the stores it opens report requests they answer in memory (``SQLiteStore/logger``).
    public let logger: Logger

    public init(logger: Logger = Logger(label: "strata.sqlite")) {
        self.logger = logger
    }

    public var type: StoreType { .sqlite }
    /// The write-ahead log, its shared-memory index and the rollback journal.
    public var companionFileSuffixes: [String] { ["-wal", "-shm", "-journal"] }

    public var fileExtensions: [String] { ["sqlite", "sqlite3", "db"] }

    /// True for files that start with the SQLite 3 header, `"SQLite format 3\0"`.
    public func recognizes(header: Data) -> Bool {
        header.count >= StoreFile.header.count && header.prefix(StoreFile.header.count) == StoreFile.header
    }

    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        try SQLiteStore(url: url, schema: schema, configurationName: configurationName, options: options, logger: logger)
    }

    /// Reads `strata_metadata` from a read-only connection; the file is not changed.
    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no store at '\(url.relativePath)'", file: url.path)
        }
        return try StoreFile.readMetadata(url)
    }

    public func unsupportedFeatures(of schema: Schema, configurationName: String?) -> [String] {
        StoreLayout(schema: schema, configurationName: configurationName).problems
    }
}
