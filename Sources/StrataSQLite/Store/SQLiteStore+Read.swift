public import Strata
internal import Synchronization

extension SQLiteStore {
    // MARK: - Fetching

    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        switch try plan(request) {
        case .nothing: return []
        case .inMemory: return try fetchInMemory(request)
        case .sql(let table, let compiled):
            return try pool.read { (database) throws(StrataError) -> [StoreRecord] in
                var decoder = RecordDecoder(store: self, table: table)
                var records: [StoreRecord] = []
                if request.fetchLimit > 0 { records.reserveCapacity(request.fetchLimit) }
                try database.each(compiled.select, compiled.arguments) { (row) throws(StrataError) in
                    records.append(try decoder.decode(row))
                }
                return records
            }
        }
    }

    /// The IDs of the matching records, read from the key and entity columns only.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] {
        switch try plan(request, keysOnly: true) {
        case .nothing: return []
        case .inMemory: return try fetchInMemory(request).map(\.objectID)
        case .sql(let table, let compiled):
            let identifier = storeIdentifier
            return try pool.read { (database) throws(StrataError) -> [ObjectID] in
                try database.rows(compiled.select, compiled.arguments) { (row) throws(StrataError) in
                    try self.rowID(row, of: table, storeIdentifier: identifier)
                }
            }
        }
    }

    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        switch try plan(request, sorted: false) {
        case .nothing: return 0
        case .inMemory: return try fetchInMemory(request).count
        case .sql(_, let compiled):
            let value = try pool.read { (database) throws(StrataError) -> SQLValue? in try database.scalar(compiled.count, compiled.arguments) }
            guard case .integer(let count) = value else { return 0 }
            return Int(count)
        }
    }

    /// How a request runs.
    private enum Plan {
        /// It names no entity this store holds.
        case nothing
        /// It spans several tables, or SQL cannot express it: the evaluator runs it.
        case inMemory
        /// One statement on one table.
        case sql(TableLayout, CompiledFetch)
    }

    private func plan(_ request: StoreFetchRequest, sorted: Bool = true, keysOnly: Bool = false) throws(StrataError) -> Plan {
        let groups = try tables(of: request.entityNames)
        guard groups.count == 1 else { return groups.isEmpty ? .nothing : .inMemory }
        let (table, names) = groups[0]
        var compiler = compiler()
        do {
            return .sql(table, try compiler.fetch(
                table: table, entityNames: names, predicate: request.predicate, sortDescriptors: sorted ? request.sortDescriptors : [],
                limit: request.fetchLimit, offset: request.fetchOffset, keysOnly: keysOnly))
        } catch {
            return .inMemory
        }
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
    func fetchInMemory(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        inMemoryFallbacks.add(1, ordering: .relaxed)
        var candidates: [StoreRecord] = []
        for (table, names) in try tables(of: request.entityNames) {
            let compiled: CompiledFetch
            var compiler = compiler()
            do {
                compiled = try compiler.fetch(table: table, entityNames: names, predicate: nil, sortDescriptors: [], limit: 0, offset: 0)
            } catch {
                throw StrataError(.invalidPredicate, "cannot read \(table.name): \(error.reason)", file: url?.path)
            }
            candidates += try pool.read { (database) throws(StrataError) -> [StoreRecord] in
                var decoder = RecordDecoder(store: self, table: table)
                return try database.rows(compiled.select, compiled.arguments) { (row) throws(StrataError) in try decoder.decode(row) }
            }
        }
        candidates.sort { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
        let evaluator = recordEvaluator()
        if let predicate = request.predicate {
            candidates = candidates.filter { evaluator.evaluate(predicate, on: $0) }
        }
        if !request.sortDescriptors.isEmpty {
            candidates = RecordSorter.sort(candidates, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
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
            toOne: { [self] record, key in
                guard let id = record.toOne[key] else { return nil }
                return (try? self.records(for: [id]))?[id]
            },
            toMany: { [self] record, key in
                let ids = record.lazyToMany.contains(key) ? ((try? self.relatedObjectIDs(of: record.objectID, relationship: key)) ?? []) : (record.toMany[key] ?? [])
                guard let found = try? self.records(for: ids) else { return [] }
                return ids.compactMap { found[$0] }
            }))
    }

    // MARK: - Records and relationships

    /// Batch sizes for `IN (…)` lists, so that a handful of statements covers every count.
    static let batchSizes = [1, 4, 16, 64, 256, 500]

    public func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        var byTable: [String: [Int64]] = [:]
        var wanted = Set<ObjectID>()
        for id in objectIDs where id.storeIdentifier == storeIdentifier {
            guard let key = id.primaryKey, let entity = layout.entities[id.entityName] else { continue }
            if wanted.insert(id).inserted { byTable[entity.rootName, default: []].append(key) }
        }
        guard !wanted.isEmpty else { return [:] }
        let found = try pool.read { (database) throws(StrataError) -> [StoreRecord] in
            var records: [StoreRecord] = []
            for (root, keys) in byTable {
                let table = layout.tables[root]!
                var decoder = RecordDecoder(store: self, table: table)
                var start = 0
                while start < keys.count {
                    let remaining = keys.count - start
                    let size = Self.batchSizes.first { $0 >= remaining } ?? Self.batchSizes.last!
                    let batch = keys[start..<min(start + size, keys.count)]
                    var arguments = batch.map { SQLValue.integer($0) }
                    while arguments.count < size { arguments.append(arguments[arguments.count - 1]) }
                    let sql = "SELECT \(PredicateCompiler.selectList(table, alias: "t")) FROM \(quoted(root)) AS t WHERE t.\"_pk\" IN (\(Array(repeating: "?", count: size).joined(separator: ", ")))"
                    records += try database.rows(sql, arguments) { (row) throws(StrataError) in try decoder.decode(row) }
                    start += size
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
        return try pool.read { (database) throws(StrataError) -> [ObjectID] in
            try database.rows(sql, [.integer(key)]) { (row) throws(StrataError) in
                try rowID(row, of: table, kindOf: destination, storeIdentifier: storeIdentifier)
            }
        }
    }

    /// The ID of a row selected as its key and, where the table has one, its entity column,
    /// which must name a `kind` (by default any entity of the table).
    func rowID(_ row: Statement, of table: TableLayout, kindOf kind: String? = nil, storeIdentifier: String) throws(StrataError) -> ObjectID {
        let key = row.int64(0)
        guard table.hasEntityColumn else { return ObjectID(entityName: table.name, storeIdentifier: storeIdentifier, primaryKey: key) }
        let entity = try storedEntity(row.text(1), kindOf: kind ?? table.name, named: "row \(key) of table '\(table.name)'")
        return ObjectID(entityName: entity.entity.name, storeIdentifier: storeIdentifier, primaryKey: key)
    }

    /// The layout of the entity `name`, which an entity column gives for an object that must be
    /// a `kind` (a table's root entity, or a relationship's destination): `kind` or one of its
    /// subentities, or the file was damaged (and the object would trap or lie later).
    /// - Parameter source: where the name was read, for the error.
    func storedEntity(_ name: String, kindOf kind: String, named source: @autoclosure () -> String) throws(StrataError) -> EntityLayout {
        guard let entity = layout.entities[name], entity.entity.name == kind || entity.entity.ancestorNames.contains(kind) else {
            throw StrataError(
                .corruptStore, "the store is damaged: \(source()) names the entity '\(name)', which is not '\(kind)' or one of its subentities",
                file: url?.path)
        }
        return entity
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
struct RecordDecoder {
    let store: SQLiteStore
    let table: TableLayout
    private var lastEntity: EntityLayout?

    init(store: SQLiteStore, table: TableLayout) {
        self.store = store
        self.table = table
        if !table.hasEntityColumn { lastEntity = store.layout.entities[table.name] }
    }

    /// - Throws: `corruptStore` when an entity column names an entity the table does not hold.
    mutating func decode(_ row: Statement) throws(StrataError) -> StoreRecord {
        let key = row.int64(0)
        let entity: EntityLayout
        if let last = lastEntity, !table.hasEntityColumn || last.entity.name == row.text(1) {
            entity = last
        } else {
            entity = try store.storedEntity(row.text(1), kindOf: table.name, named: "row \(key) of table '\(table.name)'")
            lastEntity = entity
        }
        let version = row.int64(table.hasEntityColumn ? 2 : 1)
        var values: [AttributeValue?] = []
        values.reserveCapacity(entity.columnsByPosition.count)
        for slot in entity.columnsByPosition {
            values.append(slot.flatMap { ValueCodec.decode(row, $0.column, as: $0.type) })
        }
        let attributes = AttributeValues(layout: entity.entity.attributeLayout, values: values)
        var toOne: [String: ObjectID] = [:]
        for relationship in entity.toOnes where !row.isNull(relationship.column) {
            var name = relationship.destination
            if let column = relationship.entityColumn {
                name = try store.storedEntity(
                    row.text(column), kindOf: relationship.destination,
                    named: "the '\(relationship.name)' column of row \(key) of table '\(table.name)'").entity.name
            }
            toOne[relationship.name] = ObjectID(entityName: name, storeIdentifier: store.storeIdentifier, primaryKey: row.int64(relationship.column))
        }
        var record = StoreRecord(
            objectID: ObjectID(entityName: entity.entity.name, storeIdentifier: store.storeIdentifier, primaryKey: key),
            attributes: attributes, toOne: toOne, version: version)
        record.lazyToMany = entity.lazyToMany
        return record
    }
}
