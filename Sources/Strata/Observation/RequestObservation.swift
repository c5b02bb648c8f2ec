internal import Foundation

extension PersistentStoreCoordinator {
    /// The IDs of the objects matching a request, now and after every save that changes them
    /// (GRDB's `ValueObservation`), as an async sequence that any task can read.
    ///
    /// The first element is the current result. After that, a save is looked at only when it
    /// touches an entity the request depends on (its entity, and the destinations of the
    /// relationships its predicate and sort descriptors follow); the request is then fetched
    /// again, and a new element comes when the IDs differ from the last ones, or when the save
    /// inserted, updated or deleted one of the objects in them (their values changed). A save
    /// of the same entity that leaves the result as it was emits nothing. Saves of every
    /// context of this coordinator count, and other processes' saves as the coordinator learns
    /// of them (``mergeRemoteChanges(inserted:updated:deleted:)``).
    ///
    /// Saved state only: no context's unsaved changes take part. A reader that falls behind
    /// gets the latest result, never a stale one — results are complete, so intermediate ones
    /// it had no time to read are skipped rather than queued. The sequence ends when the task
    /// reading it is cancelled, and throws the fetch's error when a fetch fails.
    ///
    /// ```swift
    /// for try await ids in coordinator.observeObjectIDs(FetchRequest(entityName: "Todo", predicate: .key("done") == false)) {
    ///     print(ids.count, "to do")
    /// }
    /// ```
    public func observeObjectIDs(_ request: FetchRequest) -> AsyncThrowingStream<[ObjectID], any Error> {
        observe(request) { (context) throws(StrataError) in try context.fetchObjectIDs(request) }
    }

    /// The dictionary rows of a request (``ManagedObjectContext/fetchDictionaries(_:)``), now
    /// and after every save that changes them: as ``observeObjectIDs(_:)``, a new element when
    /// the rows differ from the last ones (the rows are compared, not the objects behind them).
    public func observeDictionaries(_ request: FetchRequest) -> AsyncThrowingStream<[DictionaryRow], any Error> {
        observe(request, namesObjects: false) { (context) throws(StrataError) in try context.fetchDictionaries(request) }
    }

    /// Follows a request: fetches with `fetch` in a context of its own, at first and after each
    /// relevant save, and yields each result that differs from the last (or, when
    /// `namesObjects`, whose objects a save changed).
    private func observe<Value: Sendable & Equatable>(
        _ request: FetchRequest, namesObjects: Bool = true, fetch: @escaping @Sendable (ManagedObjectContext) throws(StrataError) -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let dependencies = RequestDependencies(request, schema: schema)
        let inbox = ResultsInbox()
        // Observed before the first fetch: a save from then on is in it or comes after it.
        let token = addSaveObserver { notification in
            if dependencies.isAffected(by: notification) { inbox.note(notification.inserted.union(notification.updated).union(notification.deleted)) }
        }
        let signals = inbox.signals()
        let task = Task { [self] in
            do {
                var last = try fetch(ManagedObjectContext(coordinator: self))
                continuation.yield(last)
                for await _ in signals {
                    guard let changed = inbox.take() else { continue }
                    let now = try fetch(ManagedObjectContext(coordinator: self))
                    let touched = namesObjects && (now as? [ObjectID]).map { $0.contains(where: changed.contains) } ?? false
                    guard now != last || touched else { continue }
                    last = now
                    continuation.yield(now)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            inbox.finish()
            self?.removeObserver(token)
        }
        return stream
    }
}
