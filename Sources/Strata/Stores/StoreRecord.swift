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
    /// (``PersistentStore/relatedObjectIDs(of:relationship:)``). In a saved record, a listed
    /// relationship was not touched and its stored members stay as they are.
    public var lazyToMany: Set<String> = []
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

    public init(
        inserted: [StoreRecord] = [], updated: [StoreRecord] = [],
        deleted: [(objectID: ObjectID, version: Int64)] = [], overwritesConflicts: Bool = false
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.overwritesConflicts = overwritesConflicts
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
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
