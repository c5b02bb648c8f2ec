internal import Foundation
public import Strata

/// The store's record of changes, so that other processes see each save: every write
/// transaction that changes objects adds a row to `strata_history` in the same transaction —
/// which store instance wrote it, when, and the objects it inserted, updated and deleted — and
/// an observer reads the rows after the last one it saw whenever `PRAGMA data_version` says
/// another connection committed.
///
/// ```sql
/// CREATE TABLE "strata_history" (
///   "id" INTEGER PRIMARY KEY, "origin" TEXT NOT NULL, "committed" TEXT NOT NULL,
///   "inserted" TEXT NOT NULL, "updated" TEXT NOT NULL, "deleted" TEXT NOT NULL) STRICT
/// ```
///
/// Objects are written `Entity/key`, separated by spaces; `Entity/*` (in `updated`) says that
/// objects of the entity changed without being listed (a batch request that did not ask for its
/// rows, a bulk load, a save of more than ``historyListLimit`` objects of one kind).
///
/// The table is made by the first write that needs it (`CREATE TABLE IF NOT EXISTS`, in the
/// write's transaction), so files written before it existed stay as they are until written,
/// and a reader of such a file — read-only too — simply sees no record. Each write keeps the
/// last ``historyLimit`` rows and deletes older ones: an observer that fell further behind
/// (asleep, say) cannot tell what changed, and is told that every entity changed, so that it
/// reads its queries once again.
extension SQLiteStore {
    /// How many rows of `strata_history` every write keeps (older ones are deleted).
    public static let historyLimit: Int64 = 1000
    /// How many objects of one kind (inserted, updated, deleted) a history row lists; beyond
    /// it, their entities are recorded as changed without a list.
    public static let historyListLimit = 1000

    private static let historyCreation = """
        CREATE TABLE IF NOT EXISTS "strata_history" (
          "id" INTEGER PRIMARY KEY,
          "origin" TEXT NOT NULL,
          "committed" TEXT NOT NULL,
          "inserted" TEXT NOT NULL,
          "updated" TEXT NOT NULL,
          "deleted" TEXT NOT NULL
        ) STRICT
        """

    /// Records a change in the write transaction that makes it (nothing for a store in memory,
    /// which no other process sees).
    func recordChange(
        _ database: Database, inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = [], unlisted: Set<String> = []
    ) throws(StrataError) {
        guard url != nil, !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty && unlisted.isEmpty) else { return }
        var unlisted = unlisted
        func list(_ ids: [ObjectID]) -> String {
            guard ids.count <= Self.historyListLimit else {
                unlisted.formUnion(ids.map(\.entityName))
                return ""
            }
            return ids.map { "\($0.entityName)/\($0.primaryKey ?? 0)" }.joined(separator: " ")
        }
        let insertedText = list(inserted)
        let deletedText = list(deleted)
        var updatedText = list(updated)
        if !unlisted.isEmpty {
            updatedText = ([updatedText].filter { !$0.isEmpty } + unlisted.sorted().map { "\($0)/*" }).joined(separator: " ")
        }
        // Prepared once per connection (a cached statement), so a save pays a lookup of the
        // schema, not a parse.
        try database.run(Self.historyCreation)
        try database.run(
            "INSERT INTO \"strata_history\" (\"origin\", \"committed\", \"inserted\", \"updated\", \"deleted\") VALUES (?1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?2, ?3, ?4)",
            [.text(instanceIdentifier), .text(insertedText), .text(updatedText), .text(deletedText)])
        try database.run("DELETE FROM \"strata_history\" WHERE \"id\" <= last_insert_rowid() - ?1", [.integer(Self.historyLimit)])
    }

    /// Records what a batch update or delete changed: its rows when it listed them, else its
    /// entities.
    func recordBatch(_ outcome: StoreBatchOutcome, entities: [String], deleting: Bool, _ database: Database) throws(StrataError) {
        guard outcome.matchedCount > 0 else { return }
        if outcome.matched.count == outcome.matchedCount {
            try recordChange(database, updated: deleting ? [] : outcome.matched, deleted: deleting ? outcome.matched : [])
        } else {
            try recordChange(database, unlisted: Set(entities))
        }
    }

    /// Follows other processes' (and other store instances') saves to this file through
    /// `strata_history`, on a connection of its own: every 100 ms it asks `PRAGMA data_version`
    /// whether another connection committed, and if so reads the rows after the last one seen,
    /// leaving out this store instance's own. Nil for a store in memory.
    public func observeChanges(ofOtherProcesses handler: @escaping @Sendable (StoreRemoteChanges) -> Void) throws(StrataError) -> (any StoreChangeObserver)? {
        guard let access, let url else { return nil }
        let reader = try HistoryReader(
            connection: try access.open(), storeIdentifier: storeIdentifier, origin: instanceIdentifier,
            entityNames: Set(layout.entities.keys))
        return PollingChangeObserver(name: "strata.sqlite.changes \(url.lastPathComponent)", poll: { () throws(StrataError) in try reader.poll() }, handler: handler)
    }
}

/// Reads `strata_history` on its own connection (see ``SQLiteStore/observeChanges(ofOtherProcesses:)``).
final class HistoryReader: Sendable {
    private struct State {
        let database: Database
        var dataVersion: Int64?
        /// The last row read; nil until the table was first looked at.
        var lastID: Int64?
    }

    private let state: Locked<State>
    private let storeIdentifier: String
    private let origin: String
    private let entityNames: Set<String>

    init(connection: Database, storeIdentifier: String, origin: String, entityNames: Set<String>) throws(StrataError) {
        self.storeIdentifier = storeIdentifier
        self.origin = origin
        self.entityNames = entityNames
        var state = State(database: connection)
        try connection.execute("PRAGMA query_only = 1")
        state.dataVersion = try Self.dataVersion(connection)
        state.lastID = try Self.lastID(connection) ?? 0
        self.state = Locked(state)
    }

    private static func dataVersion(_ database: Database) throws(StrataError) -> Int64? {
        if case .integer(let version)? = try database.scalar("PRAGMA data_version") { return version }
        return nil
    }

    /// The last row of the table; nil when there is no table.
    private static func lastID(_ database: Database) throws(StrataError) -> Int64? {
        guard try database.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'strata_history'") != nil else { return nil }
        if case .integer(let id)? = try database.scalar("SELECT max(\"id\") FROM \"strata_history\"") { return id }
        return 0
    }

    /// What other store instances committed since the last poll, a row (a save) each.
    func poll() throws(StrataError) -> [StoreRemoteChanges] {
        try state.withLock { (state) throws(StrataError) -> [StoreRemoteChanges] in
            let database = state.database
            let version = try Self.dataVersion(database)
            guard version != state.dataVersion else { return [] }
            state.dataVersion = version
            guard let last = try Self.lastID(database) else { return [] }
            var changes: [StoreRemoteChanges] = []
            let seen = state.lastID ?? 0
            if case .text(let identifier)? = try database.scalar("SELECT \"value\" FROM \"strata_metadata\" WHERE \"key\" = ?1", [.text(StoreMetadata.Key.storeIdentifier)]),
               identifier != storeIdentifier {
                // Another store was copied into the file: anything may have changed.
                state.lastID = last
                return [StoreRemoteChanges(unlistedEntities: entityNames)]
            }
            if case .integer(let oldest)? = try database.scalar("SELECT min(\"id\") FROM \"strata_history\""), oldest > seen + 1 {
                // Rows this observer had not read were pruned: it cannot tell what they changed.
                changes.append(StoreRemoteChanges(unlistedEntities: entityNames))
            }
            let rows = try database.rows(
                "SELECT \"id\", \"origin\", \"inserted\", \"updated\", \"deleted\" FROM \"strata_history\" WHERE \"id\" > ?1 ORDER BY \"id\"",
                [.integer(seen)]) { row in (row.int64(0), row.text(1), row.text(2), row.text(3), row.text(4)) }
            for (id, origin, inserted, updated, deleted) in rows {
                state.lastID = id
                guard origin != self.origin else { continue }
                var row = StoreRemoteChanges()
                parse(inserted) { row.inserted.insert($0) } unlisted: { row.unlistedEntities.insert($0) }
                parse(updated) { row.updated.insert($0) } unlisted: { row.unlistedEntities.insert($0) }
                parse(deleted) { row.deleted.insert($0) } unlisted: { row.unlistedEntities.insert($0) }
                changes.append(row)
            }
            return changes
        }
    }

    /// The objects of a list (`Entity/key` or `Entity/*`, separated by spaces).
    private func parse(_ text: String, listed: (ObjectID) -> Void, unlisted: (String) -> Void) {
        for token in text.split(separator: " ") {
            guard let slash = token.lastIndex(of: "/") else { continue }
            let entity = String(token[..<slash])
            let key = token[token.index(after: slash)...]
            if key == "*" {
                unlisted(entity)
            } else if let key = Int64(key) {
                listed(ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key))
            }
        }
    }
}

extension SQLiteStore {
    /// Records a save's changeset.
    func recordChange(_ changes: StoreChangeset, _ database: Database) throws(StrataError) {
        try recordChange(
            database, inserted: changes.inserted.map(\.objectID), updated: changes.updated.map(\.objectID), deleted: changes.deleted.map(\.objectID))
    }
}
