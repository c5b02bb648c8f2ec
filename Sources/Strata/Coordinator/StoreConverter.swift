public import Foundation

/// Copies a store into a store of any other type, keeping primary keys, so that `strata dump`
/// of the source and of the copy are byte-identical (the role of Core Data's
/// `migratePersistentStore`).
///
/// The copy is written to a temporary file beside the destination and renamed over it only when
/// complete: an existing destination (replaced only with `overwrite`) is never left half-written.
///
/// Replacing a destination is a whole-store replacement, with the rules of every save: a
/// symlinked destination is written where the link points; the new file keeps the old one's
/// owner, group and mode; a destination the user could not write is refused. An XML or binary
/// destination is replaced holding its lock (`FileLock`), so the replacement falls between two
/// saves of other processes, never inside one; a process that has the old store open then
/// finds, at its next save, another store (another UUID) in its place and fails without writing.
/// A SQLite store converted onto a SQLite destination is written into the existing file with
/// SQLite's backup API, through the engine's locks and log, so that connections other processes
/// have open see the new contents; any other replacement of a SQLite destination is refused while
/// a `-wal`, `-shm` or `-journal` file lies beside it: another connection may have it open, and
/// its log would be orphaned (or hold committed transactions not yet in the main file).
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
    ///   - source: the store to copy; it is only read.
    ///   - sourceType: the source's type; found from the file when nil.
    ///   - schema: the model to open the source with; the model stored in the source when nil.
    ///   - destination: where the new store is written.
    ///   - destinationType: the type of the new store.
    ///   - storeTypes: the store types that may be opened and written.
    ///   - progress: called with the number of objects copied so far and the total.
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
        guard !source.isFileURL || fileManager.fileExists(atPath: source.path) else {
            throw StrataError(.storeIO, "no store at '\(source.relativePath)'")
        }
        if !destination.isFileURL {
            return try convert(from: source, type: sourceType, schema: schema, toServer: destination, type: destinationType, storeTypes: storeTypes, overwrite: overwrite, progress: progress)
        }
        try FileIdentity.requireRegularFile(source)
        try FileIdentity.requireRegularFile(destination, role: "destination store")
        // Compared as files (device and inode), so that a symlink, a hard link or another
        // spelling of the path counts, and SQLite's -wal/-shm/-journal files with it.
        let target = try FileSync.resolvingSymlinks(destination)
        let resolvedSource = source.isFileURL ? try FileSync.resolvingSymlinks(source) : source
        if source.isFileURL && resolvedSource.path == target.path
            || FileIdentity.isPartOfStore(destination.path, store: source.path)
            || !FileIdentity.storeFiles(at: source.path).isDisjoint(with: FileIdentity.storeFiles(at: destination.path)) {
            throw StrataError(.storeIO, "the source '\(source.relativePath)' and the destination '\(destination.relativePath)' are the same file (or the destination is one of the source store's files); convert into another file")
        }
        if fileManager.fileExists(atPath: target.path) && !overwrite {
            throw StrataError(.storeIO, "'\(destination.relativePath)' exists; pass --force (overwrite: true) to replace it")
        }
        // Refused before any work when the destination may not be replaced.
        _ = try FileSync.replaceableFile(at: target)
        let (reader, metadata, sourceKind) = try openSource(source, type: sourceType, schema: schema, storeTypes: storeTypes)

        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).converting")
        defer {
            // The copy's own files: a SQLite copy's logs, an atomic copy's lock (no other
            // process knows its name). The copy itself is gone once renamed.
            try? storeTypes.factory(for: destinationType).destroyStore(at: temporary)
            try? fileManager.removeItem(at: FileLock.lockFile(of: temporary))
        }
        let counts = try copy(from: reader, metadata: metadata, into: temporary, type: destinationType, storeTypes: storeTypes, progress: progress)
        if fileManager.fileExists(atPath: target.path), (try? storeTypes.type(of: target)) == destinationType,
           try storeTypes.factory(for: destinationType).replaceStoreContents(at: target, from: temporary) {
            return Summary(objectCounts: counts, sourceType: sourceKind, destinationType: destinationType)
        }
        try replace(target, with: temporary, overwrite: overwrite, storeTypes: storeTypes)
        return Summary(objectCounts: counts, sourceType: sourceKind, destinationType: destinationType)
    }

    /// A coordinator on the source store, its metadata and type.
    private static func openSource(
        _ source: URL, type sourceType: StoreType?, schema: Schema?, storeTypes: StoreTypeRegistry
    ) throws(StrataError) -> (PersistentStoreCoordinator, StoreMetadata, StoreType) {
        let sourceKind: StoreType
        if let sourceType { sourceKind = sourceType } else { sourceKind = try storeTypes.type(of: source) }
        // With a model given, the metadata is the opened store's: a store whose model is not
        // stored in it (a Core Data store's) is never asked for one.
        let model: Schema
        if let schema { model = schema } else {
            model = try PersistentStoreCoordinator.metadataForStore(at: source, type: sourceKind, storeTypes: storeTypes).schema()
        }
        let reader = PersistentStoreCoordinator(schema: model, storeTypes: storeTypes)
        let metadata = try reader.addStore(StoreDescription(type: sourceKind, url: source)).metadata
        return (reader, metadata, sourceKind)
    }

    /// Converts into a store on a server (a `postgres://` URL): an existing one is dropped first
    /// with `overwrite` (``PersistentStoreFactory/destroyStore(at:)``), so that no other process
    /// may have it open; the copy is one save, and a copy that fails is dropped again.
    private static func convert(
        from source: URL, type sourceType: StoreType?, schema: Schema?, toServer destination: URL, type destinationType: StoreType,
        storeTypes: StoreTypeRegistry, overwrite: Bool, progress: Progress?
    ) throws(StrataError) -> Summary {
        let (reader, metadata, sourceKind) = try openSource(source, type: sourceType, schema: schema, storeTypes: storeTypes)
        let factory = try storeTypes.factory(for: destinationType)
        if (try? factory.metadata(at: destination)) != nil {
            guard overwrite else { throw StrataError(.storeIO, "a store exists at '\(destination.absoluteString)'; pass --force (overwrite: true) to replace it") }
            try factory.destroyStore(at: destination)
        }
        do {
            let counts = try copy(from: reader, metadata: metadata, into: destination, type: destinationType, storeTypes: storeTypes, progress: progress)
            return Summary(objectCounts: counts, sourceType: sourceKind, destinationType: destinationType)
        } catch {
            try? factory.destroyStore(at: destination)
            throw error
        }
    }

    /// Moves the finished copy to `target`: over the old store under its lock (an atomic
    /// store), or as a new file that must not exist yet (link(2), so that a store another
    /// process created meanwhile is never clobbered without `overwrite`).
    private static func replace(_ target: URL, with temporary: URL, overwrite: Bool, storeTypes: StoreTypeRegistry) throws(StrataError) {
        let directory = target.deletingLastPathComponent()
        try FileSync.sync(temporary)
        guard FileManager.default.fileExists(atPath: target.path) else {
            guard try FileSync.link(temporary, asNew: target) else {
                throw StrataError(.storeIO, "'\(target.path)' was created by another process during the conversion; nothing was replaced. Pass --force (overwrite: true) to replace it")
            }
            return
        }
        func rename() throws(StrataError) {
            guard let existing = try FileSync.replaceableFile(at: target) else {
                throw StrataError(.storeIO, "'\(target.path)' was removed during the conversion; the copy was not kept")
            }
            let companions = (try? storeTypes.type(of: target)).flatMap { try? storeTypes.factory(for: $0).companionFileSuffixes } ?? []
            for suffix in companions where FileManager.default.fileExists(atPath: target.path + suffix) {
                throw StrataError(
                    .storeIO,
                    "'\(target.path)' has a '\(suffix)' file beside it: another process may have the SQLite store open, or it was not closed cleanly (its log may hold saved data). Nothing was replaced; close the other process, or open the store once with strata to fold its log in, then try again")
            }
            try FileSync.copyAttributes(existing, toFileAt: temporary, replacing: target)
            try FileSync.sync(temporary)
            // The commit point.
            try FileSync.rename(temporary, over: target)
            try? FileSync.sync(directory)
        }
        let existingType = try? storeTypes.type(of: target)
        if existingType == .xml || existingType == .binaryPlist {
            // Between two saves of processes that have the store open, never inside one.
            try FileLock.withLock(of: target) { () throws(StrataError) in try rename() }
        } else {
            try rename()
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
        // Every object is inserted: a reference to one outside the copy is the source's own
        // (written before saves checked references, or by hand), not another save's deletion.
        let dangling = changes.writtenReferences(storeIdentifier: identifier)
        guard dangling.isEmpty else {
            throw StrataError(
                .corruptStore, "the source store refers to objects it does not hold (strata check lists every problem); nothing was written",
                failures: dangling.map { ValidationFailure(code: .conflict, objectID: $0.source, key: $0.key, message: "refers to \($0.target), which the source store does not hold", relatedObjectID: $0.target) })
        }
        _ = try destination.save(changes)
        if !metadata.custom.isEmpty { try destination.setCustomMetadata(metadata.custom) }
        writer.removeStore(destination)
        return counts
    }
}
