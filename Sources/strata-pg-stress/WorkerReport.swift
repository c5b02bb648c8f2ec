import Foundation

/// What one worker process did, written as JSON to the file its `--report` names.
///
/// Times are seconds since 1970 on the machine's clock (every worker runs on this machine, so
/// they compare); latencies are milliseconds.
struct WorkerReport: Codable, Sendable {
    /// One committed save: the key of the `Tick` it inserted, how many increments it made, when
    /// `save()` returned, how many attempts it took, and its latency from the start of the first
    /// attempt to the commit (retries included).
    struct Save: Codable, Sendable {
        var tick: Int64
        var increments: Int
        var committedAt: Double
        var attempts: Int
        var latency: Double
    }

    var worker: Int
    var processID: Int32
    /// When the worker started and stopped saving.
    var startedAt: Double
    var stoppedAt: Double
    var saves: [Save]
    /// The latency of every attempt (fetch, increments, save), committed or not.
    var attemptLatencies: [Double]
    /// Attempts that failed with `mergeConflict` (and were retried).
    var conflicts: Int
    /// Attempts that failed otherwise: the error's code and message. Any is a failure of the run.
    var errors: [String]
    /// The key of the worker's own `Done`; nil when it could not save it.
    var done: Int64?
    /// Every `Tick` another worker saved that this one's coordinator announced as a remote
    /// change (a `SaveNotification` without a source context), with when it did.
    var receivedTicks: [Int64]
    var receivedAt: [Double]
    /// The `Done`s of other workers announced to this one.
    var receivedDone: [Int64]
    /// Whether the other workers' `Done`s all arrived before the worker gave up waiting.
    var sawEveryoneFinish: Bool
}
