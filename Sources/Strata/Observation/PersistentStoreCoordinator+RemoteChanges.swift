extension PersistentStoreCoordinator {
    /// Follows other processes' saves to every store of this coordinator that keeps a record of
    /// changes, and merges them as they come (``mergeRemoteChanges(_:)``): the row cache forgets
    /// the changed rows, and every save observer — results controllers, value observations
    /// (``observeObjectIDs(_:)``), contexts that merge changes — hears of them as of a save.
    ///
    /// Each store reads its own record: a SQLite store its `strata_history` table when
    /// `PRAGMA data_version` says another connection committed (checked every 100 ms); an XML
    /// or binary store its file, when it was replaced (also every 100 ms), diffed by object and
    /// version; a PostgreSQL store its `strata_history` table at each notification. Stores with
    /// no other process (in memory) are left out. Keep the returned observation for as long as
    /// changes should come; they stop when it is stopped or released.
    ///
    /// ```swift
    /// let observation = try coordinator.observeRemoteChanges()
    /// for try await ids in coordinator.observeObjectIDs(request) { print(ids) }
    /// ```
    /// - Throws: a store's error when its record cannot be read.
    public func observeRemoteChanges() throws(StrataError) -> RemoteChangeObservation {
        var observers: [any StoreChangeObserver] = []
        do {
            for store in stores {
                let observer = try store.observeChanges(ofOtherProcesses: { [weak self] changes in self?.mergeRemoteChanges(changes) })
                if let observer { observers.append(observer) }
            }
        } catch {
            for observer in observers { observer.stop() }
            throw error
        }
        return RemoteChangeObservation(observers)
    }

    /// Brings in what another process saved, as a store's record of changes tells it: the row
    /// cache forgets those rows (every row of the ``StoreRemoteChanges/unlistedEntities``), and
    /// save observers get a notification without records, so that what they show is read again.
    public func mergeRemoteChanges(_ changes: StoreRemoteChanges) {
        guard !changes.isEmpty else { return }
        if !changes.unlistedEntities.isEmpty { evictCachedRecords(ofEntities: changes.unlistedEntities) }
        evictCachedRecords(changes.updated.union(changes.deleted))
        broadcast {
            var notification = SaveNotification(
                inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted, changedKeys: [:], records: [:], sourceContext: nil)
            notification.unlistedEntities = changes.unlistedEntities
            return notification
        }
    }
}

/// Other processes' saves being followed (``PersistentStoreCoordinator/observeRemoteChanges()``),
/// until ``stop()`` is called or it is released.
public final class RemoteChangeObservation: Sendable {
    private let observers: [any StoreChangeObserver]

    init(_ observers: [any StoreChangeObserver]) {
        self.observers = observers
    }

    deinit { stop() }

    /// Stops following (a merge in progress finishes first).
    public func stop() {
        for observer in observers { observer.stop() }
    }
}
