internal import Foundation
internal import Strata

/// Changes to a store's file carried out in one write transaction: the layout upgrade at open
/// (``StoreLayoutUpgrade``) and a schema migration (``SQLiteMigration``), which first upgrades
/// an old layout and then migrates, all in the same transaction.
///
/// ``run(on:planning:)`` takes the write lock (`BEGIN IMMEDIATE`), lets `planning` read the
/// file's state under it (its layout version, its model hash: another process may have done
/// the work since it was last read) and decide the steps, runs them in order, and writes the
/// new `strata_metadata` values last. Any error, or the death of the process, leaves the file
/// as it was: SQLite's transaction holds every change (https://sqlite.org/atomiccommit.html),
/// and nothing here writes outside it.
struct FileChange {
    /// One step: what it does (for errors), and the SQL it runs.
    struct Step {
        /// Put before the message of an error the step throws: "cannot upgrade …; the file is
        /// unchanged". Nil keeps the error as it is (it says what went wrong already).
        var failure: String?
        var apply: (Database) throws(StrataError) -> Void
    }

    var steps: [Step] = []
    /// `strata_metadata` rows written after the steps (inserted or replaced).
    var metadata: [(key: String, value: String)] = []

    /// Runs the change `planning` makes under the write lock; nil from it means nothing to do.
    /// - Returns: whether a change ran (and was committed).
    @discardableResult
    static func run(on database: Database, planning: (Database) throws(StrataError) -> FileChange?) throws(StrataError) -> Bool {
        try database.transaction(immediate: true) { () throws(StrataError) -> Bool in
            guard let change = try planning(database) else { return false }
            for step in change.steps {
                do throws(StrataError) {
                    try step.apply(database)
                } catch {
                    guard let failure = step.failure else { throw error }
                    var error = error
                    error.message = "\(failure): \(error.message)"
                    throw error
                }
            }
            for row in change.metadata {
                try database.run(
                    "INSERT INTO \"strata_metadata\" (\"key\", \"value\") VALUES (?1, ?2) ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
                    [.text(row.key), .text(row.value)])
            }
            return true
        }
    }
}
