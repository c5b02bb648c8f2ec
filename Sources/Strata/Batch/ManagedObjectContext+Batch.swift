/// Batch requests through a context: run by its coordinator, then merged into this context
/// (objects it holds that the request updated are refreshed, deleted ones leave it), as
/// Core Data apps do with `mergeChanges(fromRemoteContextSave:into:)`. Other contexts learn of the
/// request through the coordinator's save notification, as of any save.
extension ManagedObjectContext {
    /// Inserts the request's objects through the coordinator.
    public func execute(_ request: BatchInsertRequest) throws(StrataError) -> BatchResult {
        try coordinator.executeBatch(request, from: identifier)
    }

    /// Updates the objects the request matches, and refreshes those this context holds.
    public func execute(_ request: BatchUpdateRequest) throws(StrataError) -> BatchResult {
        let outcome = try coordinator.executeBatch(request, from: identifier)
        mergeChanges(from: outcome.notification())
        return outcome.result
    }

    /// Deletes the objects the request matches, applying delete rules; those this context holds
    /// leave it.
    public func execute(_ request: BatchDeleteRequest) throws(StrataError) -> BatchResult {
        let outcome = try coordinator.executeBatch(request, from: identifier)
        mergeChanges(from: outcome.notification())
        return outcome.result
    }
}
