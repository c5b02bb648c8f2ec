import Foundation
import Strata
import Testing
@testable import strata_pg_stress

/// The load test of issue 17: 8 worker processes (`strata-pg-stress worker`), each with its own
/// coordinator on one store, increment random counters with conflicting read-modify-write saves,
/// retrying on `mergeConflict`, for `STRATA_PG_LOAD_SECONDS` (default 60) seconds. Then:
/// - no update is lost or made up: the counters add up to exactly the increments the workers
///   committed, and the store holds exactly the ticks of their committed saves;
/// - no worker hangs: each ends within 60 s of its last save plus the time it waits for the
///   others' last saves (bounded too); one that does not is killed and reported;
/// - every worker's coordinator announced, as remote changes, every save every other worker
///   committed — each one, once, not only the last (its observer starts at the first history
///   row, so this holds whenever each process got going).
@Suite struct PostgresLoadTests {
    @Test func eightProcessesSavingConflictingIncrementsLoseNothingAndSeeEachOthersSaves() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let seconds = ProcessInfo.processInfo.environment["STRATA_PG_LOAD_SECONDS"].flatMap(Double.init) ?? 60
        let run = LoadRun(executable: try BuiltExecutable.url("strata-pg-stress"), url: place.url, workers: 8, seconds: seconds)
        let outcome = try run.run()
        let summary = LoadSummary(outcome, workers: run.workers)
        print(summary.table(outcome, run: run))

        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.reports.map(\.worker) == Array(0..<8))
        #expect(outcome.reports.flatMap(\.errors) == [])
        #expect(summary.saves > 0)
        // Exact equality: an increment lost or applied twice shows.
        #expect(outcome.final.counterSum == summary.increments)
        let committed = summary.ticks.values.reduce(into: Set<Int64>()) { $0.formUnion($1) }
        #expect(committed.count == summary.saves)
        #expect(outcome.final.ticks == committed)
        for report in outcome.reports {
            let others = committed.subtracting(summary.ticks[report.worker] ?? [])
            #expect(Set(report.receivedTicks) == others, "worker \(report.worker)")
            #expect(report.receivedTicks.count == others.count, "worker \(report.worker) was told of a save twice")
            #expect(report.sawEveryoneFinish, "worker \(report.worker)")
        }
        #expect(summary.problems == [])
    }
}
