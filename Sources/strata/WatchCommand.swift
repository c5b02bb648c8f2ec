import ArgumentParser
import Dispatch
import Foundation
import Strata
import StrataPostgres

/// `strata watch`: follows a query across processes, printing one JSON line per save that
/// changes its results, until interrupted.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a JSON line for each save, by any process, that changes the objects matching a query.",
        discussion: """
            Example: strata watch todo.sqlite Todo --where 'done == NO'
            Each line is {"inserted": [ids], "updated": [ids], "deleted": [ids]} with the @ids \
            (as dump and query print them) of the objects that came into the results, changed \
            while in them, or left them (deleted, or no longer matching), in ascending order. \
            Saves are learnt from the store's own record of changes: on SQLite its \
            strata_history table, read when PRAGMA data_version says another connection \
            committed; on XML and binary stores the file, when it is replaced; on PostgreSQL \
            strata_history at each NOTIFY. A line comes within a second of the save. Saves that \
            change no result print nothing. When it is ready, a line on standard error says so. \
            It runs until interrupted (Ctrl-C, SIGINT or SIGTERM), then exits 0.
            """
    )

    @Option(help: "The store type (sqlite, xml, binary, postgres); by default from the file or URL.")
    var type: String?

    @Argument(help: "The store file, or a postgres:// URL.")
    var store: String

    @Argument(help: "The entity whose objects to follow; its subentities are included.")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in the NSPredicate format language; every object of the entity when omitted.")
    var predicate: String?

    func run() throws {
        try runReportingErrors {
            let coordinator = try StoreAccess.openExisting(store, type: type)
            let request = FetchRequest(entityName: entity, predicate: try parsePredicate(predicate))
            let watcher = try QueryWatcher(coordinator: coordinator, request: request)
            // A server URL is shown without its password.
            let location = StoreAccess.location(store)
            let shown = location.isFileURL ? store : ((try? PostgresLocation(location))?.description ?? location.host ?? "the server")
            Console.note("strata: watching \(entity) in '\(Echo.line(shown))' (\(watcher.count) object\(watcher.count == 1 ? "" : "s") match); stop with Ctrl-C")
            try watcher.run()
        }
    }
}

/// Follows the results of a request as the coordinator learns of other processes' saves.
final class QueryWatcher {
    private let coordinator: PersistentStoreCoordinator
    private let request: FetchRequest
    /// The entity and its subentities: the objects a save may change the results with.
    private let family: Set<String>
    /// The results, with the version of each object when last read.
    private var results: [ObjectID: Int64] = [:]
    private let pending = Locked<(notifications: [SaveNotification], stop: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)
    private var token: PersistentStoreCoordinator.ObserverToken?
    private var observation: RemoteChangeObservation?

    /// Starts following saves, then reads the results, so that no save between is missed.
    init(coordinator: PersistentStoreCoordinator, request: FetchRequest) throws {
        self.coordinator = coordinator
        self.request = request
        family = Set(coordinator.schema.entityAndDescendants(of: request.entityName).map(\.name))
        let pending = self.pending
        let wakeUp = self.wakeUp
        token = coordinator.addSaveObserver { notification in
            pending.withLock { $0.notifications.append(notification) }
            wakeUp.signal()
        }
        observation = try coordinator.observeRemoteChanges()
        let ids = try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(request)
        results = try versions(of: ids)
    }

    deinit {
        observation?.stop()
        if let token { coordinator.removeObserver(token) }
    }

    var count: Int { results.count }

    /// Prints a line per change of the results until SIGINT or SIGTERM.
    func run() throws {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let pending = self.pending
            let wakeUp = self.wakeUp
            source.setEventHandler {
                pending.withLock { $0.stop = true }
                wakeUp.signal()
            }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }
        while true {
            wakeUp.wait()
            let (notifications, stop) = pending.withLock { state in
                let taken = state
                state.notifications = []
                return (taken.notifications, taken.stop)
            }
            if stop { return }
            for notification in notifications {
                if let line = try change(after: notification) { Console.print(line) }
            }
        }
    }

    /// The line for a save, nil when it changed no result.
    private func change(after notification: SaveNotification) throws -> String? {
        let named = notification.inserted.union(notification.updated).union(notification.deleted).filter { family.contains($0.entityName) }
        let unlisted = !notification.unlistedEntities.isDisjoint(with: family)
        guard !named.isEmpty || unlisted else { return nil }
        // The query again, for IDs: which objects match now.
        let now = Set(try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(request))
        let before = Set(results.keys)
        let kept = now.intersection(before)
        // Versions of the objects that stayed and may have changed, and of those that came.
        let read = try versions(of: Array(unlisted ? kept : kept.intersection(named)) + Array(now.subtracting(before)))
        let updated = kept.filter { id in
            unlisted ? read[id] != results[id] : notification.updated.contains(id) || notification.inserted.contains(id)
        }
        let inserted = now.subtracting(before)
        let deleted = before.subtracting(now)
        for id in deleted { results[id] = nil }
        for (id, version) in read { results[id] = version }
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return nil }
        func list(_ ids: some Collection<ObjectID>) -> String {
            "[" + ids.compactMap(\.primaryKey).sorted().map(String.init).joined(separator: ", ") + "]"
        }
        return "{\"inserted\": \(list(inserted)), \"updated\": \(list(updated)), \"deleted\": \(list(deleted))}"
    }

    /// The stored version of each object (0 for one no store holds any more).
    private func versions(of ids: [ObjectID]) throws -> [ObjectID: Int64] {
        var result: [ObjectID: Int64] = [:]
        for id in ids { result[id] = try coordinator.record(for: id)?.version ?? 0 }
        return result
    }
}
