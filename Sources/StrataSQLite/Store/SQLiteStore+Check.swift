public import Foundation
public import Strata

extension SQLiteStoreFactory: StoreIntegrityChecking {
    /// Every object read through the store's reading API, the key counters of `strata_keys`,
    /// and what only SQL can see: `PRAGMA integrity_check`, rows whose `_entity` names no
    /// concrete entity of their table (fetches skip them), join rows whose source or
    /// destination does not exist (fetches join them away), hierarchies without a key counter,
    /// and shadow columns (`"_x_nfc"`, `"_x_key"`) that do not hold what `ComparisonKey`
    /// computes from their value (a row edited by hand: comparisons would use the stale key).
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
            for stale in try Self.staleComparisonKeys(layout, database) {
                problems.append(StoreProblem(
                    .staleComparisonKey, entity: stale.entity, primaryKey: stale.primaryKey, property: stale.attribute,
                    message: "the shadow column \(stale.column) holds \(ValueCodec.describe(stale.stored)), but for the value, \(ValueCodec.describe(stale.value)), it should hold \(ValueCodec.describe(stale.expected)) (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store"))
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

extension SQLiteStore {
    /// A shadow column that does not hold what `ComparisonKey` computes from its attribute's
    /// value.
    struct StaleComparisonKey: Sendable {
        let table: String
        /// The row's entity: its `_entity` when that names an entity of the table, else the table.
        let entity: String
        let primaryKey: Int64
        let attribute: String
        /// The shadow column, `"_x_nfc"` or `"_x_key"`.
        let column: String
        /// The attribute's value as stored.
        let value: SQLValue
        /// The shadow column's value as stored.
        let stored: SQLValue
        /// What a save would write: ``ComparisonKey/shadowValue(of:)`` of the value.
        let expected: SQLValue
    }

    /// Rewrites every shadow column (`"_x_nfc"`, `"_x_key"`) that does not hold what
    /// `ComparisonKey` computes from its attribute's value — after rows were edited by hand
    /// in the `sqlite3` shell, say — in one write transaction, as a save would write them.
    /// Values the store cannot read are left alone (a check reports them).
    /// - Returns: how many shadow values were rewritten; 0 when every one was right.
    /// - Throws: `storeIO` for a store opened for reading (or a file this process cannot
    ///   write); SQLite's errors. Nothing is written unless the whole transaction is.
    public func refreshComparisonKeys() throws(StrataError) -> Int {
        try checkWritable()
        let layout = self.layout
        return try pool.write { (database) throws(StrataError) -> Int in
            try database.transaction(immediate: true) { () throws(StrataError) -> Int in
                let stale = try Self.staleComparisonKeys(layout, database)
                for key in stale {
                    try database.run(
                        "UPDATE \(quoted(key.table)) SET \(quoted(key.column)) = ?1 WHERE \"_pk\" = ?2",
                        [key.expected, .integer(key.primaryKey)])
                }
                return stale.count
            }
        }
    }

    /// Every stale shadow value of the store, by table, then row, then column: one SELECT per
    /// table that has shadow columns (each value beside its shadow), keys computed in Swift.
    static func staleComparisonKeys(_ layout: StoreLayout, _ database: Database) throws(StrataError) -> [StaleComparisonKey] {
        var stale: [StaleComparisonKey] = []
        for table in layout.tables.values.sorted(by: { $0.name < $1.name }) {
            var pairs: [(attribute: String, type: AttributeType, shadow: String)] = []
            for column in table.columns {
                let attribute: String
                switch column.role {
                case .stringKey(let name), .decimalKey(let name): attribute = name
                default: continue
                }
                guard case .attribute(let type)? = table.column(attribute)?.role else { continue }
                pairs.append((attribute, type, column.name))
            }
            guard !pairs.isEmpty else { continue }
            var names = ["\"_pk\""]
            if table.hasEntityColumn { names.append("\"_entity\"") }
            let first = Int32(names.count)
            for pair in pairs { names += [quoted(pair.attribute), quoted(pair.shadow)] }
            let entities = Set(table.entityNames)
            let sql = "SELECT \(names.joined(separator: ", ")) FROM \(quoted(table.name)) ORDER BY \"_pk\""
            try database.each(sql, []) { row in
                for (offset, pair) in pairs.enumerated() {
                    let index = first + Int32(2 * offset)
                    // A value the reader refuses is reported as such; a save would rewrite both.
                    let value: AttributeValue?
                    do { value = try ValueCodec.decode(row, index, as: pair.type) } catch { continue }
                    let expected = ComparisonKey.shadowValue(of: value)
                    let stored = row.value(at: index + 1)
                    guard stored != expected else { continue }
                    var entity = table.name
                    if table.hasEntityColumn, !row.isNull(1), entities.contains(row.text(1)) { entity = row.text(1) }
                    stale.append(StaleComparisonKey(
                        table: table.name, entity: entity, primaryKey: row.int64(0), attribute: pair.attribute,
                        column: pair.shadow, value: row.value(at: index), stored: stored, expected: expected))
                }
            }
        }
        return stale
    }
}
