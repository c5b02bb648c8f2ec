import Foundation
import Strata

/// One run of the load test: a store prepared in a schema of its own, `workers` worker processes
/// started on it at once, each awaited within a bound, and what they report and the store holds.
struct LoadRun: Sendable {
    /// The `strata-pg-stress` executable that runs the workers.
    var executable: URL
    /// The store's URL, naming a schema that holds no store yet.
    var url: URL
    var workers = 8
    var seconds: Double = 60
    var counters = 16
    var incrementsPerSave = 2
    /// How long a worker that has finished waits for the others' last saves to arrive.
    var drainSeconds: Double = 60
    /// A worker still running this long after `seconds + drainSeconds` is taken as hung and killed.
    var graceSeconds: Double = 60

    /// What a run produced.
    struct Outcome: Sendable {
        var reports: [WorkerReport]
        /// Workers that did not end well: by index, what happened (hung, exit status, stderr).
        var failures: [Int: String]
        /// Seconds from starting the workers to each one's exit (to the nearest 0.05 s), by index.
        var lifetimes: [Int: Double]
        /// Seconds from preparing the store to starting the workers.
        var preparation: Double
        var final: LoadModel.FinalState
    }

    func run() throws -> Outcome {
        let began = Date()
        try LoadModel.prepare(url, counters: counters)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var processes: [(process: Process, report: URL, stderr: URL)] = []
        for worker in 0..<workers {
            let report = directory.appendingPathComponent("worker-\(worker).json")
            let stderr = directory.appendingPathComponent("worker-\(worker).stderr")
            try Data().write(to: stderr)
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "worker", "--worker", String(worker), "--workers", String(workers), "--seconds", String(seconds),
                "--increments", String(incrementsPerSave), "--drain-seconds", String(drainSeconds),
                "--report", report.path, url.absoluteString,
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: stderr)
            processes.append((process, report, stderr))
        }
        let started = Date()
        for entry in processes { try entry.process.run() }

        // Every worker must end by the bound; one that does not is reported and killed.
        let deadline = started.addingTimeInterval(seconds + drainSeconds + graceSeconds)
        var lifetimes: [Int: Double] = [:]
        while lifetimes.count < processes.count, Date() < deadline {
            for (worker, entry) in processes.enumerated() where lifetimes[worker] == nil && !entry.process.isRunning {
                lifetimes[worker] = Date().timeIntervalSince(started)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        var failures: [Int: String] = [:]
        for (worker, entry) in processes.enumerated() where entry.process.isRunning {
            failures[worker] = "still running \(Int(seconds + drainSeconds + graceSeconds)) s after it started (hung): killed"
            entry.process.terminate()
            Thread.sleep(forTimeInterval: 2)
            if entry.process.isRunning { kill(entry.process.processIdentifier, SIGKILL) }
        }
        var reports: [WorkerReport] = []
        for (worker, entry) in processes.enumerated() {
            entry.process.waitUntilExit()
            let stderr = String(decoding: (try? Data(contentsOf: entry.stderr)) ?? Data(), as: UTF8.self)
            if failures[worker] == nil, entry.process.terminationStatus != 0 {
                failures[worker] = "exited with status \(entry.process.terminationStatus): \(stderr)"
            }
            guard let data = try? Data(contentsOf: entry.report), let report = try? JSONDecoder().decode(WorkerReport.self, from: data) else {
                failures[worker] = (failures[worker] ?? "") + " (no report)"
                continue
            }
            reports.append(report)
        }
        return Outcome(
            reports: reports, failures: failures, lifetimes: lifetimes, preparation: started.timeIntervalSince(began),
            final: try LoadModel.finalState(url))
    }
}
