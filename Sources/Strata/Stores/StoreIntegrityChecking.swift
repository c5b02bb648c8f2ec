public import Foundation

/// What ``StoreChecker`` checks: the records a store file holds as its reader read them, the
/// key counters as stored, and the problems the reader or the file format found on the way.
public struct StoreCheckInput: Sendable {
    /// Records by concrete entity, then by object ID, to-many relationships filled in.
    public var records: [String: [ObjectID: StoreRecord]]
    /// The last primary key handed out per root entity, as the file stores it; nil when the
    /// store type keeps none that could be checked.
    public var keyCounters: [String: Int64]?
    /// Problems already found: what the reader refused, what only the format can see.
    public var problems: [StoreProblem]
    /// Objects the store holds but could not read (each with its problem): references to them
    /// are not dangling, and their relationships are not known.
    public var unreadableObjects: Set<ObjectID> = []

    public init(records: [String: [ObjectID: StoreRecord]], keyCounters: [String: Int64]?, problems: [StoreProblem] = []) {
        self.records = records
        self.keyCounters = keyCounters
        self.problems = problems
    }

    /// Reads every object of `store` through its reading API, entity by entity, with every
    /// to-many relationship loaded. A read that fails becomes an `unreadableContents` problem
    /// of its entity (or object), and the other entities are still read.
    public static func reading(_ store: any PersistentStore, schema: Schema, keyCounters: [String: Int64]? = nil) -> StoreCheckInput {
        var input = StoreCheckInput(records: [:], keyCounters: keyCounters)
        for entity in schema.entities where !entity.isAbstract {
            let request = StoreFetchRequest(entityNames: [entity.name])
            var records: [StoreRecord]
            do {
                records = try store.fetch(request)
            } catch {
                // One bad value fails the whole fetch: read the objects one by one, so that only
                // those that cannot be read are named.
                let ids: [ObjectID]
                do {
                    ids = try store.fetchObjectIDs(request)
                } catch {
                    input.problems.append(StoreProblem(.unreadableContents, entity: entity.name, message: "cannot be read: \(error.message)"))
                    continue
                }
                records = []
                for id in ids {
                    do {
                        if let record = try store.records(for: [id])[id] { records.append(record) }
                    } catch {
                        input.unreadableObjects.insert(id)
                        input.problems.append(StoreProblem(
                            .unreadableContents, entity: entity.name, primaryKey: id.primaryKey, message: "cannot be read: \(error.message)"))
                    }
                }
            }
            var byID: [ObjectID: StoreRecord] = [:]
            for var record in records {
                var unread: Set<String> = []
                for name in record.lazyToMany.sorted() {
                    do {
                        record.toMany[name] = try store.relatedObjectIDs(of: record.objectID, relationship: name)
                    } catch {
                        unread.insert(name)
                        input.problems.append(StoreProblem(
                            .unreadableContents, entity: entity.name, primaryKey: record.objectID.primaryKey, property: name,
                            message: "cannot be read: \(error.message)"))
                    }
                }
                // Relationships left lazy are the ones that could not be read.
                record.lazyToMany = unread
                byID[record.objectID] = record
            }
            if !byID.isEmpty { input.records[entity.name] = byID }
        }
        return input
    }

    /// The input for a reader that refused the whole file: one `unreadableContents` problem
    /// with the reader's message and the place it names.
    public static func unreadable(_ error: StrataError) -> StoreCheckInput {
        let place = error.location.map { "line \($0.line), column \($0.column): " } ?? ""
        return StoreCheckInput(records: [:], keyCounters: nil, problems: [
            StoreProblem(.unreadableContents, message: "the store's reader refused the contents: \(place)\(error.message)"),
        ])
    }
}

/// A store type that reads a store file for ``StoreChecker`` its own way: with the key counters
/// as the file stores them, and the checks only its format can make (SQLite's
/// `PRAGMA integrity_check`, join rows without objects, rows naming unknown entities).
///
/// Store types that do not adopt it are checked through their reading API (``StoreCheckInput/reading(_:schema:keyCounters:)``).
public protocol StoreIntegrityChecking: PersistentStoreFactory {
    /// Everything the existing store at `url`, written with `schema`, holds, without changing it.
    /// - Throws: only when the file cannot be read at all (missing, not of this type); a reader
    ///   that refuses the contents is reported as problems in the input.
    func checkInput(at url: URL, schema: Schema) throws(StrataError) -> StoreCheckInput
}

extension AtomicStoreFactory: StoreIntegrityChecking {
    /// The whole file as the format reads it, key counters as written (the store raises them
    /// when it opens, which would hide a counter below a stored key).
    public func checkInput(at url: URL, schema: Schema) throws(StrataError) -> StoreCheckInput {
        let contents: AtomicStoreContents
        do {
            contents = try format.read(from: url)
        } catch {
            guard error.code == .corruptStore || error.code == .invalidData else { throw error }
            return .unreadable(error)
        }
        return StoreCheckInput(records: contents.records, keyCounters: contents.keySequences)
    }
}
