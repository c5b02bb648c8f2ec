/// The stored state of one object: what a store keeps and hands back, and what a save sends.
///
/// Records hold stored attributes (transient ones never reach a store) and both sides of every
/// relationship, as object IDs. A missing key means nil (or an empty to-many).
public struct StoreRecord: Sendable, Hashable {
    public var objectID: ObjectID
    public var attributes: AttributeValues
    public var toOne: [String: ObjectID]
    /// Members of to-many relationships, in stored order for ordered ones.
    public var toMany: [String: [ObjectID]]
    /// To-many relationships left out of `toMany`, to load when first used
    /// (``PersistentStore/relatedObjectIDs(of:relationship:)->[ObjectID]``). In a saved record, a listed
    /// relationship was not touched and its stored members stay as they are.
    public var lazyToMany: Set<String>
    /// Incremented by every save of the object; a save that expects another version fails with
    /// a merge conflict (optimistic locking).
    public var version: Int64

    public init(
        objectID: ObjectID, attributes: AttributeValues = [:], toOne: [String: ObjectID] = [:],
        toMany: [String: [ObjectID]] = [:], version: Int64 = 0
    ) {
        self.objectID = objectID
        self.attributes = attributes
        self.toOne = toOne
        self.toMany = toMany
        self.lazyToMany = []
        self.version = version
    }

    /// A record with its lazily loaded to-many relationships named, as a store reads it (made
    /// whole: setting ``lazyToMany`` after the initializer made the optimizer copy the record).
    package init(
        objectID: ObjectID, attributes: AttributeValues, toOne: [String: ObjectID],
        lazyToMany: Set<String>, version: Int64
    ) {
        self.objectID = objectID
        self.attributes = attributes
        self.toOne = toOne
        self.toMany = [:]
        self.lazyToMany = lazyToMany
        self.version = version
    }
}

/// What one save changes in one store. Records carry permanent object IDs.
public struct StoreChangeset: Sendable {
    public var inserted: [StoreRecord]
    /// The new state of each changed object; its `version` is the version the context read.
    public var updated: [StoreRecord]
    /// Deleted objects with the version the context read.
    public var deleted: [(objectID: ObjectID, version: Int64)]
    /// Whether a save may overwrite rows changed since they were read (the object-trump merge
    /// policy) instead of failing with a merge conflict.
    public var overwritesConflicts: Bool
    /// Whether the save puts objects back as they were (undoing a save that committed to this
    /// store but failed in another): versions are not checked, and inserted and updated records
    /// are stored with the `version` they carry instead of a new one.
    public var restoresVersions = false
    /// Inserted objects whose primary keys the store handed out
    /// (``PersistentStore/allocatePrimaryKeys(rootEntity:count:)``) rather than the caller asked
    /// for: when another process saved an object with the same key meanwhile, the store may give
    /// these fresh keys (reported in ``StoreSaveResult/reassignedIDs``). An inserted object not
    /// listed keeps its key or the save fails.
    public var reassignableIDs: Set<ObjectID>
    /// For each record of ``updated``, at the same index: the names of its properties
    /// (attributes and relationships) whose values differ from the state it was read at
    /// (`version`), or nil when any may. Empty (the default), or shorter than ``updated``, means
    /// nil for every record without an entry.
    ///
    /// A store may write only these properties of a row whose version it checks and finds
    /// unchanged: its other properties then still hold what the record does. With
    /// ``overwritesConflicts`` or ``restoresVersions`` every property is written.
    public var changedKeys: [Set<String>?] = []

    public init(
        inserted: [StoreRecord] = [], updated: [StoreRecord] = [],
        deleted: [(objectID: ObjectID, version: Int64)] = [], overwritesConflicts: Bool = false,
        reassignableIDs: Set<ObjectID> = []
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.overwritesConflicts = overwritesConflicts
        self.reassignableIDs = reassignableIDs
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a save did: the new version of every inserted and updated object, and the new IDs of
/// inserted objects the store had to give other keys.
public struct StoreSaveResult: Sendable, Hashable {
    /// The new version of every inserted and updated object, by its final ID.
    public var versions: [ObjectID: Int64]
    /// Inserted objects that got another primary key than the changeset gave them (old ID →
    /// new ID), because another process saved an object with that key first. Only IDs listed
    /// in ``StoreChangeset/reassignableIDs`` are ever reassigned; every reference to them in the
    /// saved records was changed too.
    public var reassignedIDs: [ObjectID: ObjectID]

    public init(versions: [ObjectID: Int64], reassignedIDs: [ObjectID: ObjectID] = [:]) {
        self.versions = versions
        self.reassignedIDs = reassignedIDs
    }
}

extension StoreRecord {
    /// The record with its own ID and every reference mapped through `map`.
    public func mappingIDs(_ map: (ObjectID) -> ObjectID) -> StoreRecord {
        var record = self
        record.objectID = map(objectID)
        record.toOne = toOne.mapValues(map)
        record.toMany = toMany.mapValues { $0.map(map) }
        return record
    }
}

/// A fetch as a store sees it: concrete entities, a predicate, an order and a window.
public struct StoreFetchRequest: Sendable {
    /// The concrete entities to search (the requested entity and, usually, its subentities).
    public var entityNames: [String]
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor]
    /// 0 means no limit.
    public var fetchLimit: Int
    public var fetchOffset: Int

    public init(
        entityNames: [String], predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0
    ) {
        self.entityNames = entityNames
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}
