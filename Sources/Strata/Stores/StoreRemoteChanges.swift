internal import Foundation

/// What other processes saved to a store, as its own record of changes tells it: `Sendable`,
/// for a coordinator to merge (``PersistentStoreCoordinator/observeRemoteChanges()``).
public struct StoreRemoteChanges: Sendable, Hashable {
    public var inserted: Set<ObjectID>
    public var updated: Set<ObjectID>
    public var deleted: Set<ObjectID>
    /// Entities some of whose objects changed without being listed: a batch request or a bulk
    /// load that did not name its rows, records pruned before this observer read them, a file
    /// replaced by another store. Whoever shows objects of these entities reads them again.
    public var unlistedEntities: Set<String>

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [], unlistedEntities: Set<String> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.unlistedEntities = unlistedEntities
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && unlistedEntities.isEmpty }
}

/// Follows another process's saves to a store until stopped (see
/// ``PersistentStore/observeChanges(ofOtherProcesses:)``).
public protocol StoreChangeObserver: AnyObject, Sendable {
    /// Stops delivering changes (a delivery in progress finishes first).
    func stop()
}

/// A thread that asks `poll` for changes every `interval` and hands what it finds to a
/// handler, until stopped: how stores without notifications of their own (a SQLite file, an
/// XML or binary file) follow other processes.
package final class PollingChangeObserver: StoreChangeObserver {
    private let stopped = Locked(false)
    private let onStop: @Sendable () -> Void

    /// - Parameters:
    ///   - onStop: run once, when stopped.
    ///   - poll: what changed since its last call, one element per save where the store can
    ///     tell them apart; an error is retried at the next tick (a file being replaced, a
    ///     busy database).
    package init(
        name: String, interval: Duration = .milliseconds(100), poll: @escaping @Sendable () throws(StrataError) -> [StoreRemoteChanges],
        handler: @escaping @Sendable (StoreRemoteChanges) -> Void, onStop: @escaping @Sendable () -> Void = {}
    ) {
        self.onStop = onStop
        let stopped = self.stopped
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let thread = Thread {
            while !stopped.withLock({ $0 }) {
                for changes in (try? poll()) ?? [] where !changes.isEmpty { handler(changes) }
                Thread.sleep(forTimeInterval: seconds)
            }
        }
        thread.name = name
        thread.start()
    }

    deinit { stop() }

    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { onStop() }
    }
}
