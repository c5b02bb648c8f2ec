/// A batch update or delete as a store sees it: the objects a fetch matches, and what to do to
/// them. The coordinator has checked the request against the model (the entity, the predicate,
/// each value's type and rules) before a store sees it.
public struct StoreBatchRequest: Sendable {
    public enum Operation: Sendable {
        /// Sets these attributes (nil: no value) of every matching object; their versions are
        /// bumped as a save bumps them.
        case update([String: AttributeValue?])
        /// Deletes every matching object, applying delete rules (``BatchDeleteRequest``).
        case delete
    }

    /// The matching objects: concrete entities and a predicate (no sort, no window).
    public var fetch: StoreFetchRequest
    public var operation: Operation
    /// Whether the outcome must list the matched objects (``StoreBatchOutcome/matched``); when
    /// false, a store may give only their number, if that is cheaper (SQLite: no `RETURNING`).
    /// The coordinator asks for the list when anyone will read it: observers of its saves, the
    /// executing context, a request for object IDs.
    public var listsObjects: Bool
    /// For an update that sets attributes to expressions (``BatchUpdateRequest``): the
    /// dictionary fetch of the matching objects whose columns are the object and, by attribute
    /// name, each new value (``BatchExpressions``). Only stores of this package are given such a
    /// request (``ComputesBatchUpdates``); others are run through their fetch and save.
    package var computed: StoreDictionaryRequest?

    public init(fetch: StoreFetchRequest, operation: Operation, listsObjects: Bool = true) {
        self.fetch = fetch
        self.operation = operation
        self.listsObjects = listsObjects
    }
}

/// A store whose ``PersistentStore/executeBatch(_:)`` computes the expressions of a batch
/// update (``StoreBatchRequest/computed``).
package protocol ComputesBatchUpdates: PersistentStore {}

/// What a store did for a ``StoreBatchRequest``.
public struct StoreBatchOutcome: Sendable {
    /// The objects the predicate matched (updated or deleted), in primary-key order; may be
    /// empty when the request did not ask for them (``StoreBatchRequest/listsObjects``).
    public var matched: [ObjectID]
    /// How many objects the predicate matched.
    public var matchedCount: Int
    /// The objects a delete's cascade rules deleted besides, in the order they were reached.
    public var cascaded: [ObjectID]
    /// The new version of each object a delete's nullify rules changed (an update's objects
    /// are read again by whoever needs them).
    public var versions: [ObjectID: Int64]
    /// The properties each object a delete's nullify rules changed now lacks the deleted
    /// objects in (an update's keys are the request's own).
    public var changedKeys: [ObjectID: Set<String>]
    /// The saved records of the objects a delete's nullify rules changed, for contexts to merge.
    public var records: [ObjectID: StoreRecord]

    public init(
        matched: [ObjectID], matchedCount: Int? = nil, cascaded: [ObjectID] = [], versions: [ObjectID: Int64] = [:],
        changedKeys: [ObjectID: Set<String>] = [:], records: [ObjectID: StoreRecord] = [:]
    ) {
        self.matched = matched
        self.matchedCount = matchedCount ?? matched.count
        self.cascaded = cascaded
        self.versions = versions
        self.changedKeys = changedKeys
        self.records = records
    }
}

extension PersistentStore {
    /// No way of its own: the coordinator fetches the matching records, plans the change and
    /// saves it as one changeset (``BatchExecution``).
    public func executeBatch(_ request: StoreBatchRequest) throws(StrataError) -> StoreBatchOutcome? { nil }
}

/// New objects of one concrete entity as a store's ``PersistentStore/insertBatch(_:)`` sees
/// them: attribute values laid out by the entity's layout (defaults filled in), checked against
/// the model's rules by the coordinator; no relationships; version 1.
public struct StoreBatchInsert: Sendable {
    public var entityName: String
    /// One entry per object, laid out by the entity's ``EntityDescription/attributeLayout``.
    public var objects: [AttributeValues]

    public init(entityName: String, objects: [AttributeValues]) {
        self.entityName = entityName
        self.objects = objects
    }
}

extension PersistentStore {
    /// No way of its own: the coordinator allocates keys and saves records.
    public func insertBatch(_ batch: StoreBatchInsert) throws(StrataError) -> [Int64]? { nil }
}
