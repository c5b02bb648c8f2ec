import Foundation
import Strata
import StrataPostgres
import Synchronization

/// One worker process: its own coordinator on the store, saving read-modify-write increments of
/// random counters for a while, retrying each on `mergeConflict`, while it records every other
/// worker's save its coordinator announces through remote change notifications.
struct LoadWorker {
    var url: URL
    var worker: Int
    var workers: Int
    var seconds: Double
    var incrementsPerSave: Int
    /// How long to wait, after saving `Done`, for every other worker's `Done` to arrive.
    var drainSeconds: Double

    /// What the coordinator's observer collects, from the observer's thread.
    private struct Received {
        var ticks: [Int64] = []
        var at: [Double] = []
        var done: Set<Int64> = []
    }

    func run() throws -> WorkerReport {
        let (coordinator, store) = try LoadModel.coordinator(url)
        let received = Mutex(Received())
        coordinator.addSaveObserver { notification in
            // Remote saves only: this coordinator's own saves name their context.
            guard notification.sourceContext == nil else { return }
            let now = Date().timeIntervalSince1970
            received.withLock { received in
                for id in notification.inserted {
                    guard let key = id.primaryKey else { continue }
                    if id.entityName == "Tick" {
                        received.ticks.append(key)
                        received.at.append(now)
                    } else if id.entityName == "Done" {
                        received.done.insert(key)
                    }
                }
            }
        }
        // From the start of the history, so that no save of a worker that started earlier is
        // missed, whenever this process got going: the same observer as
        // `store.mergeRemoteChanges(into:)`, which starts at the latest row.
        let observer = try store.observeRemoteChanges(after: 0) { [weak coordinator] changes in
            coordinator?.mergeRemoteChanges(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted)
        }
        defer { observer.stop() }

        let context = ManagedObjectContext(coordinator: coordinator)
        let counters = try context.count(for: FetchRequest(entityName: "Counter"))
        guard counters >= incrementsPerSave else {
            throw StrataError(.invalidConfiguration, "the store holds \(counters) counters; each save increments \(incrementsPerSave)")
        }
        var report = WorkerReport(
            worker: worker, processID: ProcessInfo.processInfo.processIdentifier, startedAt: Date().timeIntervalSince1970, stoppedAt: 0,
            saves: [], attemptLatencies: [], conflicts: 0, errors: [], done: nil,
            receivedTicks: [], receivedAt: [], receivedDone: [], sawEveryoneFinish: false)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        var sequence: Int64 = 0
        while clock.now < end, report.errors.count < 20 {
            sequence += 1
            let chosen = Array((0..<counters).shuffled().prefix(incrementsPerSave))
            let first = clock.now
            var attempts = 0
            while report.errors.count < 20 {
                attempts += 1
                let start = clock.now
                do throws(StrataError) {
                    let tick = try increment(chosen, sequence: sequence, context)
                    report.attemptLatencies.append(Self.milliseconds(clock.now - start))
                    report.saves.append(WorkerReport.Save(
                        tick: tick, increments: chosen.count, committedAt: Date().timeIntervalSince1970,
                        attempts: attempts, latency: Self.milliseconds(clock.now - first)))
                    break
                } catch {
                    report.attemptLatencies.append(Self.milliseconds(clock.now - start))
                    if error.code == .mergeConflict {
                        report.conflicts += 1
                    } else {
                        report.errors.append("\(error.code): \(error.message)")
                    }
                }
            }
        }
        report.stoppedAt = Date().timeIntervalSince1970

        // The last save: the others stop waiting for this worker once they see it.
        do throws(StrataError) {
            context.reset()
            let done = try context.insertObject(entityName: "Done")
            done["worker"] = Int64(worker)
            try context.save()
            report.done = done.objectID.primaryKey
        } catch {
            report.errors.append("saving Done: \(error.code): \(error.message)")
        }
        let deadline = clock.now + .seconds(drainSeconds)
        while received.withLock({ $0.done.count }) < workers - 1, clock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        received.withLock { received in
            report.receivedTicks = received.ticks
            report.receivedAt = received.at
            report.receivedDone = received.done.sorted()
            report.sawEveryoneFinish = received.done.count == workers - 1
        }
        return report
    }

    /// One attempt: reads the chosen counters as they are stored now, increments each, inserts
    /// the save's `Tick`, and saves. Returns the tick's key.
    ///
    /// The context forgets everything first, so the values are read from the server: a context
    /// that kept its objects would have them brought up to date by the remote changes it merges
    /// at its next operation — `save()` included, which keeps unsaved changes on top of the
    /// merged values and their version, so an increment computed from the stale value would be
    /// saved without a conflict (Core Data's merge does the same).
    private func increment(_ chosen: [Int], sequence: Int64, _ context: ManagedObjectContext) throws(StrataError) -> Int64 {
        context.reset()
        let predicate: FetchPredicate
        do throws(PredicateSyntaxError) {
            predicate = try FetchPredicate(format: "index IN %@", chosen.map { Int64($0) })
        } catch {
            preconditionFailure("\(error)")
        }
        let objects = try context.fetch(FetchRequest(entityName: "Counter", predicate: predicate))
        guard objects.count == chosen.count else {
            throw StrataError(.objectNotFound, "fetched \(objects.count) of counters \(chosen)")
        }
        for counter in objects {
            counter["value"] = LoadModel.integer(counter, "value") + 1
        }
        let tick = try context.insertObject(entityName: "Tick")
        tick["worker"] = Int64(worker)
        tick["sequence"] = sequence
        tick["amount"] = Int64(chosen.count)
        try context.save()
        guard let key = tick.objectID.primaryKey else {
            throw StrataError(.invalidObjectID, "the saved tick has no primary key: \(tick.objectID)")
        }
        return key
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
