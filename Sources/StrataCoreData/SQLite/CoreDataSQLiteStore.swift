public import Foundation
public import Strata

/// A SQLite store written by Core Data, read with the app's model: every object is loaded when
/// the store opens, and fetches, counts and relationship lookups are answered in memory with the
/// predicate evaluator contexts use (as Strata's atomic stores do).
///
/// Why load everything rather than translate fetches into SQL as `SQLiteStore` does: Core
/// Data's layout (`Z`-prefixed tables and columns, `Z_ENT` numbers, join tables named after entity
/// numbers, `Z_FOK_` ordering columns) would need a second SQL compiler beside Strata's own, for a
/// store that is only read; an app's store fits in memory; and one read transaction gives one
/// consistent snapshot even while the app keeps writing.
///
/// Objects keep their primary keys: an object's `@id` is its `Z_PK`, and its version is its
/// `Z_OPT`. The store's identifier is the store's `NSStoreUUID`.
///
/// The store is read-only: saves, new keys and metadata changes are refused with `storeIO`
/// before anything is touched. Core Data's file layout is private to it (history tracking
/// tables and triggers, CloudKit mirroring, `Z_MAX` and `Z_OPT` bookkeeping, external binary
/// files, its model cache): a write that got any of it wrong would damage the app's data the next
/// time the app opened the store. Convert the store into a Strata store to change its data.
public final class CoreDataSQLiteStore: PersistentStore {
    public var type: StoreType { .coreDataSQLite }
    public let url: URL?
    public var configurationName: String? { nil }
    public var capabilities: StoreCapabilities { [.persistent] }
    public let metadata: StoreMetadata
    public let storeIdentifier: String
    /// What Core Data's metadata and `Z_PRIMARYKEY` say, as read at open.
    public let summary: CoreDataStoreSummary

    /// The loaded objects, answered from memory.
    private let loaded: AtomicStore

    /// Opens the Core Data store at `url` with the model it was written with.
    /// - Throws: `incompatibleModel` naming what differs when the store does not match `schema`;
    ///   `corruptStore` for a file that is not a Core Data store or a value the model cannot
    ///   take; `storeIO` when the file cannot be read.
    public init(url: URL, schema: Schema) throws(StrataError) {
        self.url = url
        let (summary, contents) = try CoreDataSQLiteFile.read(url) { (database) throws(StrataError) in
            let summary = try CoreDataStoreSummary.read(database, counting: false)
            let layout = try CoreDataSQLiteLayout(schema: schema, summary: summary, database: database)
            let contents = try CoreDataSQLiteReader(layout: layout, database: database, storeIdentifier: summary.storeUUID, url: url).read()
            return (summary, contents)
        }
        var metadata = summary.storeMetadata
        metadata.modelName = schema.name
        metadata.modelVersionHash = schema.versionHash
        metadata.schemaJSON = schema.jsonString
        var initial = AtomicStoreContents(metadata: metadata, records: contents)
        for entity in summary.entities where entity.superNumber == 0 {
            if let root = schema.entities.first(where: { $0.parentName == nil && ($0.name == entity.name || $0.renamingIdentifier == entity.name) }) {
                initial.keySequences[root.name] = entity.maximumPrimaryKey
            }
        }
        self.summary = summary
        self.metadata = metadata
        storeIdentifier = summary.storeUUID
        self.loaded = AtomicStore(inMemory: initial, type: .coreDataSQLite, schema: schema)
    }

    // MARK: - Reading

    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        try loaded.fetch(request)
    }

    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        try loaded.count(request)
    }

    public func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        try loaded.records(for: objectIDs)
    }

    public func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        try loaded.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    public func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] {
        loaded.uniquenessViolations(changes)
    }

    // MARK: - Writing (refused)

    public func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        throw Self.readOnlyError(url, doing: "saved to")
    }

    public func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        throw Self.readOnlyError(url, doing: "given new objects")
    }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        throw Self.readOnlyError(url, doing: "given new metadata")
    }

    /// The error for any write: Strata reads Core Data stores but does not write them.
    static func readOnlyError(_ url: URL?, doing what: String) -> StrataError {
        StrataError(
            .storeIO,
            "a Core Data store is read-only in Strata and cannot be \(what); nothing was written. Convert it into a Strata store (strata convert --type coredata --schema <model> <store> copy.sqlite) and change the copy",
            file: url?.path)
    }
}
