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

    /// Every record, ordered by entity name and then primary key (the order files are written in).
    public var orderedRecords: [StoreRecord] {
        records.keys.sorted().flatMap { entity in
            records[entity]!.values.sorted { $0.objectID < $1.objectID }
        }
    }

    public var recordCount: Int { records.values.reduce(0) { $0 + $1.count } }
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
/// With no format it is the in-memory store.
public final class AtomicStore: PersistentStore {
    public let type: StoreType
    public let url: URL?
    public let configurationName: String?
    public var capabilities: StoreCapabilities { format == nil ? [] : [.persistent] }

    private let format: (any AtomicStoreFormat)?
    private let schema: Schema
    /// The current contents. Readers copy the value (copy-on-write) and work outside the lock.
    private let contents: Locked<AtomicStoreContents>
    /// Serialises saves, which include this store's own file I/O.
    private let writeLock = Locked(())

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
        if let url { Self.removeStaleTemporaryFiles(of: url) }
        if let format, let url, FileManager.default.fileExists(atPath: url.path) {
            initial = try format.read(from: url)
            if let problem = initial.metadata.incompatibility(with: schema) { throw problem }
            for (root, key) in Self.maximumKeys(initial, schema) where key > initial.keySequences[root, default: 0] {
                initial.keySequences[root] = key
            }
        } else {
            initial = AtomicStoreContents(
                metadata: StoreMetadata(newStoreOf: type, schema: schema, identifier: UUID().uuidString))
            if let format, let url {
                try Self.writeAtomically(initial, format: format, to: url)
            }
        }
        storeIdentifier = initial.metadata.storeIdentifier
        contents = Locked(initial)
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
            matches = RecordSorter.sort(matches, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
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
    private static func matching(_ request: StoreFetchRequest, in contents: AtomicStoreContents, schema: Schema) throws(StrataError) -> [StoreRecord] {
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
    /// it cannot find (dangling ones) read as nil.
    static func evaluator(_ schema: Schema, lookup: @escaping (ObjectID) -> StoreRecord?) -> PredicateEvaluator<StoreRecord> {
        PredicateEvaluator(GraphAccessor<StoreRecord>(
            entity: { schema.entity(named: $0.objectID.entityName)! },
            objectID: { $0.objectID },
            attribute: { $0.attributes[$1] },
            toOne: { record, key in record.toOne[key].flatMap(lookup) },
            toMany: { record, key in (record.toMany[key] ?? []).compactMap(lookup) }))
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
        var next = snapshot
        for (id, _) in changes.deleted { next.records[id.entityName]?[id] = nil }
        for record in changes.updated + changes.inserted {
            next.records[record.objectID.entityName, default: [:]][record.objectID] = record
        }
        return UniquenessChecker.violations(
            in: next, schema: schema, checking: changes.inserted.map(\.objectID) + changes.updated.map(\.objectID))
    }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        try writeLock.withLock { _ throws(StrataError) in
            var next = snapshot
            next.metadata.custom = custom
            try persist(next)
        }
    }

    public func save(_ changes: StoreChangeset) throws(StrataError) -> [ObjectID: Int64] {
        try writeLock.withLock { _ throws(StrataError) in
            var next = snapshot
            var conflicts: [ValidationFailure] = []
            var versions: [ObjectID: Int64] = [:]
            for (id, version) in changes.deleted {
                guard let existing = next.record(id) else { continue }
                if !changes.overwritesConflicts && existing.version != version {
                    conflicts.append(Self.conflict(id, existing.version, version))
                }
                next.records[id.entityName]?[id] = nil
            }
            for var record in changes.updated {
                let id = record.objectID
                guard let existing = next.record(id) else {
                    conflicts.append(ValidationFailure(
                        code: .conflict, objectID: id, key: nil,
                        message: "the object was deleted from the store since it was read"))
                    continue
                }
                if !changes.overwritesConflicts && existing.version != record.version {
                    conflicts.append(Self.conflict(id, existing.version, record.version))
                }
                record.version = existing.version + 1
                versions[id] = record.version
                next.records[id.entityName, default: [:]][id] = record
            }
            if !conflicts.isEmpty {
                throw StrataError(.mergeConflict, "the save would overwrite changes another context saved since these objects were read", failures: conflicts)
            }
            for var record in changes.inserted {
                let id = record.objectID
                if next.record(id) != nil {
                    throw StrataError(.validationFailed, "an object with primary key \(id.primaryKey ?? 0) already exists in the '\(schema.entity(named: id.entityName)?.rootName ?? id.entityName)' hierarchy")
                }
                record.version = 1
                versions[id] = 1
                next.records[id.entityName, default: [:]][id] = record
                if let key = id.primaryKey, let root = schema.entity(named: id.entityName)?.rootName,
                   key > next.keySequences[root, default: 0] {
                    next.keySequences[root] = key
                }
            }
            let violations = UniquenessChecker.violations(
                in: next, schema: schema, checking: changes.inserted.map(\.objectID) + changes.updated.map(\.objectID))
            if !violations.isEmpty {
                throw StrataError(.validationFailed, "the save would break a uniqueness constraint", failures: violations)
            }
            // Keys handed out since the snapshot was taken are kept.
            let sequences = contents.withLock { $0.keySequences }
            for (root, key) in sequences where key > next.keySequences[root, default: 0] {
                next.keySequences[root] = key
            }
            try persist(next)
            return versions
        }
    }

    private static func conflict(_ id: ObjectID, _ stored: Int64, _ read: Int64) -> ValidationFailure {
        ValidationFailure(
            code: .conflict, objectID: id, key: nil,
            message: "changed by another save since it was read (version \(read) read, \(stored) stored)")
    }

    /// Writes the file (when there is one), then publishes the new contents.
    private func persist(_ next: AtomicStoreContents) throws(StrataError) {
        if let format, let url {
            try Self.writeAtomically(next, format: format, to: url)
        }
        contents.withLock { $0 = next }
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

    /// Temporary file in the same directory, fsync, rename over the store, fsync the directory.
    static func writeAtomically(_ contents: AtomicStoreContents, format: any AtomicStoreFormat, to url: URL) throws(StrataError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try format.write(contents, to: temporary)
            try FileSync.sync(temporary)
            try FileSync.rename(temporary, over: url)
            try? FileSync.sync(directory)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
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
