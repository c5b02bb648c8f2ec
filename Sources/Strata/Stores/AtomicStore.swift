public import Foundation

/// Everything an atomic store holds: its metadata, every record, and the next primary key of
/// each inheritance hierarchy.
public struct AtomicStoreContents: Sendable {
    public var metadata: StoreMetadata
    /// Records by concrete entity, then by object ID.
    public var records: [String: [ObjectID: StoreRecord]]
    /// The last primary key handed out per root entity.
    public var keySequences: [String: Int64]

    public init(metadata: StoreMetadata, records: [String: [ObjectID: StoreRecord]] = [:], keySequences: [String: Int64] = [:]) {
        self.metadata = metadata
        self.records = records
        self.keySequences = keySequences
    }

    public func record(_ objectID: ObjectID) -> StoreRecord? {
        records[objectID.entityName]?[objectID]
    }

    /// Whether a record of `objectID` is here; unlike ``record(_:)``, copies no record (writers
    /// ask this for every reference they write).
    package func contains(_ objectID: ObjectID) -> Bool {
        records[objectID.entityName]?.index(forKey: objectID) != nil
    }

    /// Every record, ordered by entity name and then primary key (the order files are written in).
    public var orderedRecords: [StoreRecord] {
        records.keys.sorted().flatMap { entity in
            records[entity]!.values.sorted { $0.objectID < $1.objectID }
        }
    }

    public var recordCount: Int { records.values.reduce(0) { $0 + $1.count } }

    /// The records' positions ordered by primary key (moving the records themselves costs).
    /// Keys that fill most of their range are placed by key, others sorted.
    /// - Parameter refusing: the error for a record with a temporary ID, which no file keeps.
    package static func keyOrder(
        _ records: [ObjectID: StoreRecord], refusing temporary: (ObjectID) -> StrataError
    ) throws(StrataError) -> [(key: Int64, index: Dictionary<ObjectID, StoreRecord>.Index)] {
        var order: [(key: Int64, index: Dictionary<ObjectID, StoreRecord>.Index)] = []
        order.reserveCapacity(records.count)
        var lowest = Int64.max
        var highest = Int64.min
        for index in records.indices {
            guard let key = records.keys[index].primaryKey else { throw temporary(records.keys[index]) }
            lowest = min(lowest, key)
            highest = max(highest, key)
            order.append((key, index))
        }
        let (span, overflow) = highest.subtractingReportingOverflow(lowest)
        guard !order.isEmpty, !overflow, span < 2 * Int64(order.count) else {
            order.sort { $0.key < $1.key }
            return order
        }
        // Keys from a store are dense: put each position at its key's offset.
        var slots = [Int32](repeating: -1, count: Int(span) + 1)
        for (position, entry) in order.enumerated() {
            let slot = Int(entry.key &- lowest)
            guard slots[slot] < 0 else {
                // Two IDs with one key (from two stores): sort, as for any other keys.
                order.sort { $0.key < $1.key }
                return order
            }
            slots[slot] = Int32(position)
        }
        var placed = order
        placed.removeAll(keepingCapacity: true)
        for slot in slots where slot >= 0 { placed.append(order[Int(slot)]) }
        return placed
    }
}

/// A file format for ``AtomicStore``: a reader and a writer of whole stores.
public protocol AtomicStoreFormat: Sendable {
    var type: StoreType { get }
    var fileExtensions: [String] { get }
    func recognizes(header: Data) -> Bool
    /// Reads a whole store. Damaged input throws `corruptStore` naming what and where.
    func read(from url: URL) throws(StrataError) -> AtomicStoreContents
    /// Reads only the metadata, as cheaply as the format allows.
    func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata
    /// Writes a whole store into a new file at `url` (a temporary file that ``AtomicStore``
    /// then syncs and renames over the store).
    func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError)
}

/// A store that loads every record at open, answers fetches in memory with the same predicate
/// evaluator contexts use, and saves by writing the whole file atomically: a temporary file in
/// the same directory, fsync, then rename over the old file. A crash leaves the old file or the
/// new one, never a torn one; a failed save leaves the old file and the old records.
///
/// Many processes may use one store file. Fetches answer from the records this store loaded
/// (and its own saves), as Core Data's atomic stores do; another process's saves are seen after
/// this store's next save, or by opening the store again. A save is a read-modify-write under an
/// advisory lock (`FileLock`, on `<file>.lock`): it checks that the file is still the one this
/// store loaded or last wrote (`FileVersion`); if another process replaced it, the save
/// reloads it and rebases its changes onto what is there now — new objects keep their keys, or
/// get fresh ones when their keys were handed out by the store and are taken; changes to
/// objects another process changed or deleted are merge conflicts unless the changeset
/// overwrites conflicts — and from then on this store holds the merged records.
///
/// The file is replaced keeping its owner, group and mode; a symlinked store is written where
/// the link points; a file the user could not write is refused (`FileSync`).
///
/// With no format it is the in-memory store.
public final class AtomicStore: PersistentStore {
    public let type: StoreType
    public let url: URL?
    public let configurationName: String?
    public var capabilities: StoreCapabilities { format == nil ? [] : [.persistent] }

    let format: (any AtomicStoreFormat)?
    let schema: Schema
    /// The file written and read: `url` with symlinks resolved.
    let fileURL: URL?
    /// The current contents. Readers copy the value (copy-on-write) and work outside the lock.
    private let contents: Locked<AtomicStoreContents>
    /// Serialises this store's saves, and holds the version of the file its contents came from.
    let writeLock: Locked<LoadedVersion?>
    /// Other processes' changes a save took in when it rebased onto their file, for the
    /// observer of remote changes to report; nil while nothing observes them.
    let rebasedChanges = Locked<StoreRemoteChanges?>(nil)

    /// The file the contents were read from or last written to, held open (see ``HeldFile``).
    struct LoadedVersion {
        var file: HeldFile
        var identity: FileVersion
    }

    /// Opens (or, when missing, creates) a store.
    public init(
        format: (any AtomicStoreFormat)?, type: StoreType, url: URL?, schema: Schema, configurationName: String?
    ) throws(StrataError) {
        self.format = format
        self.type = type
        self.url = url
        self.schema = schema
        self.configurationName = configurationName
        var initial: AtomicStoreContents
        var loaded: LoadedVersion?
        if let format, let url {
            let fileURL = try FileSync.resolvingSymlinks(url)
            self.fileURL = fileURL
            let created = AtomicStoreContents(
                metadata: StoreMetadata(newStoreOf: type, schema: schema, identifier: UUID().uuidString))
            // A new store is published with link(2), which never replaces a file: when another
            // process created the store first, this one opens theirs.
            if try FileVersion.current(fileURL) == nil, let version = try Self.writeAtomically(created, format: format, to: fileURL, exclusive: true) {
                (initial, loaded) = (created, version)
            } else {
                (initial, loaded) = try Self.load(fileURL, format: format)
            }
            try Self.checkLoaded(&initial, schema: schema, identifier: nil)
        } else {
            fileURL = nil
            initial = AtomicStoreContents(
                metadata: StoreMetadata(newStoreOf: type, schema: schema, identifier: UUID().uuidString))
        }
        storeIdentifier = initial.metadata.storeIdentifier
        contents = Locked(initial)
        writeLock = Locked(loaded)
    }

    /// A store in memory holding `contents` (a migration runs custom stages on one): saves
    /// change only the memory; ``snapshot`` reads the result.
    package init(inMemory contents: AtomicStoreContents, type: StoreType, schema: Schema) {
        format = nil
        self.type = type
        url = nil
        fileURL = nil
        self.schema = schema
        configurationName = nil
        var initial = contents
        for (root, key) in Self.maximumKeys(contents, schema) where key > initial.keySequences[root, default: 0] {
            initial.keySequences[root] = key
        }
        storeIdentifier = contents.metadata.storeIdentifier
        self.contents = Locked(initial)
        writeLock = Locked(nil)
    }

    /// Reads the whole file and notes which file it was: the one opened before reading and
    /// still at the path after (tried again, a few times, when a save of another process renamed
    /// a new file there meanwhile).
    static func load(_ fileURL: URL, format: any AtomicStoreFormat) throws(StrataError) -> (AtomicStoreContents, LoadedVersion) {
        for _ in 0..<5 {
            let file = try HeldFile(opening: fileURL)
            let identity = try file.identity()
            let contents = try format.read(from: fileURL)
            if try FileVersion.current(fileURL) == identity {
                return (contents, LoadedVersion(file: file, identity: identity))
            }
        }
        throw StrataError(.storeIO, "'\(fileURL.path)' kept changing while it was read (other processes saving to it); try again")
    }

    /// Checks that loaded contents belong to this model (and, once open, to this store), and
    /// raises the key sequences to the largest stored keys.
    static func checkLoaded(_ loaded: inout AtomicStoreContents, schema: Schema, identifier: String?) throws(StrataError) {
        if let problem = loaded.metadata.incompatibility(with: schema) { throw problem }
        if let identifier, loaded.metadata.storeIdentifier != identifier {
            throw StrataError(
                .storeIO,
                "the store file was replaced by another store (UUID \(loaded.metadata.storeIdentifier), this one is \(identifier)) since it was opened, by a convert --force or a copy; nothing was saved. Open the store again to work with what it holds now")
        }
        for (root, key) in maximumKeys(loaded, schema) where key > loaded.keySequences[root, default: 0] {
            loaded.keySequences[root] = key
        }
    }

    private static func maximumKeys(_ contents: AtomicStoreContents, _ schema: Schema) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for (entityName, records) in contents.records {
            let root = schema.entity(named: entityName)?.rootName ?? entityName
            for id in records.keys {
                if let key = id.primaryKey, key > result[root, default: 0] { result[root] = key }
            }
        }
        return result
    }

    public var metadata: StoreMetadata { contents.withLock { $0.metadata } }
    public let storeIdentifier: String

    /// A copy of everything the store holds (for converting and exporting).
    public var snapshot: AtomicStoreContents { contents.withLock { $0 } }

    // MARK: - Reading

    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        let current = snapshot
        var matches = try Self.matching(request, in: current, schema: schema)
        if !request.sortDescriptors.isEmpty {
            let evaluator = Self.evaluator(current, schema)
            matches = try RecordSorter.sort(matches, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
        }
        return Array(Self.window(matches, offset: request.fetchOffset, limit: request.fetchLimit))
    }

    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        let total = try Self.matching(request, in: snapshot, schema: schema).count
        return Self.windowRange(count: total, offset: request.fetchOffset, limit: request.fetchLimit).count
    }

    public func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        let current = snapshot
        var result: [ObjectID: StoreRecord] = [:]
        for id in objectIDs {
            if let record = current.record(id) { result[id] = record }
        }
        return result
    }

    public func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        snapshot.record(objectID)?.toMany[relationship] ?? []
    }

    static func window<T>(_ items: [T], offset: Int, limit: Int) -> ArraySlice<T> {
        items[windowRange(count: items.count, offset: offset, limit: limit)]
    }

    /// The positions a fetch's offset and limit (0 for none) keep out of `count` matches; fetches
    /// and counts share it so that a count always equals the length of the same fetch.
    static func windowRange(count: Int, offset: Int, limit: Int) -> Range<Int> {
        let start = min(max(offset, 0), count)
        let end = limit > 0 ? min(start + limit, count) : count
        return start..<end
    }

    /// Matching records in primary-key order.
    static func matching(_ request: StoreFetchRequest, in contents: AtomicStoreContents, schema: Schema) throws(StrataError) -> [StoreRecord] {
        var candidates: [StoreRecord] = []
        for entityName in request.entityNames {
            if let records = contents.records[entityName] { candidates += records.values }
        }
        candidates.sort { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
        guard let predicate = request.predicate else { return candidates }
        return try evaluator(contents, schema).filter(candidates, by: predicate)
    }

    /// The predicate evaluator over this store's records.
    static func evaluator(_ contents: AtomicStoreContents, _ schema: Schema) -> PredicateEvaluator<StoreRecord> {
        evaluator(schema) { contents.record($0) }
    }

    /// The predicate evaluator over records, with related records found by `lookup`; references
    /// it cannot find (dangling ones) read as nil, and an error of `lookup` fails the evaluation.
    static func evaluator(_ schema: Schema, lookup: @escaping (ObjectID) throws(StrataError) -> StoreRecord?) -> PredicateEvaluator<StoreRecord> {
        PredicateEvaluator(GraphAccessor<StoreRecord>(
            entity: { schema.entity(named: $0.objectID.entityName)! },
            objectID: { $0.objectID },
            attribute: { $0.attributes[$1] },
            toOne: { (record, key) throws(StrataError) in try record.toOne[key].flatMap(lookup) },
            toMany: { (record, key) throws(StrataError) in
                var members: [StoreRecord] = []
                for id in record.toMany[key] ?? [] {
                    if let member = try lookup(id) { members.append(member) }
                }
                return members
            }))
    }

    // MARK: - Writing

    public func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        contents.withLock { contents in
            let first = contents.keySequences[rootEntity, default: 0] + 1
            contents.keySequences[rootEntity] = first + Int64(count) - 1
            return Array(first..<(first + Int64(count)))
        }
    }

    public func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] {
        UniquenessChecker.violations(of: changes, in: snapshot, schema: schema)
    }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        try readModifyWrite { base, _ throws(StrataError) in
            var next = base
            next.metadata.custom = custom
            return (next, ())
        }
    }

    /// `beforeCommit` runs once the new file is written and synced, before it is renamed over
    /// the old one (for the in-memory store: before the new contents are published).
    public func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        try readModifyWrite(beforeCommit: beforeCommit) { base, rebasing throws(StrataError) in
            let allocated = contents.withLock { $0.keySequences }
            let applied = try Self.apply(changes, to: base, allocated: allocated, schema: schema, rebasing: rebasing)
            return (applied.contents, applied.result)
        }
    }

    /// A save: under this store's lock and the file's lock, reads what the file holds now (the
    /// loaded contents when the file is still the one this store loaded or wrote; otherwise the
    /// file again, which `modify` is told, to rebase onto), lets `modify` compute the new
    /// contents, writes them (the commit point is the rename in ``writeAtomically(_:format:to:)``,
    /// just after `beforeCommit`) and publishes them.
    ///
    /// When `modify` or the write fails, the file is untouched; contents reloaded from a file
    /// another process wrote are kept even then, so that a retry starts from them.
    func readModifyWrite<Result>(
        beforeCommit: () throws(StrataError) -> Void = {},
        _ modify: (_ base: AtomicStoreContents, _ rebasing: Bool) throws(StrataError) -> (AtomicStoreContents, Result)
    ) throws(StrataError) -> Result {
        try writeLock.withLock { loaded throws(StrataError) in
            guard let format, let fileURL else {
                let (next, result) = try modify(snapshot, false)
                try beforeCommit()
                publish(next)
                return result
            }
            return try FileLock.withLock(of: fileURL) { () throws(StrataError) in
                Self.removeStaleTemporaryFiles(of: fileURL)
                let current = try FileVersion.current(fileURL)
                guard current != nil else {
                    throw StrataError(.storeIO, "the store file '\(fileURL.path)' was removed since it was opened; nothing was saved")
                }
                var base = snapshot
                let rebasing = current != loaded?.identity
                if rebasing {
                    var (reloaded, version) = try Self.load(fileURL, format: format)
                    try Self.checkLoaded(&reloaded, schema: schema, identifier: storeIdentifier)
                    Self.carryingVersions(from: base, into: &reloaded, schema: schema)
                    // Keys handed out here but not saved yet stay reserved.
                    for (root, key) in base.keySequences where key > reloaded.keySequences[root, default: 0] {
                        reloaded.keySequences[root] = key
                    }
                    noteRebase(from: base, to: reloaded)
                    base = reloaded
                    loaded = version
                    publish(reloaded)
                }
                let (next, result) = try modify(base, rebasing)
                loaded = try Self.writeAtomically(next, format: format, to: fileURL, exclusive: false, beforeCommit: beforeCommit)
                publish(next)
                return result
            }
        }
    }

    /// Makes `next` the store's contents, keeping keys handed out meanwhile reserved.
    func publish(_ next: AtomicStoreContents) {
        contents.withLock { current in
            var next = next
            for (root, key) in current.keySequences where key > next.keySequences[root, default: 0] {
                next.keySequences[root] = key
            }
            current = next
        }
    }

    /// Removes what saves killed mid-write left behind (`.<name>.<UUID>.tmp` beside the store);
    /// the store file itself is always whole, so they hold nothing worth keeping.
    static func removeStaleTemporaryFiles(of url: URL) {
        let directory = url.deletingLastPathComponent()
        let prefix = "." + url.lastPathComponent + "."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(4)
            guard UUID(uuidString: String(middle)) != nil else { continue }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Writes `contents` as a new version of `fileURL` (symlinks already resolved): a temporary
    /// file in its directory, created private, given the old file's owner, group and mode,
    /// fsynced, renamed over the store — the commit point — and the directory fsynced.
    /// - Parameter exclusive: create the store only if there is none: the commit is then
    ///   link(2), which fails when the file exists, and nil is returned.
    /// - Returns: the new file, held open for its identity.
    /// - Throws: `storeIO` when the old file may not be replaced (read-only, not the user's to
    ///   write, an owner that cannot be kept) or a step fails; the old file is then untouched.
    /// - Parameter beforeCommit: runs just before the commit point; when it throws, the old
    ///   file stays.
    static func writeAtomically(
        _ contents: AtomicStoreContents, format: any AtomicStoreFormat, to fileURL: URL, exclusive: Bool,
        beforeCommit: () throws(StrataError) -> Void = {}
    ) throws(StrataError) -> LoadedVersion? {
        let existing = exclusive ? nil : try FileSync.replaceableFile(at: fileURL)
        let directory = fileURL.deletingLastPathComponent()
        // A new store's file is made without the lock (there is no store to lock yet), so it is
        // named apart from a save's `.tmp`, which saves of other processes remove as stale.
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).\(exclusive ? "new" : "tmp")")
        let descriptor = try FileSync.createTemporaryFile(temporary, replacing: existing)
        let file = HeldFile(descriptor: descriptor, path: fileURL.path)
        do {
            try format.write(contents, to: temporary)
            if let existing { try FileSync.copyAttributes(existing, to: descriptor, replacing: fileURL) }
            try FileSync.sync(descriptor: descriptor, path: temporary.path)
            try beforeCommit()
            // The commit point: before it the old file is whole and untouched, after it the new one is the store.
            if exclusive {
                let linked = try FileSync.link(temporary, asNew: fileURL)
                try? FileManager.default.removeItem(at: temporary)
                guard linked else { return nil }
            } else {
                try FileSync.rename(temporary, over: fileURL)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        // Durability of the rename; the save is already visible, so a failure here is not one.
        try? FileSync.sync(directory)
        return LoadedVersion(file: file, identity: try file.identity())
    }
}

/// The in-memory store: an ``AtomicStore`` with no file.
public struct InMemoryStoreFactory: PersistentStoreFactory {
    public init() {}
    public var type: StoreType { .inMemory }
    public var fileExtensions: [String] { [] }
    public func recognizes(header: Data) -> Bool { false }

    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        try AtomicStore(format: nil, type: .inMemory, url: nil, schema: schema, configurationName: configurationName)
    }

    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        throw StrataError(.noStore, "an in-memory store has no file to read metadata from")
    }
}

/// Opens atomic stores of one file format.
public struct AtomicStoreFactory: PersistentStoreFactory {
    public let format: any AtomicStoreFormat

    public init(format: any AtomicStoreFormat) {
        self.format = format
    }

    public var type: StoreType { format.type }
    public var fileExtensions: [String] { format.fileExtensions }
    public func recognizes(header: Data) -> Bool { format.recognizes(header: header) }

    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        guard let url else {
            throw StrataError(.invalidConfiguration, "a \(format.type) store needs a file path")
        }
        return try AtomicStore(format: format, type: format.type, url: url, schema: schema, configurationName: configurationName)
    }

    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        try format.readMetadata(from: url)
    }
}
