import Foundation

/// A run's invariants checked, and its throughput and latencies.
struct LoadSummary: Sendable {
    /// Every invariant the run broke, described; empty when it kept them all.
    var problems: [String] = []
    /// Committed saves and increments, and attempts (committed or not), of all workers.
    var saves = 0
    var increments: Int64 = 0
    var attempts = 0
    var conflicts = 0
    /// The `Tick` of every committed save, by worker.
    var ticks: [Int: Set<Int64>] = [:]
    /// From the first worker's start to the last one's stop, in seconds.
    var window: Double = 0
    /// Latencies, in milliseconds: every attempt; every committed save from its first attempt.
    var attemptLatency = Percentiles([])
    var saveLatency = Percentiles([])
    /// From a save's commit to its announcement in another worker's coordinator, in milliseconds.
    var notificationLag = Percentiles([])
    var maxAttempts = 0

    /// The 50th and 99th percentiles (nearest rank) and the maximum of some samples.
    struct Percentiles: Sendable {
        var count: Int
        var p50: Double
        var p99: Double
        var max: Double

        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            count = sorted.count
            func rank(_ fraction: Double) -> Double {
                sorted.isEmpty ? 0 : sorted[Swift.max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1)]
            }
            p50 = rank(0.5)
            p99 = rank(0.99)
            max = sorted.last ?? 0
        }
    }

    init(_ outcome: LoadRun.Outcome, workers: Int) {
        for (worker, failure) in outcome.failures.sorted(by: { $0.key < $1.key }) {
            problems.append("worker \(worker) \(failure)")
        }
        var lags: [Double] = []
        var committedAt: [Int64: Double] = [:]
        for report in outcome.reports {
            for error in report.errors { problems.append("worker \(report.worker): \(error)") }
            saves += report.saves.count
            increments += report.saves.reduce(0) { $0 + Int64($1.increments) }
            attempts += report.attemptLatencies.count
            conflicts += report.conflicts
            maxAttempts = max(maxAttempts, report.saves.map(\.attempts).max() ?? 0)
            ticks[report.worker] = Set(report.saves.map(\.tick))
            for save in report.saves { committedAt[save.tick] = save.committedAt }
        }
        let all = outcome.reports
        window = (all.map(\.stoppedAt).max() ?? 0) - (all.map(\.startedAt).min() ?? 0)
        attemptLatency = Percentiles(all.flatMap(\.attemptLatencies))
        saveLatency = Percentiles(all.flatMap { $0.saves.map(\.latency) })

        // No update lost, none made up: the store holds exactly what the workers committed.
        let committed = ticks.values.reduce(into: Set<Int64>()) { $0.formUnion($1) }
        if outcome.final.counterSum != increments {
            problems.append("the counters add up to \(outcome.final.counterSum), but the workers committed \(increments) increments")
        }
        if outcome.final.ticks != committed {
            problems.append("the store holds \(outcome.final.ticks.count) ticks, the workers committed \(committed.count) saves; \(outcome.final.ticks.subtracting(committed).count) in the store only, \(committed.subtracting(outcome.final.ticks).count) missing")
        }
        if outcome.final.tickAmounts != increments {
            problems.append("the ticks in the store count \(outcome.final.tickAmounts) increments, the workers committed \(increments)")
        }
        if outcome.final.done != Array(0..<workers) {
            problems.append("the store holds the Done of workers \(outcome.final.done), not of all \(workers)")
        }
        // Every worker received every other worker's every save, once, through notifications.
        let allDone = Set(all.compactMap(\.done))
        for report in all {
            let expected = committed.subtracting(ticks[report.worker] ?? [])
            let received = Set(report.receivedTicks)
            if received != expected {
                problems.append("worker \(report.worker) was told of \(received.count) saves of the others, which committed \(expected.count): \(expected.subtracting(received).count) never arrived, \(received.subtracting(expected).count) it should not have been told of")
            }
            if received.count != report.receivedTicks.count {
                problems.append("worker \(report.worker) was told of \(report.receivedTicks.count - received.count) saves twice")
            }
            if !report.sawEveryoneFinish || Set(report.receivedDone) != allDone.subtracting(report.done.map { [$0] } ?? []) {
                problems.append("worker \(report.worker) saw \(report.receivedDone.count) of the \(workers - 1) other workers finish")
            }
            for (tick, at) in zip(report.receivedTicks, report.receivedAt) {
                if let saved = committedAt[tick] { lags.append((at - saved) * 1000) }
            }
        }
        notificationLag = Percentiles(lags)
    }

    /// The table `strata-pg-stress run` prints.
    func table(_ outcome: LoadRun.Outcome, run: LoadRun) -> String {
        func ms(_ value: Double) -> String { String(format: "%.1f", value) }
        var lines = [
            "strata-pg-stress: \(run.workers) worker processes × \(Int(run.seconds)) s, \(run.counters) counters, \(run.incrementsPerSave) increments per save",
            "",
            "worker  saves  attempts  conflicts  attempt p50/p99 ms  save p50/p99 ms  told of",
        ]
        func cell(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        for report in outcome.reports.sorted(by: { $0.worker < $1.worker }) {
            let attempt = Percentiles(report.attemptLatencies)
            let save = Percentiles(report.saves.map(\.latency))
            let cells: [String] = [
                cell(String(report.worker), 6), cell(String(report.saves.count), 5), cell(String(report.attemptLatencies.count), 8),
                cell(String(report.conflicts), 9), cell(ms(attempt.p50) + "/" + ms(attempt.p99), 18), cell(ms(save.p50) + "/" + ms(save.p99), 15),
                String(report.receivedTicks.count),
            ]
            lines.append(cells.joined(separator: "  "))
        }
        func perSecond(_ count: Int) -> Double { window > 0 ? Double(count) / window : 0 }
        let conflictShare = attempts > 0 ? Double(conflicts) * 100 / Double(attempts) : 0
        lines += [
            "",
            "throughput:   \(String(format: "%.0f", perSecond(saves))) saves/s committed (\(saves) in \(String(format: "%.1f", window)) s), \(String(format: "%.0f", perSecond(attempts))) attempts/s",
            "conflicts:    \(conflicts) (\(String(format: "%.1f", conflictShare))% of attempts), at most \(maxAttempts) attempts for one save",
            "per attempt:  p50 \(ms(attemptLatency.p50)) ms, p99 \(ms(attemptLatency.p99)) ms, max \(ms(attemptLatency.max)) ms (fetch, increments, save)",
            "per save:     p50 \(ms(saveLatency.p50)) ms, p99 \(ms(saveLatency.p99)) ms, max \(ms(saveLatency.max)) ms (first attempt to commit, retries included)",
            "processes:    each ended \(String(format: "%.1f", outcome.lifetimes.values.min() ?? 0))–\(String(format: "%.1f", outcome.lifetimes.values.max() ?? 0)) s after it was started (bound \(Int(run.seconds + run.drainSeconds + run.graceSeconds)) s; the store was prepared in \(String(format: "%.1f", outcome.preparation)) s)",
            "notification: p50 \(ms(notificationLag.p50)) ms, p99 \(ms(notificationLag.p99)) ms, max \(ms(notificationLag.max)) ms from commit to another worker's coordinator (\(notificationLag.count) deliveries)",
            "",
        ]
        if problems.isEmpty {
            lines.append("invariants:   hold — counters add up to the \(increments) committed increments, the store holds exactly the \(saves) committed saves, every worker was told of every other worker's saves, every worker ended in time")
        } else {
            lines.append("invariants:   BROKEN")
            lines += problems.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
