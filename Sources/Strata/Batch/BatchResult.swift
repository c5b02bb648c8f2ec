/// What a batch request returns besides its count (Core Data's `NSBatchInsertRequestResultType`,
/// `NSBatchUpdateRequestResultType`, `NSBatchDeleteRequestResultType`).
public enum BatchResultType: Sendable, Hashable {
    /// Only whether it succeeded (and the count, which costs nothing more).
    case statusOnly
    /// How many objects it inserted, updated or deleted.
    case count
    /// The IDs of the objects it inserted, updated or deleted, in primary-key order.
    case objectIDs
}

/// What a batch insert, update or delete did.
///
/// ```swift
/// let result = try coordinator.execute(BatchDeleteRequest(entityName: "Todo", predicate: try FetchPredicate(format: "done == YES")))
/// print("deleted \(result.count), and \(result.cascadedCount) more by cascade")
/// ```
public struct BatchResult: Sendable, Hashable {
    /// The request's result type.
    public var resultType: BatchResultType
    /// How many objects the request inserted, updated, or deleted (for a delete: the objects its
    /// predicate matched, without those its cascade rules deleted besides). Always set.
    public var count: Int
    /// With ``BatchResultType/objectIDs``: the objects counted by ``count``, in primary-key
    /// order (for an insert, in the order of the request's objects); empty otherwise.
    public var objectIDs: [ObjectID]
    /// A delete: how many more objects cascade delete rules deleted.
    public var cascadedCount: Int
    /// A delete with ``BatchResultType/objectIDs``: the objects cascade rules deleted.
    public var cascadedObjectIDs: [ObjectID]

    public init(resultType: BatchResultType, count: Int, objectIDs: [ObjectID] = [], cascadedCount: Int = 0, cascadedObjectIDs: [ObjectID] = []) {
        self.resultType = resultType
        self.count = count
        self.objectIDs = objectIDs
        self.cascadedCount = cascadedCount
        self.cascadedObjectIDs = cascadedObjectIDs
    }
}
