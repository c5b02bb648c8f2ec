public import Foundation
public import Strata

extension SQLiteStoreFactory: StoreIntegrityChecking {
    /// Every object read through the store's reading API, the key counters of `strata_keys`,
    /// and what only SQL can see: `PRAGMA integrity_check`, rows whose `_entity` names no
    /// concrete entity of their table (fetches skip them), join rows whose source or
    /// destination does not exist (fetches join them away), hierarchies without a key counter.
    /// The file is opened without being changed (no missing index is created, say).
    public func checkInput(at url: URL, schema: Schema) throws(StrataError) -> StoreCheckInput {
        let store = try SQLiteStore(url: url, schema: schema, options: [SQLiteStore.readOnlyOption: "true"])
        let (problems, counters) = try store.layoutCheck()
        var input = StoreCheckInput.reading(store, schema: schema, keyCounters: counters)
        input.problems = problems + input.problems
        return input
    }
}

extension SQLiteStore {
    /// The problems of the file and its layout, and the key counters by root entity.
    func layoutCheck() throws(StrataError) -> (problems: [StoreProblem], keyCounters: [String: Int64]) {
        let layout = self.layout
        return try pool.read { (database) throws(StrataError) -> ([StoreProblem], [String: Int64]) in
            var problems: [StoreProblem] = []
            // https://sqlite.org/pragma.html#pragma_integrity_check: one row "ok", or one row
            // per problem found.
            let integrity = try database.rows("PRAGMA integrity_check") { $0.text(0) }
            if integrity != ["ok"] {
                for line in integrity {
                    problems.append(StoreProblem(.fileIntegrity, message: "SQLite's integrity_check: \(line)"))
                }
            }
            for table in layout.tables.values.sorted(by: { $0.name < $1.name }) where table.hasEntityColumn {
                let concrete = table.entityNames.filter { layout.schema.entity(named: $0)?.isAbstract == false }
                let sql = "SELECT \"_pk\", \"_entity\" FROM \(quoted(table.name)) WHERE \"_entity\" IS NULL OR \"_entity\" NOT IN (\(concrete.map(literal).joined(separator: ", "))) ORDER BY \"_pk\""
                try database.each(sql, []) { row in
                    let named = row.isNull(1) ? "NULL" : String(reflecting: row.text(1))
                    problems.append(StoreProblem(
                        .unknownEntity, entity: table.name, primaryKey: row.int64(0),
                        message: "the row's _entity is \(named), which is not a concrete entity of the '\(table.name)' hierarchy (\(concrete.joined(separator: ", "))); fetches skip the row"))
                }
            }
            for join in layout.joinTables.sorted(by: { $0.name < $1.name }) {
                let sql = """
                    SELECT l."source", l."destination",
                           EXISTS (SELECT 1 FROM \(quoted(join.sourceRoot)) WHERE "_pk" = l."source"),
                           EXISTS (SELECT 1 FROM \(quoted(join.destinationRoot)) WHERE "_pk" = l."destination")
                    FROM \(quoted(join.name)) AS l
                    WHERE NOT EXISTS (SELECT 1 FROM \(quoted(join.sourceRoot)) WHERE "_pk" = l."source")
                       OR NOT EXISTS (SELECT 1 FROM \(quoted(join.destinationRoot)) WHERE "_pk" = l."destination")
                    ORDER BY l."source", l."destination"
                    """
                try database.each(sql, []) { row in
                    var missing: [String] = []
                    if row.int64(2) == 0 { missing.append("source \(join.sourceRoot)/p\(row.int64(0))") }
                    if row.int64(3) == 0 { missing.append("destination \(join.destinationRoot)/p\(row.int64(1))") }
                    problems.append(StoreProblem(
                        .orphanJoinRow, entity: join.name,
                        message: "the row (source \(row.int64(0)), destination \(row.int64(1))) links objects that do not exist: \(missing.joined(separator: " and "))"))
                }
            }
            var counters: [String: Int64] = [:]
            try database.each("SELECT \"entity\", \"last\" FROM \"strata_keys\"", []) { row in
                counters[row.text(0)] = row.int64(1)
            }
            for root in layout.tables.keys.sorted() where counters[root] == nil {
                problems.append(StoreProblem(
                    .fileIntegrity, entity: root,
                    message: "strata_keys has no key counter for the '\(root)' hierarchy; new objects cannot be given keys"))
            }
            return (problems, counters)
        }
    }
}
