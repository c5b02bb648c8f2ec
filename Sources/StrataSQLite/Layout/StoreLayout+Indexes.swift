internal import Foundation
internal import Strata

extension StoreLayout {
    /// Strata's index names start with one of these (``columnIndexName(_:_:)``,
    /// ``modelIndexName(_:_:)``, ``uniqueIndexName(_:_:)``); other indexes in the file are
    /// someone else's and are left alone.
    static let indexPrefixes = ["index.", "named.", "unique."]

    /// What makes the file's indexes on this layout's tables exactly ``indexDefinitions``:
    /// Strata-named indexes whose name or SQL no longer matches, to drop, and the layout's
    /// indexes the file lacks (or has with other SQL), to create. Only tables that exist are
    /// looked at — a file may hold another configuration's tables, whose indexes another
    /// layout owns. Reads `sqlite_master` only: indexes are not in the model's version hash,
    /// so a store opens with a model that adds or removes one, and this finds what to do.
    func indexChanges(_ database: Database) throws(StrataError) -> (drop: [String], create: [(name: String, table: String, sql: String)]) {
        var tablesExisting: Set<String> = []
        var existing: [String: (table: String, sql: String)] = [:]
        try database.each("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index')", []) { row in
            if row.text(0) == "table" {
                tablesExisting.insert(row.text(1))
            } else if !row.isNull(3) {
                existing[row.text(1)] = (row.text(2), row.text(3))
            }
        }
        let mine = Set(tables.keys).union(joinTables.map(\.name))
        let wanted = indexDefinitions.filter { tablesExisting.contains($0.table) }
        let wantedSQL = Dictionary(wanted.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        let drop = existing.keys.sorted().filter { name in
            let index = existing[name]!
            return mine.contains(index.table) && Self.indexPrefixes.contains(where: name.hasPrefix) && wantedSQL[name] != index.sql
        }
        let create = wanted.filter { existing[$0.name]?.sql != $0.sql }
        return (drop, create)
    }

    /// Brings the indexes of a store opened for writing to this layout's (``indexChanges(_:)``):
    /// nothing is written when they match, which is the common case; otherwise one write
    /// transaction, which looks again under the lock.
    func reconcileIndexes(_ database: Database) throws(StrataError) {
        let first = try indexChanges(database)
        guard !first.drop.isEmpty || !first.create.isEmpty else { return }
        try FileChange.run(on: database) { (database) throws(StrataError) -> FileChange? in
            let changes = try indexChanges(database)
            guard !changes.drop.isEmpty || !changes.create.isEmpty else { return nil }
            return FileChange(steps: [FileChange.Step(failure: "cannot bring the store's indexes to the model's; the file is unchanged") { (database) throws(StrataError) in
                for name in changes.drop { try database.execute("DROP INDEX \(quoted(name))") }
                for index in changes.create { try database.execute(index.sql) }
            }])
        }
    }
}
