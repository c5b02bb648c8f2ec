internal import Foundation
internal import Strata

/// The rows of a bulk load (and the relationships known as soon as they are read, and the
/// indexes once every row is there), written on a thread of their own while the reader parses
/// the next ones and resolves the relationships: reading JSON and running SQLite's inserts each take about half of a load, so on two
/// cores the load takes little more than the longer of the two.
///
/// The reader appends operations to a batch; a full batch is handed to the writer thread, which
/// binds and steps them, in order, through `write` on the load's connection. At most two batches wait, so memory
/// stays bounded however large the load. ``drain()`` waits until every row is written and
/// rethrows the first error; the connection is used by one thread at a time (the writer's until
/// then, the caller's after), as SQLite's multi-thread mode requires.
final class BulkRowWriter: @unchecked Sendable {
    /// One row to insert (its entity index, key and values; its to-one keys in
    /// ``Batch/keys``), or one relationship to write (its members' keys in ``Batch/keys``).
    enum Operation {
        case insert(entity: Int, key: Int64, values: AttributeValues, keys: Range<Int>)
        case relate(entity: Int, key: Int64, relationship: Int, members: Range<Int>)
        /// Whatever is done once every row is written (the indexes).
        case completeRows
    }

    /// Operations handed to the writer together, with their keys flat (0 for no to-one: keys
    /// start at 1) and, for a relationship's members, their entities beside them.
    struct Batch {
        var operations: [Operation] = []
        var keys: [Int64] = []
        var entities: [Int] = []
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
        current.operations.reserveCapacity(Self.batchSize)
        let thread = Thread { [self] in run() }
        thread.name = "strata bulk load"
        thread.start()
    }

    /// Adds a row; hands the batch over when it is full (waiting while two batches wait).
    func insert(entity: Int, key: Int64, values: AttributeValues, toOneKeys: [Int64?]) {
        let start = current.keys.count
        for key in toOneKeys {
            current.keys.append(key ?? 0)
            current.entities.append(-1)
        }
        current.operations.append(.insert(entity: entity, key: key, values: values, keys: start..<current.keys.count))
        if current.operations.count >= Self.batchSize { handOver() }
    }

    /// Adds a relationship of a row added before.
    func relate(entity: Int, key: Int64, relationship: Int, members: [(entity: Int, key: Int64)]) {
        let start = current.keys.count
        for member in members {
            current.keys.append(member.key)
            current.entities.append(member.entity)
        }
        current.operations.append(.relate(entity: entity, key: key, relationship: relationship, members: start..<current.keys.count))
        if current.operations.count >= Self.batchSize { handOver() }
    }

    /// Adds the step after the last row, and hands the batch over at once.
    func completeRows() {
        current.operations.append(.completeRows)
        handOver()
    }

    private func handOver() {
        guard !current.operations.isEmpty else { return }
        condition.lock()
        while waiting.count >= Self.waitingBatches && failure == nil { condition.wait() }
        // After a failure nothing more is written: the load is rolled back.
        if failure == nil { waiting.append(current) }
        condition.broadcast()
        condition.unlock()
        current = Batch()
        current.operations.reserveCapacity(Self.batchSize)
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
