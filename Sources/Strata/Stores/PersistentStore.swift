public import Foundation

/// A place objects are kept: in memory, in a SQLite database, in an XML or binary file.
///
/// Stores are shared by every context of a coordinator and must be safe to use from any task.
/// A store answers fetches, hands out records, saves changesets all-or-nothing, and allocates
/// primary keys. Two families implement it: atomic stores (``AtomicStore``: every record in
/// memory, the whole file written on save) and incremental stores (SQLite: SQL per request).
public protocol PersistentStore: AnyObject, Sendable {
    var type: StoreType { get }
    /// The file, or nil for a store that lives in memory only.
    var url: URL? { get }
    /// The configuration (subset of the model's entities) this store holds; nil for all.
    var configurationName: String? { get }
    var capabilities: StoreCapabilities { get }
    var metadata: StoreMetadata { get }
    /// The store's UUID (``StoreMetadata/storeIdentifier``), fixed for as long as it is open:
    /// read without copying the metadata, as every object ID of the store carries it.
    var storeIdentifier: String { get }

    /// The records matching the request, in its order and window.
    func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord]
    /// The IDs of the records matching the request, in its order and window (a default
    /// implementation fetches whole records).
    func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID]
    /// The rows of a dictionary fetch: columns, groups and aggregates, in the request's order
    /// and window (a default implementation evaluates them in memory over fetched records).
    func fetchDictionaries(_ request: StoreDictionaryRequest) throws(StrataError) -> [DictionaryRow]
    /// How many records match (limit and offset applied).
    func count(_ request: StoreFetchRequest) throws(StrataError) -> Int
    /// The records of these objects; IDs the store does not hold are left out.
    func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord]
    /// Applies a changeset all-or-nothing: on any error the store is exactly as it was.
    /// Checks versions (unless `overwritesConflicts`) and uniqueness constraints.
    ///
    /// `beforeCommit` runs once every change is written and checked, while the store still
    /// holds its write lock and before any of the changes is durable or visible to readers (the
    /// SQLite store: before `COMMIT`; a file store: after the new file is synced, before it is
    /// renamed over the old one). When it throws, nothing is committed and its error is
    /// rethrown. A coordinator with several stores nests their saves in it, so that one save
    /// commits to every store or to none.
    /// - Returns: the new version of every inserted and updated object, and the inserted objects
    ///   given fresh keys (only those in ``StoreChangeset/reassignableIDs``) because another
    ///   process took theirs.
    func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult
    /// The members of a to-many relationship of a stored object, for records that left it lazy.
    func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID]
    /// The members of a to-many relationship of several stored objects at once, by object
    /// (prefetching; a default implementation asks for each object in turn).
    func relatedObjectIDs(of objectIDs: [ObjectID], relationship: String) throws(StrataError) -> [ObjectID: [ObjectID]]
    /// The uniqueness violations `changes` would cause, without saving anything (a save's
    /// validation reports them with every other problem at once).
    func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure]
    /// Reserves `count` new primary keys for the inheritance hierarchy rooted at `rootEntity`.
    func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64]
    /// Replaces the app's own metadata keys and writes them at once.
    func setCustomMetadata(_ custom: [String: String]) throws(StrataError)
    /// Runs a batch update or delete the store's own way (SQL, one pass over the records),
    /// all-or-nothing; nil when it has none, and the coordinator runs it through ``fetch(_:)``
    /// and ``save(_:beforeCommit:)`` (the default).
    func executeBatch(_ request: StoreBatchRequest) throws(StrataError) -> StoreBatchOutcome?
    /// Inserts new objects of one concrete entity the store's own way, all-or-nothing, with
    /// their keys allocated in the same transaction (``StoreBatchInsert``); nil when it has none,
    /// or when a uniqueness constraint refused the rows (nothing written), and the coordinator
    /// saves them as records (the default).
    func insertBatch(_ batch: StoreBatchInsert) throws(StrataError) -> [Int64]?
    /// Calls `handler` with what other processes (and other store instances on the same file)
    /// save to this store from now on, read from the store's own record of changes; nil when
    /// the store keeps none (the default: an in-memory store has no other process).
    func observeChanges(ofOtherProcesses handler: @escaping @Sendable (StoreRemoteChanges) -> Void) throws(StrataError) -> (any StoreChangeObserver)?
}

/// Opens stores of one type and reads their metadata; a coordinator is given one per type.
public protocol PersistentStoreFactory: Sendable {
    var type: StoreType { get }
    /// File name extensions that select this type (`sqlite`, `xml`, …), lower-case, no dot.
    var fileExtensions: [String] { get }
    /// URL schemes that select this type for a store located by a URL rather than a file
    /// (`postgres`), lower-case. The default is none.
    var urlSchemes: [String] { get }
    /// True when a file's first bytes show it is of this type.
    func recognizes(header: Data) -> Bool
    /// True when the file at `url` is of this type judged by more than its first bytes (the
    /// tables inside a SQLite database, say). A factory that says so is chosen before any that
    /// only recognises the header (``StoreTypeRegistry/type(of:)``). It must never change the
    /// file. The default is false: the header decides.
    func recognizesContent(of url: URL, header: Data) -> Bool
    /// Opens the store at `url`, creating it when missing; a nil `url` is a store in memory.
    func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore
    /// Reads the metadata of an existing store without opening it.
    func metadata(at url: URL) throws(StrataError) -> StoreMetadata
    /// What of `schema` this store type cannot honour, one reason each; empty when it can
    /// store the whole model. The coordinator refuses a store with reasons.
    func unsupportedFeatures(of schema: Schema, configurationName: String?) -> [String]
    /// Replaces the contents of the existing store at `destination` with those of the finished
    /// store at `replacement` (both of this type) in place, as other processes that have the
    /// destination open expect — SQLite's backup API writes through its locks and log — and
    /// returns true; or returns false when this type has no such way, and the caller renames
    /// `replacement` over `destination` instead (the default).
    func replaceStoreContents(at destination: URL, from replacement: URL) throws(StrataError) -> Bool
    /// The files a store of this type keeps beside its own, as suffixes of its path (a SQLite
    /// store's `-wal`, `-shm` and `-journal`). Code outside the store module asks this instead
    /// of spelling them. The default is none. (The `.lock` file that serialises the writers of
    /// a file store is not one: it outlives the store, and removing it while another process
    /// holds it would let two writers in.)
    var companionFileSuffixes: [String] { get }
    /// Removes the store at `url` with its companion files (``companionFileSuffixes``); files
    /// that do not exist are no error. Only for a store no process has open — removing a
    /// SQLite store's `-wal` while a connection uses it loses that connection's commits.
    /// - Throws: `storeIO` naming the file that could not be removed.
    func destroyStore(at url: URL) throws(StrataError)
    /// Migrates the existing store at `url` through every step of `plan`, all-or-nothing: when
    /// a step is refused or fails, or the process dies at any moment, the store is left as it
    /// was, or (once the commit point is passed) fully migrated. Primary keys are kept; the
    /// store's metadata ends with the destination model's schema and hashes, and its store
    /// identifier and custom metadata unchanged.
    ///
    /// The store's model is checked under the store's write lock: a store another process
    /// migrated meanwhile to the plan's destination is left alone (the report says so); one at
    /// neither end of the plan is refused with `incompatibleModel`.
    func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport
}

extension PersistentStore {
    /// Applies a changeset all-or-nothing (``save(_:beforeCommit:)`` with nothing to run
    /// before the commit).
    public func save(_ changes: StoreChangeset) throws(StrataError) -> [ObjectID: Int64] {
        try save(changes, beforeCommit: {}).versions
    }

    /// ``save(_:beforeCommit:)`` with nothing to run before the commit, and its whole result.
    public func saveChanges(_ changes: StoreChangeset) throws(StrataError) -> StoreSaveResult {
        try save(changes, beforeCommit: {})
    }

    /// No record of changes: nil.
    public func observeChanges(ofOtherProcesses handler: @escaping @Sendable (StoreRemoteChanges) -> Void) throws(StrataError) -> (any StoreChangeObserver)? {
        nil
    }

    /// The IDs of the records matching the request, in its order and window. Stores that can
    /// answer without loading whole records (SQLite) override this.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] {
        try fetch(request).map(\.objectID)
    }
}

extension PersistentStoreFactory {
    public func recognizesContent(of url: URL, header: Data) -> Bool { false }
    public func unsupportedFeatures(of schema: Schema, configurationName: String?) -> [String] { [] }
    public func replaceStoreContents(at destination: URL, from replacement: URL) throws(StrataError) -> Bool { false }
    public var companionFileSuffixes: [String] { [] }
    public var urlSchemes: [String] { [] }
    public func destroyStore(at url: URL) throws(StrataError) {
        for path in [url.path] + companionFileSuffixes.map({ url.path + $0 }) where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw StrataError(.storeIO, "cannot remove '\(path)': \(error.localizedDescription)", file: url.path)
            }
        }
    }
    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        throw StrataError(.unsupportedModel, "\(type) stores cannot be migrated", file: url.path)
    }
}

/// The store types a coordinator, container or the CLI knows, and how to tell a file's type.
public struct StoreTypeRegistry: Sendable {
    public private(set) var factories: [any PersistentStoreFactory]

    /// A registry with the in-memory store, plus `factories`.
    public init(_ factories: [any PersistentStoreFactory] = []) {
        self.factories = [InMemoryStoreFactory()]
        for factory in factories { register(factory) }
    }

    /// Adds a factory, replacing one of the same type.
    public mutating func register(_ factory: any PersistentStoreFactory) {
        factories.removeAll { $0.type == factory.type }
        factories.append(factory)
    }

    public func factory(for type: StoreType) throws(StrataError) -> any PersistentStoreFactory {
        guard let factory = factories.first(where: { $0.type == type }) else {
            throw StrataError(.noStore, "unknown store type '\(type)'; known types: \(factories.map(\.type.rawValue).joined(separator: ", "))")
        }
        return factory
    }

    /// The factory of a store located by a URL of another scheme than `file` (``PersistentStoreFactory/urlSchemes``).
    public func factory(forURLScheme url: URL) -> (any PersistentStoreFactory)? {
        guard let scheme = url.scheme?.lowercased(), scheme != "file" else { return nil }
        return factories.first { $0.urlSchemes.contains(scheme) }
    }

    /// The type of an existing file from its content (``PersistentStoreFactory/recognizesContent(of:header:)``),
    /// else its first bytes, else of a path from its extension.
    /// - Throws: `storeIO` for a path that is not a regular file (a FIFO, a directory, a
    ///   device), which is never opened; `noStore` when the type cannot be told.
    public func type(of url: URL) throws(StrataError) -> StoreType {
        if let factory = factory(forURLScheme: url) { return factory.type }
        try FileIdentity.requireRegularFile(url)
        // Read without closing a descriptor of a SQLite file this process may have open. 256
        // bytes reach past an XML declaration to a document type declaration.
        if let header = FileHeader.read(url, count: 256), !header.isEmpty {
            // A file recognised by its content (a Core Data store is also a SQLite file).
            if let factory = factories.first(where: { $0.recognizesContent(of: url, header: header) }) {
                return factory.type
            }
            if let factory = factories.first(where: { $0.recognizes(header: header) }) {
                return factory.type
            }
        }
        let ext = url.pathExtension.lowercased()
        if let factory = factories.first(where: { $0.fileExtensions.contains(ext) }) {
            return factory.type
        }
        let known = factories.flatMap { factory in factory.fileExtensions.map { ".\($0) (\(factory.type))" } }
        throw StrataError(
            .noStore,
            "cannot tell the store type of '\(url.relativePath)'; name it with a known extension (\(known.joined(separator: ", "))) or pass the type explicitly")
    }
}
