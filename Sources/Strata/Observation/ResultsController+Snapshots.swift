extension ResultsController {
    /// The results as they change, as an async sequence: the current snapshot first (fetching
    /// it if ``performFetch()`` was not called), then a new one each time the results change.
    ///
    /// Read it in the controller's context's domain (the task or actor that uses the context):
    /// reading it is what brings the results up to date after other contexts' and processes'
    /// saves, so the reader sees them without calling ``processChanges()``. A reader that falls
    /// behind gets the latest results, never a stale one: snapshots are complete, so
    /// intermediate ones it had no time to read are skipped rather than queued (as GRDB's
    /// `ValueObservation` does); the delegate still hears of every change. The sequence ends
    /// when the reading task is cancelled, and throws when a fetch fails.
    ///
    /// ```swift
    /// for try await snapshot in controller.snapshots {
    ///     print(snapshot.sections.map { "\($0.name ?? "-"): \($0.objectIDs.count)" })
    /// }
    /// ```
    public var snapshots: Snapshots { Snapshots(controller: self) }

    /// The snapshots of a ``ResultsController`` as they change (see ``ResultsController/snapshots``).
    public struct Snapshots: AsyncSequence {
        public typealias Element = ResultsSnapshot
        public typealias Failure = StrataError

        let controller: ResultsController

        public func makeAsyncIterator() -> Iterator {
            Iterator(controller: controller, signals: controller.inbox.signals().makeAsyncIterator())
        }

        /// Reads the snapshots of a ``ResultsController``.
        public struct Iterator: AsyncIteratorProtocol {
            let controller: ResultsController
            var signals: AsyncStream<Void>.Iterator
            /// The generation of the last snapshot returned; nil before the first.
            var delivered: Int?

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(StrataError) -> ResultsSnapshot? {
                if delivered == nil {
                    if !controller.hasFetched { try controller.performFetch() }
                    delivered = controller.generation
                    return controller.snapshot
                }
                while true {
                    try controller.processChanges()
                    if controller.generation != delivered {
                        delivered = controller.generation
                        return controller.snapshot
                    }
                    guard await signals.next(isolation: actor) != nil else { return nil }
                }
            }

            public mutating func next() async throws(StrataError) -> ResultsSnapshot? {
                try await next(isolation: nil)
            }
        }
    }
}
