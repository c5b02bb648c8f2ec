internal import CSQLite
public import Strata
internal import StrataSQL
internal import Synchronization

extension SQLiteStore {
    // MARK: - Fetching

    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        switch try plan(request) {
        case .nothing: return []
        case .inMemory(let reason): return try fetchInMemory(request, because: reason)
        case .sql(let table, let compiled):
            let records = try readCompiled { (database) throws(StrataError) -> [StoreRecord] in
                var decoder = RecordDecoder(store: self, table: table)
                var records: [StoreRecord] = []
                if request.fetchLimit > 0 { records.reserveCapacity(request.fetchLimit) }
                try database.each(compiled.select, compiled.arguments) { (row) throws(StrataError) in
                    records.append(try decoder.decode(row))
                }
                return records
            }
            if let records { return records }
            return try fetchInMemory(request, because: Self.refusedBySQLite)
        }
    }

    /// The IDs of the matching records, read from the key and entity columns only.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] {
        switch try plan(request, keysOnly: true) {
        case .nothing: return []
        case .inMemory(let reason): return try fetchInMemory(request, because: reason).map(\.objectID)
        case .sql(let table, let compiled):
            let identifier = storeIdentifier
            let ids = try readCompiled { (database) throws(StrataError) -> [ObjectID] in
                try database.rows(compiled.select, compiled.arguments) { (row) throws(StrataError) in
                    ObjectID(entityName: try entityName(row, table), storeIdentifier: identifier, primaryKey: row.int64(0))
                }
            }
            if let ids { return ids }
            return try fetchInMemory(request, because: Self.refusedBySQLite).map(\.objectID)
        }
    }

    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        switch try plan(request, sorted: false) {
        case .nothing: return 0
        case .inMemory(let reason): return try fetchInMemory(request, because: reason).count
        case .sql(_, let compiled):
            let value = try readCompiled { (database) throws(StrataError) -> SQLValue? in try database.scalar(compiled.count, compiled.arguments) }
            guard let value else {
                return try fetchInMemory(request, because: Self.refusedBySQLite).count
            }
            guard case .integer(let count) = value else { return 0 }
            return Int(count)
        }
    }

    /// Runs a compiled request on a reader; nil when SQLite refused the statement for one of
    /// its own limits (expression depth, parser stack, …) that the compiler does not foresee,
    /// so that the caller evaluates the request in memory instead.
    func readCompiled<T: Sendable>(_ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T? {
        try reading { (database) throws(StrataError) -> T? in
            database.clearLastError()
            do throws(StrataError) {
                return try body(database)
            } catch {
                if database.lastErrorWasLimit { return nil }
                throw error
            }
        }
    }

    /// How a request runs.
    private enum Plan {
        /// It names no entity this store holds.
        case nothing
        /// It spans several tables, or SQL cannot express it (the reason): the evaluator runs it.
        case inMemory(String)
        /// One statement on one table.
        case sql(TableLayout, CompiledFetch)
    }

    private func plan(_ request: StoreFetchRequest, sorted: Bool = true, keysOnly: Bool = false) throws(StrataError) -> Plan {
        let groups = try tables(of: request.entityNames)
        guard groups.count == 1 else { return groups.isEmpty ? .nothing : .inMemory(Self.severalTables) }
        let (table, names) = groups[0]
        var compiler = compiler()
        do {
            return .sql(table, try compiler.fetch(
                table: table, entityNames: names, predicate: request.predicate, sortDescriptors: sorted ? request.sortDescriptors : [],
                limit: request.fetchLimit, offset: request.fetchOffset, keysOnly: keysOnly))
        } catch {
            return .inMemory(error.reason)
        }
    }

    static let severalTables = "the entities are kept in several tables"
    static let refusedBySQLite = "SQLite refused the statement for one of its limits"

    /// Counts and logs a request answered in memory instead of in SQL, with the reason.
    func logFallback(_ reason: String, entityNames: [String]) {
        inMemoryFallbacks.add(1, ordering: .relaxed)
        logger.debug(
            "evaluating a fetch in memory: \(reason)",
            metadata: ["entities": "\(entityNames.joined(separator: ", "))", "store": "\(url?.path ?? "in memory")"])
    }

    func compiler() -> PredicateCompiler {
        var compiler = PredicateCompiler(layout: layout)
        compiler.storeIdentifier = storeIdentifier
        return compiler
    }

    /// The requested entities grouped by table, in request order.
    func tables(of entityNames: [String]) throws(StrataError) -> [(TableLayout, [String])] {
        var groups: [(TableLayout, [String])] = []
        for name in entityNames {
            let entity = try layout.entity(name)
            if let index = groups.firstIndex(where: { $0.0.name == entity.rootName }) {
                groups[index].1.append(name)
            } else {
                groups.append((entity.table, [name]))
            }
        }
        return groups
    }

    /// The fallback for a request SQL cannot express (or one spanning several tables): every
    /// candidate record in primary-key order, filtered, sorted and windowed in memory by the
    /// evaluator, reading related records from this store.
    ///
    /// Logs the reason (`because`) at `.debug`; without one, the caller has logged it.
    func fetchInMemory(_ request: StoreFetchRequest, because reason: String?) throws(StrataError) -> [StoreRecord] {
        if let reason { logFallback(reason, entityNames: request.entityNames) }
        var candidates: [StoreRecord] = []
        for (table, names) in try tables(of: request.entityNames) {
            let compiled: CompiledFetch
            var compiler = compiler()
            do {
                compiled = try compiler.fetch(table: table, entityNames: names, predicate: nil, sortDescriptors: [], limit: 0, offset: 0)
            } catch {
                throw StrataError(.invalidPredicate, "cannot read \(table.name): \(error.reason)", file: url?.path)
            }
            candidates += try reading { (database) throws(StrataError) -> [StoreRecord] in
                var decoder = RecordDecoder(store: self, table: table)
                return try database.rows(compiled.select, compiled.arguments) { (row) throws(StrataError) in try decoder.decode(row) }
            }
        }
        candidates.sort { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
        let evaluator = recordEvaluator()
        if let predicate = request.predicate {
            candidates = try evaluator.filter(candidates, by: predicate)
        }
        if !request.sortDescriptors.isEmpty {
            candidates = try RecordSorter.sort(candidates, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
        }
        let start = min(max(request.fetchOffset, 0), candidates.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, candidates.count) : candidates.count
        return Array(candidates[start..<end])
    }

    /// The in-memory evaluator over this store's records, loading related records on demand.
    func recordEvaluator() -> PredicateEvaluator<StoreRecord> {
        let schema = layout.schema
        return PredicateEvaluator(GraphAccessor<StoreRecord>(
            entity: { schema.entity(named: $0.objectID.entityName)! },
            objectID: { $0.objectID },
            attribute: { $0.attributes[$1] },
            toOne: { [self] (record, key) throws(StrataError) in
                guard let id = record.toOne[key] else { return nil }
                return try self.records(for: [id])[id]
            },
            toMany: { [self] (record, key) throws(StrataError) in
                let ids = record.lazyToMany.contains(key) ? try self.relatedObjectIDs(of: record.objectID, relationship: key) : (record.toMany[key] ?? [])
                let found = try self.records(for: ids)
                return ids.compactMap { found[$0] }
            }))
    }

    // MARK: - Records and relationships

    /// Batch sizes for `IN (…)` lists, so that a handful of statements covers every count.
    static let batchSizes = [1, 4, 16, 64, 256, 500]

    /// Runs `body` for `keys` in batches of ``batchSizes``: a batch's placeholders (`?, ?, …`)
    /// and its arguments, padded with its last key (which an `IN` list takes once), so that a
    /// few prepared statements serve any number of keys.
    static func forEachKeyBatch(_ keys: [Int64], _ body: (_ placeholders: String, _ arguments: [SQLValue]) throws(StrataError) -> Void) throws(StrataError) {
        var start = 0
        while start < keys.count {
            let remaining = keys.count - start
            let size = batchSizes.first { $0 >= remaining } ?? batchSizes.last!
            var arguments = keys[start..<min(start + size, keys.count)].map { SQLValue.integer($0) }
            while arguments.count < size { arguments.append(arguments[arguments.count - 1]) }
            try body(Array(repeating: "?", count: size).joined(separator: ", "), arguments)
            start += size
        }
    }

    public func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        var byTable: [String: [Int64]] = [:]
        var wanted = Set<ObjectID>()
        for id in objectIDs where id.storeIdentifier == storeIdentifier {
            guard let key = id.primaryKey, let entity = layout.entities[id.entityName] else { continue }
            if wanted.insert(id).inserted { byTable[entity.rootName, default: []].append(key) }
        }
        guard !wanted.isEmpty else { return [:] }
        let found = try reading { (database) throws(StrataError) -> [StoreRecord] in
            var records: [StoreRecord] = []
            for (root, keys) in byTable {
                let table = layout.tables[root]!
                var decoder = RecordDecoder(store: self, table: table)
                try Self.forEachKeyBatch(keys) { (placeholders, arguments) throws(StrataError) in
                    let sql = "SELECT \(PredicateCompiler.selectList(table, alias: "t")) FROM \(quoted(root)) AS t WHERE t.\"_pk\" IN (\(placeholders))"
                    records += try database.rows(sql, arguments) { (row) throws(StrataError) in try decoder.decode(row) }
                }
            }
            return records
        }
        var result: [ObjectID: StoreRecord] = [:]
        for record in found where wanted.contains(record.objectID) { result[record.objectID] = record }
        return result
    }

    public func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        guard objectID.storeIdentifier == storeIdentifier, let key = objectID.primaryKey,
              let entity = layout.entities[objectID.entityName], let storage = entity.toMany[relationship],
              let destination = entity.entity.relationship(named: relationship)?.destination,
              let destinationRoot = layout.entities[destination]?.rootName, let table = layout.tables[destinationRoot]
        else { return [] }
        let sql = Self.membersSQL(storage, table: table)
        return try reading { (database) throws(StrataError) -> [ObjectID] in
            try database.rows(sql, [.integer(key)]) { (row) throws(StrataError) in
                ObjectID(entityName: try entityName(row, table, kindOf: destination), storeIdentifier: storeIdentifier, primaryKey: row.int64(0))
            }
        }
    }

    /// The members of a to-many relationship of several objects, a statement per entity and
    /// batch of keys (`batchSizes`), each object's in stored order.
    public func relatedObjectIDs(of objectIDs: [ObjectID], relationship: String) throws(StrataError) -> [ObjectID: [ObjectID]] {
        var byEntity: [String: [ObjectID]] = [:]
        for id in objectIDs where id.storeIdentifier == storeIdentifier && id.primaryKey != nil {
            byEntity[id.entityName, default: []].append(id)
        }
        var members: [ObjectID: [ObjectID]] = [:]
        for (name, owners) in byEntity {
            guard let entity = layout.entities[name], let storage = entity.toMany[relationship],
                  let destination = entity.entity.relationship(named: relationship)?.destination,
                  let destinationRoot = layout.entities[destination]?.rootName, let table = layout.tables[destinationRoot]
            else { continue }
            var byKey: [Int64: ObjectID] = [:]
            for owner in owners {
                byKey[owner.primaryKey!] = owner
                members[owner] = []
            }
            let keys = Array(byKey.keys)
            let ownerColumn: Int32 = table.hasEntityColumn ? 2 : 1
            var start = 0
            while start < keys.count {
                let size = Self.batchSizes.first { $0 >= keys.count - start } ?? Self.batchSizes.last!
                var arguments = keys[start..<min(start + size, keys.count)].map { SQLValue.integer($0) }
                while arguments.count < size { arguments.append(arguments[arguments.count - 1]) }
                let sql = Self.membersSQL(storage, table: table, owners: size)
                let rows = try reading { (database) throws(StrataError) -> [(Int64, ObjectID)] in
                    try database.rows(sql, arguments) { (row) throws(StrataError) in
                        (row.int64(ownerColumn), ObjectID(
                            entityName: try entityName(row, table, kindOf: destination), storeIdentifier: storeIdentifier, primaryKey: row.int64(0)))
                    }
                }
                for (key, member) in rows { if let owner = byKey[key] { members[owner]?.append(member) } }
                start += size
            }
        }
        return members
    }

    /// The members of a to-many relationship of the objects whose keys are the `owners`
    /// parameters: their keys, their entity names where the table has them, and their owner's
    /// key, by owner and in stored order.
    static func membersSQL(_ storage: ToManyStorage, table: TableLayout, owners: Int) -> String {
        let entity = table.hasEntityColumn ? ", m.\"_entity\"" : ""
        let parameters = Array(repeating: "?", count: owners).joined(separator: ", ")
        switch storage {
        case .foreignKey(let name, let column, let orderColumn, let filter):
            var sql = "SELECT m.\"_pk\"\(entity), m.\(quoted(column)) FROM \(quoted(name)) AS m WHERE m.\(quoted(column)) IN (\(parameters))"
            if let filter { sql += " AND m.\"_entity\" IN (\(filter.map(literal).joined(separator: ", ")))" }
            return sql + " ORDER BY m.\(quoted(column)), " + (orderColumn.map { "m.\(quoted($0)), " } ?? "") + "m.\"_pk\""
        case .joinTable(let name, let own, let other, let orderColumn, let otherRoot):
            return "SELECT m.\"_pk\"\(entity), l.\(quoted(own)) FROM \(quoted(name)) AS l JOIN \(quoted(otherRoot)) AS m ON m.\"_pk\" = l.\(quoted(other)) WHERE l.\(quoted(own)) IN (\(parameters)) ORDER BY l.\(quoted(own)), "
                + (orderColumn.map { "l.\(quoted($0)), " } ?? "") + "l.\(quoted(other))"
        }
    }

    /// The members of a to-many relationship of the object whose key is `?1`, in stored order:
    /// their keys, and their entity names where the table has them.
    static func membersSQL(_ storage: ToManyStorage, table: TableLayout) -> String {
        let entity = table.hasEntityColumn ? ", m.\"_entity\"" : ""
        switch storage {
        case .foreignKey(let name, let column, let orderColumn, let filter):
            var sql = "SELECT m.\"_pk\"\(entity) FROM \(quoted(name)) AS m WHERE m.\(quoted(column)) = ?1"
            if let filter { sql += " AND m.\"_entity\" IN (\(filter.map(literal).joined(separator: ", ")))" }
            return sql + " ORDER BY " + (orderColumn.map { "m.\(quoted($0)), " } ?? "") + "m.\"_pk\""
        case .joinTable(let name, let own, let other, let orderColumn, let otherRoot):
            return "SELECT m.\"_pk\"\(entity) FROM \(quoted(name)) AS l JOIN \(quoted(otherRoot)) AS m ON m.\"_pk\" = l.\(quoted(other)) WHERE l.\(quoted(own)) = ?1 ORDER BY "
                + (orderColumn.map { "l.\(quoted($0)), " } ?? "") + "l.\(quoted(other))"
        }
    }
}

/// Turns rows of a table (selected with ``PredicateCompiler/selectList(_:alias:)``) into
/// records, with every to-many relationship left lazy.
///
/// Strict: a row whose entity is not of the table's hierarchy, or whose value in a column is not
/// of the column's type, is an error naming the table, the row and the column, never a record
/// with something else in its place.
struct RecordDecoder {
    let store: SQLiteStore
    let table: TableLayout
    private var lastEntity: EntityLayout?
    /// An ID of `lastEntity`'s objects, from which the next row's ID is made without looking
    /// the entity's and the store's names up again.
    private var lastScope: (entity: EntityLayout, id: ObjectID)?

    init(store: SQLiteStore, table: TableLayout) {
        self.store = store
        self.table = table
        if !table.hasEntityColumn { lastEntity = store.layout.entities[table.name] }
    }

    mutating func decode(_ row: Statement) throws(StrataError) -> StoreRecord {
        let key = row.int64(0)
        let entity: EntityLayout
        if table.hasEntityColumn {
            let name = row.text(1)
            if let last = lastEntity, last.entity.name == name {
                entity = last
            } else {
                entity = try store.entityLayout(named: name, in: table, row: row, column: 1)
                lastEntity = entity
            }
        } else if let found = lastEntity {
            entity = found
        } else {
            throw store.corruptRow(table, key: key, row: row, column: 0, expected: "a row of an entity this store holds")
        }
        let versionColumn: Int32 = table.hasEntityColumn ? 2 : 1
        guard row.type(versionColumn) == SQLITE_INTEGER else {
            throw store.corruptRow(table, key: key, row: row, column: versionColumn, expected: "a version number (an integer)")
        }
        let version = row.int64(versionColumn)
        let columns = entity.columnsByPosition
        let attributes = try AttributeValues(layout: entity.entity.attributeLayout) { (position) throws(StrataError) -> AttributeValue? in
            guard let slot = columns[position] else { return nil }
            do throws(ValueCodec.Mismatch) {
                return try ValueCodec.decode(row, slot.column, as: slot.type)
            } catch {
                throw store.corruptRow(table, key: key, row: row, column: slot.column, expected: error.expected)
            }
        }
        var toOne: [String: ObjectID] = [:]
        for relationship in entity.toOnes where !row.isNull(relationship.column) {
            guard row.type(relationship.column) == SQLITE_INTEGER else {
                throw store.corruptRow(table, key: key, row: row, column: relationship.column, expected: "the primary key (an integer) of a \(relationship.destination)")
            }
            var name = relationship.destination
            if let entityColumn = relationship.entityColumn {
                name = row.text(entityColumn)
                guard let destination = store.layout.schema.entity(named: name),
                      name == relationship.destination || destination.ancestorNames.contains(relationship.destination) else {
                    throw store.corruptRow(table, key: key, row: row, column: entityColumn, expected: "the name of \(relationship.destination) or one of its subentities")
                }
            }
            toOne[relationship.name] = ObjectID(entityName: name, storeIdentifier: store.storeIdentifier, primaryKey: row.int64(relationship.column))
        }
        let id: ObjectID
        if let lastScope, lastScope.entity === entity {
            id = ObjectID(scope: lastScope.id, primaryKey: key)
        } else {
            id = ObjectID(entityName: entity.entity.name, storeIdentifier: store.storeIdentifier, primaryKey: key)
            lastScope = (entity, id)
        }
        return StoreRecord(objectID: id, attributes: attributes, toOne: toOne, lazyToMany: entity.lazyToMany, version: version)
    }
}

extension SQLiteStore {
    /// The layout of the entity named in a row's `_entity` column; an error when the name is not
    /// an entity of the table's hierarchy (an object of it would trap or lie later).
    func entityLayout(named name: String, in table: TableLayout, row: Statement, column: Int32) throws(StrataError) -> EntityLayout {
        guard let found = layout.entities[name], found.rootName == table.name else {
            throw corruptRow(table, key: row.int64(0), row: row, column: column, expected: "the name of an entity of the \(table.name) hierarchy (\(table.entityNames.joined(separator: ", ")))")
        }
        return found
    }

    /// The entity of a row selected as `_pk, _entity, …` (or `_pk, …` from a table of one
    /// entity), checked; with `kind` (a relationship's destination), it must be that entity or
    /// one of its subentities, or a typed accessor would get an object of the wrong class.
    func entityName(_ row: Statement, _ table: TableLayout, kindOf kind: String? = nil) throws(StrataError) -> String {
        guard table.hasEntityColumn else { return table.name }
        let entity = try entityLayout(named: row.text(1), in: table, row: row, column: 1).entity
        if let kind, entity.name != kind && !entity.ancestorNames.contains(kind) {
            throw corruptRow(table, key: row.int64(0), row: row, column: 1, expected: "the name of \(kind) or one of its subentities")
        }
        return entity.name
    }

    /// The error for a stored value that is not what its column holds: the table, the row's
    /// primary key, the column, the value (shortened, control characters escaped) and what was
    /// expected.
    func corruptRow(_ table: TableLayout, key: Int64, row: Statement, column: Int32, expected: String) -> StrataError {
        let name = row.columnName(Int(column))
        return StrataError(
            .corruptStore,
            "table \(quoted(table.name)), row _pk = \(key), column \(quoted(name)): \(ValueCodec.describe(row.value(at: column))) is not \(expected). The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell",
            file: url?.path)
    }
}
