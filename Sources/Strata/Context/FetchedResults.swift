/// The result of a batched fetch: the IDs of every match, with objects loaded a batch at a time
/// as the collection is read. Only the batch being read is kept; objects the caller does not hold
/// on to are released, so iterating a million objects keeps memory bounded.
///
/// ```swift
/// var request = FetchRequest(entityName: "UsageEvent")
/// request.fetchBatchSize = 500
/// for event in try context.fetchResults(request) { total += event.value(forKey: "duration", as: Int64.self) ?? 0 }
/// ```
public struct FetchedResults: RandomAccessCollection {
    public let objectIDs: [ObjectID]
    public let batchSize: Int
    private let batches: BatchLoader

    init(objectIDs: [ObjectID], batchSize: Int, context: ManagedObjectContext) {
        self.objectIDs = objectIDs
        self.batchSize = Swift.max(1, batchSize)
        self.batches = BatchLoader(context: context)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    public subscript(position: Int) -> ManagedObject {
        let batch = position / batchSize
        let start = batch * batchSize
        let end = Swift.min(start + batchSize, objectIDs.count)
        return batches.object(at: position - start, batch: batch, ids: objectIDs[start..<end])
    }

    /// Loads one batch at a time and holds only it.
    final class BatchLoader {
        weak var context: ManagedObjectContext?
        private var current = -1
        private var objects: [ManagedObject] = []

        init(context: ManagedObjectContext) {
            self.context = context
        }

        func object(at offset: Int, batch: Int, ids: ArraySlice<ObjectID>) -> ManagedObject {
            if batch != current {
                guard let context else { preconditionFailure("the context of these fetched results is gone") }
                objects = context.loadBatch(Array(ids))
                current = batch
            }
            return objects[offset]
        }
    }
}

extension ManagedObjectContext {
    /// Fetches the IDs of every match and loads objects `fetchBatchSize` at a time as the result
    /// is read (all at once when `fetchBatchSize` is 0).
    public func fetchResults(_ request: FetchRequest) throws(StrataError) -> FetchedResults {
        let ids = try fetchObjectIDs(request)
        return FetchedResults(objectIDs: ids, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : max(ids.count, 1), context: self)
    }

    /// Materialises objects for IDs with one store call for those not loaded yet.
    func loadBatch(_ ids: [ObjectID]) -> [ManagedObject] {
        let needed = ids.filter { registeredObject(for: $0)?.isFault ?? true }
        if !needed.isEmpty, let records = try? coordinator.records(for: needed) {
            for record in records.values { _ = materialize(record) }
        }
        return ids.map { materialize($0) }
    }
}
