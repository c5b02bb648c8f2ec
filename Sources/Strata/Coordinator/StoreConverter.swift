public import Foundation

/// Copies a store into a store of any other type, keeping primary keys, so that `strata dump`
/// of the source and of the copy are byte-identical (the role of Core Data's
/// `migratePersistentStore`).
///
/// The copy is written to a temporary file beside the destination and renamed over it only when
/// complete: an existing destination (replaced only with `overwrite`) is never left half-written.
public enum StoreConverter {
    /// What a conversion copied.
    public struct Summary: Sendable, Hashable {
        /// Objects copied, by entity.
        public var objectCounts: [String: Int]
        public var sourceType: StoreType
        public var destinationType: StoreType
    }

    /// Progress, called with the number of objects read so far and the total.
    public typealias Progress = (_ done: Int, _ total: Int) -> Void

    /// Converts the store at `source` into a new store at `destination`.
    /// - Parameters:
    ///   - sourceType: the source's type; found from the file when nil.
    ///   - schema: the model to open the source with; the model stored in the source when nil.
    ///   - overwrite: replace an existing destination (atomically) instead of refusing.
    /// - Throws: `storeIO` when the destination exists and `overwrite` is false, or any error of
    ///   opening, reading or writing the stores. On error the destination is untouched.
    @discardableResult
    public static func convert(
        from source: URL, type sourceType: StoreType? = nil, schema: Schema? = nil,
        to destination: URL, type destinationType: StoreType,
        storeTypes: StoreTypeRegistry = StoreTypeRegistry(), overwrite: Bool = false,
        progress: Progress? = nil
    ) throws(StrataError) -> Summary {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: source.path) else {
            throw StrataError(.storeIO, "no store at '\(source.relativePath)'")
        }
        try FileIdentity.requireRegularFile(source)
        try FileIdentity.requireRegularFile(destination, role: "destination store")
        // Compared as files (device and inode), so that a symlink, a hard link or another
        // spelling of the path counts, and SQLite's -wal/-shm/-journal files with it.
        if source.standardizedFileURL.path == destination.standardizedFileURL.path
            || !FileIdentity.storeFiles(at: source.path).isDisjoint(with: FileIdentity.storeFiles(at: destination.path)) {
            throw StrataError(.storeIO, "the source '\(source.relativePath)' and the destination '\(destination.relativePath)' are the same file; convert into another file")
        }
        if fileManager.fileExists(atPath: destination.path) && !overwrite {
            throw StrataError(.storeIO, "'\(destination.relativePath)' exists; pass --force (overwrite: true) to replace it")
        }
        let sourceKind: StoreType
        if let sourceType { sourceKind = sourceType } else { sourceKind = try storeTypes.type(of: source) }
        let metadata = try PersistentStoreCoordinator.metadataForStore(at: source, type: sourceKind, storeTypes: storeTypes)
        let model: Schema
        if let schema { model = schema } else { model = try metadata.schema() }

        let reader = PersistentStoreCoordinator(schema: model, storeTypes: storeTypes)
        try reader.addStore(StoreDescription(type: sourceKind, url: source))

        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).converting")
        do {
            let counts = try copy(from: reader, metadata: metadata, into: temporary, type: destinationType, storeTypes: storeTypes, progress: progress)
            for suffix in ["-wal", "-shm", "-journal"] {
                try? fileManager.removeItem(atPath: destination.path + suffix)
            }
            try FileSync.rename(temporary, over: destination)
            try? FileSync.sync(destination.deletingLastPathComponent())
            return Summary(objectCounts: counts, sourceType: sourceKind, destinationType: destinationType)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? fileManager.removeItem(atPath: temporary.path + suffix)
            }
            throw error
        }
    }

    /// Reads every object of the reader's store and saves them into a new store in one save.
    private static func copy(
        from reader: PersistentStoreCoordinator, metadata: StoreMetadata, into url: URL, type: StoreType,
        storeTypes: StoreTypeRegistry, progress: Progress?
    ) throws(StrataError) -> [String: Int] {
        let schema = reader.schema
        let writer = PersistentStoreCoordinator(schema: schema, storeTypes: storeTypes)
        let destination = try writer.addStore(StoreDescription(type: type, url: url))
        let identifier = destination.storeIdentifier
        func rekey(_ id: ObjectID) -> ObjectID {
            ObjectID(entityName: id.entityName, storeIdentifier: identifier, primaryKey: id.primaryKey ?? 0)
        }
        let entities = schema.entities.filter { !$0.isAbstract }
        var total = 0
        for entity in entities { total += try reader.countRecords(StoreFetchRequest(entityNames: [entity.name])) }
        var changes = StoreChangeset()
        var counts: [String: Int] = [:]
        var done = 0
        for entity in entities {
            let records = try reader.fetchRecords(StoreFetchRequest(entityNames: [entity.name]))
            for source in records {
                var record = StoreRecord(objectID: rekey(source.objectID), attributes: source.attributes, version: 0)
                record.toOne = source.toOne.mapValues(rekey)
                for relationship in entity.relationships where relationship.isToMany {
                    let members = source.lazyToMany.contains(relationship.name)
                        ? try reader.relatedObjectIDs(of: source.objectID, relationship: relationship.name)
                        : source.toMany[relationship.name] ?? []
                    if !members.isEmpty { record.toMany[relationship.name] = members.map(rekey) }
                }
                changes.inserted.append(record)
                done += 1
                if done % 10_000 == 0 { progress?(done, total) }
            }
            counts[entity.name] = records.count
        }
        progress?(done, total)
        _ = try destination.save(changes)
        if !metadata.custom.isEmpty { try destination.setCustomMetadata(metadata.custom) }
        writer.removeStore(destination)
        return counts
    }
}
