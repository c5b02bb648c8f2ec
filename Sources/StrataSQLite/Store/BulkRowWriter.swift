internal import Foundation
internal import Strata

/// The rows of a bulk load, written on a thread of their own while the reader parses the next
/// ones: reading JSON and running SQLite's inserts each take about half of a load, so on two
/// cores the load takes little more than the longer of the two.
///
/// The reader appends rows to a batch; a full batch is handed to the writer thread, which binds
/// and steps them through `write` on the load's connection. At most two batches wait, so memory
/// stays bounded however large the load. ``drain()`` waits until every row is written and
/// rethrows the first error; the connection is used by one thread at a time (the writer's until
/// then, the caller's after), as SQLite's multi-thread mode requires.
final class BulkRowWriter: @unchecked Sendable {
    /// One row: its entity index, key and values, and where its to-one keys start in
    /// ``Batch/toOneKeys``.
    struct Row {
        let entity: Int
        let key: Int64
        let values: AttributeValues
        let toOneStart: Int
        let toOneCount: Int
    }

    /// Rows handed to the writer together; to-one keys flat, 0 for none (keys start at 1).
    struct Batch {
        var rows: [Row] = []
        var toOneKeys: [Int64] = []
    }

    static let batchSize = 512
    private static let waitingBatches = 2

    private let condition = NSCondition()
    private var waiting: [Batch] = []
    private var isClosed = false
    private var isFinished = false
    private var failure: StrataError?
    private var current = Batch()
    private let write: (Batch) throws(StrataError) -> Void

    /// Starts the writer thread; `write` runs on it, one batch at a time.
    init(write: @escaping (Batch) throws(StrataError) -> Void) {
        self.write = write
        current.rows.reserveCapacity(Self.batchSize)
        let thread = Thread { [self] in run() }
        thread.name = "strata bulk load"
        thread.start()
    }

    /// Adds a row; hands the batch over when it is full (waiting while two batches wait).
    func append(entity: Int, key: Int64, values: AttributeValues, toOneKeys: [Int64?]) {
        current.rows.append(Row(entity: entity, key: key, values: values, toOneStart: current.toOneKeys.count, toOneCount: toOneKeys.count))
        for key in toOneKeys { current.toOneKeys.append(key ?? 0) }
        if current.rows.count >= Self.batchSize { handOver() }
    }

    private func handOver() {
        guard !current.rows.isEmpty else { return }
        condition.lock()
        while waiting.count >= Self.waitingBatches && failure == nil { condition.wait() }
        // After a failure nothing more is written: the load is rolled back.
        if failure == nil { waiting.append(current) }
        condition.broadcast()
        condition.unlock()
        current = Batch()
        current.rows.reserveCapacity(Self.batchSize)
    }

    /// Writes every row appended so far and stops the thread; rethrows the first error.
    /// Calling it again does nothing more.
    func drain() throws(StrataError) {
        handOver()
        condition.lock()
        isClosed = true
        condition.broadcast()
        while !isFinished { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    private func run() {
        while true {
            condition.lock()
            while waiting.isEmpty && !isClosed { condition.wait() }
            guard !waiting.isEmpty else {
                isFinished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = waiting.removeFirst()
            condition.broadcast()
            let failed = failure != nil
            condition.unlock()
            guard !failed else { continue }
            do {
                try write(batch)
            } catch {
                condition.lock()
                failure = error
                waiting = []
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
