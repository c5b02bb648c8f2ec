import ArgumentParser
import Foundation
import Strata
import StrataPostgres

/// `strata-pg-stress`: the PostgreSQL store's load test (issue 17). Not a product: the tests
/// (Tests/StrataPostgresTests/PostgresLoadTests.swift) run it from the build's products
/// directory, and Scripts/postgres-load-test.sh for a developer.
@main
struct StressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-pg-stress",
        abstract: "Worker processes doing conflicting read-modify-write saves on one PostgreSQL store.",
        subcommands: [Run.self, Worker.self],
        defaultSubcommand: Run.self
    )

    /// Starts the workers, checks the invariants and prints the table.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the load test and print its throughput, latencies and invariants.",
            discussion: """
                Creates a store in a new schema (strata_load_<random>, or the URL's schema, which must \
                not hold a store), starts the worker processes, waits for each within a bound, checks \
                that no update was lost and that every worker was told of every other worker's saves, \
                and drops the schema (unless --keep). Exits 1 when an invariant is broken.
                """
        )

        @Option(help: "Worker processes.") var workers = 8
        @Option(help: "Seconds each worker saves for.") var seconds: Double = 60
        @Option(help: "Counters the workers increment.") var counters = 16
        @Option(help: "Counters each save increments.") var increments = 2
        @Flag(help: "Keep the schema afterwards.") var keep = false
        @Argument(help: "The server: postgres://user@host:port/database[?schema=name].") var url: String

        func run() throws {
            guard var components = URLComponents(string: url) else { throw ValidationError("not a URL: \(url)") }
            if !(components.queryItems ?? []).contains(where: { $0.name == "schema" }) {
                let name = "strata_load_" + UUID().uuidString.prefix(8).lowercased()
                components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: name)]
            }
            guard let store = components.url else { throw ValidationError("not a URL: \(url)") }
            guard let executable = Bundle.main.executableURL else { throw ValidationError("cannot tell where strata-pg-stress is") }
            let run = LoadRun(executable: executable, url: store, workers: workers, seconds: seconds, counters: counters, incrementsPerSave: increments)
            defer { if !keep { try? PostgresStoreFactory().destroyStore(at: store) } }
            let outcome = try run.run()
            let summary = LoadSummary(outcome, workers: workers)
            print(summary.table(outcome, run: run))
            if !summary.problems.isEmpty { throw ExitCode(1) }
        }
    }

    /// One worker process; its report goes to `--report` as JSON.
    struct Worker: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One worker (started by run, or by the tests).")

        @Option var worker: Int
        @Option var workers: Int
        @Option var seconds: Double
        @Option var increments: Int
        @Option var drainSeconds: Double
        @Option var report: String
        @Argument var url: String

        func run() throws {
            guard let store = URL(string: url) else { throw ValidationError("not a URL: \(url)") }
            let worker = LoadWorker(url: store, worker: worker, workers: workers, seconds: seconds, incrementsPerSave: increments, drainSeconds: drainSeconds)
            let result = try worker.run()
            try JSONEncoder().encode(result).write(to: URL(fileURLWithPath: report))
        }
    }
}
