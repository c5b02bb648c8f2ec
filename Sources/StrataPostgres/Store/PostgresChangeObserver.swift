internal import Foundation
public import Strata

/// What other processes saved to a PostgreSQL store, from its `strata_history` table.
public struct PostgresRemoteChanges: Sendable, Hashable {
    public var inserted: Set<ObjectID>
    public var updated: Set<ObjectID>
    public var deleted: Set<ObjectID>
    /// The last `strata_history` row these changes include: start a later observer after it to
    /// catch up from there (``PostgresStore/observeRemoteChanges(after:_:)``).
    public var lastHistoryID: Int64
}

/// Delivers the saves other processes make to a PostgreSQL store — on this machine or any other
/// — while it runs: each save notifies the store's channel (`NOTIFY`, sent at commit) and leaves
/// a row in `strata_history`; the observer `LISTEN`s on its own connection and, at each
/// notification, reads the rows it has not seen. When its connection breaks it connects again
/// and reads every row it missed, so no save is lost (Core Data's persistent history, across
/// machines). Saves of the store instance it observes are left out: its coordinator announced them.
///
/// Handlers run on the observer's own thread, one batch at a time. Call ``stop()`` when done
/// (the observer also stops when released).
///
/// `strata_history` keeps every row; delete old ones as suits the app (a process that was away
/// longer than that misses changes and should refetch), e.g.
/// `DELETE FROM strata_history WHERE committed < now() - interval '7 days'`.
public final class PostgresChangeObserver: Sendable {
    private let state: Locked<State>

    private struct State {
        var stopped = false
        var lastHistoryID: Int64
    }

    /// The last history row delivered (or the one the observer started after).
    public var lastHistoryID: Int64 { state.withLock { $0.lastHistoryID } }

    init(store: PostgresStore, after start: Int64, handler: @escaping @Sendable (PostgresRemoteChanges) -> Void) {
        let state = Locked(State(lastHistoryID: start))
        self.state = state
        let location = store.location
        let origin = store.instanceIdentifier
        let pool = PGConnectionPool(location: location)
        let thread = Thread {
            var connection: PGConnection?
            while !state.withLock({ $0.stopped }) {
                do throws(StrataError) {
                    if connection == nil {
                        let made = try pool.connect()
                        // Named, so that an operator (or a test) can tell it in pg_stat_activity.
                        try made.run("SET application_name = \(PGConnection.literal("strata observer \(location.schema)"))")
                        try made.run("LISTEN \(quoted(location.channel))")
                        connection = made
                        // Whatever was saved while no one listened.
                        try Self.deliver(after: state, origin: origin, store: store, made, handler)
                    }
                    guard let listening = connection else { continue }
                    let payloads: [String]
                    do throws(PGError) {
                        payloads = try listening.notifications(waitingUpTo: 200)
                    } catch {
                        throw error.strataError(location: location.description)
                    }
                    if payloads.contains(where: { $0 != origin }) {
                        try Self.deliver(after: state, origin: origin, store: store, listening, handler)
                    }
                } catch {
                    // The server went away or refused: try again shortly, from the last row seen.
                    connection = nil
                    Thread.sleep(forTimeInterval: 0.5)
                }
            }
        }
        thread.name = "strata.postgres.changes"
        thread.start()
    }

    deinit { stop() }

    /// Stops delivering changes (a handler running now finishes first).
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Reads the history rows after the last one delivered and hands their changes, merged, to
    /// the handler.
    private static func deliver(
        after state: Locked<State>, origin: String, store: PostgresStore, _ connection: PGConnection,
        _ handler: (PostgresRemoteChanges) -> Void
    ) throws(StrataError) {
        let last = state.withLock { $0.lastHistoryID }
        let rows = try connection.run(
            "SELECT \"id\", \"origin\", \"inserted\"::text, \"updated\"::text, \"deleted\"::text FROM \"strata_history\" WHERE \"id\" > $1::bigint ORDER BY \"id\"",
            [String(last)])
        guard rows.count > 0 else { return }
        var changes = PostgresRemoteChanges(inserted: [], updated: [], deleted: [], lastHistoryID: last)
        for row in 0..<rows.count {
            changes.lastHistoryID = max(changes.lastHistoryID, rows.int64(row, 0) ?? 0)
            guard rows.text(row, 1) != origin else { continue }
            changes.inserted.formUnion(store.objectIDs(inArray: rows.text(row, 2)))
            changes.updated.formUnion(store.objectIDs(inArray: rows.text(row, 3)))
            changes.deleted.formUnion(store.objectIDs(inArray: rows.text(row, 4)))
        }
        // An object inserted or updated, then deleted, is deleted.
        changes.inserted.subtract(changes.deleted)
        changes.updated.subtract(changes.deleted)
        state.withLock { $0.lastHistoryID = changes.lastHistoryID }
        if !(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty) { handler(changes) }
    }
}

extension PostgresStore {
    /// Calls `handler` with what other processes save to this store from now on (or after the
    /// history row `after`, to catch up on what an earlier observer had not seen).
    /// - Throws: `storeIO` when the history cannot be read.
    public func observeRemoteChanges(
        after historyID: Int64? = nil, _ handler: @escaping @Sendable (PostgresRemoteChanges) -> Void
    ) throws(StrataError) -> PostgresChangeObserver {
        let start: Int64
        if let historyID { start = historyID } else {
            start = try pool.read { (connection) throws(StrataError) -> Int64 in
                try connection.run("SELECT coalesce(max(\"id\"), 0) FROM \"strata_history\"").int64(0, 0) ?? 0
            }
        }
        return PostgresChangeObserver(store: self, after: start, handler: handler)
    }

    /// Brings what other processes save to this store into `coordinator` from now on: its row
    /// cache forgets the changed rows, and its contexts that merge changes
    /// (`automaticallyMergesChangesFromParent`) read them again
    /// (`PersistentStoreCoordinator.mergeRemoteChanges(inserted:updated:deleted:)`).
    ///
    /// ```swift
    /// let store = try coordinator.addStore(StoreDescription(type: .postgres, url: url)) as! PostgresStore
    /// let observer = try store.mergeRemoteChanges(into: coordinator)
    /// ```
    public func mergeRemoteChanges(into coordinator: PersistentStoreCoordinator) throws(StrataError) -> PostgresChangeObserver {
        try observeRemoteChanges { [weak coordinator] changes in
            coordinator?.mergeRemoteChanges(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted)
        }
    }

    /// The object IDs of a history row's `text[]` (`{Entity/1,Entity/2}`).
    func objectIDs(inArray text: String?) -> [ObjectID] {
        guard let text, text.count > 2 else { return [] }
        return text.dropFirst().dropLast().split(separator: ",").compactMap { item in
            let parts = item.split(separator: "/")
            guard parts.count == 2, let key = Int64(parts[1]) else { return nil }
            return ObjectID(entityName: String(parts[0]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")), storeIdentifier: storeIdentifier, primaryKey: key)
        }
    }
}
