public import Strata

extension PostgresChangeObserver: StoreChangeObserver {}

extension PostgresStore {
    /// Follows other processes' saves through `strata_history` and `LISTEN`
    /// (``observeRemoteChanges(after:_:)``), as every store that keeps a record of changes does
    /// for `PersistentStoreCoordinator.observeRemoteChanges()`.
    public func observeChanges(ofOtherProcesses handler: @escaping @Sendable (StoreRemoteChanges) -> Void) throws(StrataError) -> (any StoreChangeObserver)? {
        try observeRemoteChanges { changes in
            handler(StoreRemoteChanges(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted))
        }
    }
}
