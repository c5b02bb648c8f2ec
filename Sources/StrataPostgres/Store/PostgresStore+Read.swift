public import Strata
internal import StrataSQL

extension PostgresStore {
    /// The records matching the request, in its order and window.
    ///
    /// A request of the entities of one table whose predicate and sort descriptors compile
    /// exactly is one SELECT: the compiler the SQLite store uses (`PredicateCompiler`), with
    /// PostgreSQL's dialect, which writes SQL only where PostgreSQL's answer is provably the
    /// evaluator's:
    ///
    /// - In SQL: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `BETWEEN`) of integers,
    ///   booleans, doubles and floats, dates, UUIDs and binary values, with constants or with
    ///   each other (a double with a decimal constant as doubles, as the evaluator does); NaN
    ///   kept apart (PostgreSQL sorts it above every number: a `>` or `>=` on a double also
    ///   requires the value not to be NaN; NaN equals NaN in both); nil tests of any attribute
    ///   or relationship; `AND`, `OR`, `NOT`, `TRUEPREDICATE`; object comparisons; to-one key
    ///   paths (LEFT JOINs); `ANY`, `ALL`, `NONE`, `SUBQUERY`, `@count` and subscripts over
    ///   to-many relationships; sorts on numbers, booleans, dates, UUIDs, binary values and
    ///   objects (nil first ascending, ties by entity name and key); LIMIT and OFFSET; the
    ///   matching count.
    /// - With the evaluator, for the whole request (filter, sort and window), when any part of
    ///   it needs what PostgreSQL does differently or lacks: anything on strings and URIs
    ///   (PostgreSQL's collations, ICU's included, are not the evaluator's code-point order
    ///   after canonical equivalence; `[c]`, `[d]`, `LIKE`, `MATCHES`, `BEGINSWITH` …), decimals
    ///   (compared and sorted by the evaluator, which also mixes them with doubles), `@sum`,
    ///   `@avg`, `@min`, `@max` and the other aggregates, `@distinctUnionOfObjects`, functions,
    ///   comparisons of values of different kinds, and requests over several tables. The
    ///   entities' rows are then read in key order and the evaluator every store shares filters,
    ///   sorts and windows them, reading related objects on demand, each once per fetch.
    ///
    /// The reads of one fetch share one snapshot (`REPEATABLE READ`, read-only).
    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        try pool.read { (connection) throws(StrataError) -> [StoreRecord] in
            try connection.transaction("ISOLATION LEVEL REPEATABLE READ READ ONLY") { () throws(StrataError) -> [StoreRecord] in
                try matching(request, connection)
            }
        }
    }

    /// How many records match: `count(*)` in SQL when there is no predicate or it compiles
    /// (``fetch(_:)`` says which), else the length of the fetch.
    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        if request.predicate != nil {
            let tables = tables(of: request.entityNames)
            guard tables.count == 1, let compiled = compiled(request, tables[0]) else { return try fetch(request).count }
            return try pool.read { (connection) throws(StrataError) -> Int in
                let (sql, parameters) = Self.statement(compiled.count, compiled.arguments)
                return Int(try connection.run(sql, parameters).int64(0, 0) ?? 0)
            }
        }
        let total = try pool.read { (connection) throws(StrataError) -> Int in
            var total = 0
            for (table, names) in tables(of: request.entityNames) {
                let hasEntity = layout.tables[table]!.hasEntityColumn
                let result = try connection.run(
                    "SELECT count(*) FROM \(quoted(table))\(hasEntity ? " WHERE \"_entity\" = ANY($1::text[])" : "")",
                    hasEntity ? [Self.array(names)] : [])
                total += Int(result.int64(0, 0) ?? 0)
            }
            return total
        }
        let start = min(max(request.fetchOffset, 0), total)
        return (request.fetchLimit > 0 ? min(start + request.fetchLimit, total) : total) - start
    }

    public func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        try pool.read { (connection) throws(StrataError) in try records(objectIDs, connection) }
    }

    public func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        try pool.read { (connection) throws(StrataError) in try members(of: objectID, relationship, connection) }
    }

    /// The uniqueness violations `changes` would cause, by the rules every store shares
    /// (strings equal when canonically equivalent, nil never equal): the stored rows that have
    /// the same values as a changed object (found in SQL, strings compared in NFC) are checked
    /// with the changes applied. A changeset of more than 200 objects
    /// reads the constrained hierarchies whole instead of asking for each object.
    public func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] {
        let changed = changes.inserted + changes.updated
        let constrained = changed.contains { record in
            guard let entity = layout.entities[record.objectID.entityName] else { return false }
            return Self.constraintOwners(of: entity.description, layout.schema).contains { !$0.uniquenessConstraints.isEmpty }
        }
        guard constrained else { return [] }
        let records: [StoreRecord]
        do {
            if changed.count > Self.targetedUniquenessLimit {
                let names = Set(changed.flatMap { record in
                    layout.schema.entity(named: record.objectID.entityName).map { layout.schema.entityAndDescendants(of: $0.rootName).map(\.name) } ?? []
                })
                records = try fetch(StoreFetchRequest(entityNames: names.sorted()))
            } else {
                records = try pool.read { (connection) throws(StrataError) -> [StoreRecord] in
                    Array(try self.records(try sameValues(as: changed, connection), connection).values)
                }
            }
        } catch {
            // The save's deferred constraints still refuse what this could not check.
            return []
        }
        var contents = AtomicStoreContents(metadata: metadata)
        for record in records { contents.records[record.objectID.entityName, default: [:]][record.objectID] = record }
        return AtomicStore(inMemory: contents, type: .postgres, schema: layout.schema).uniquenessViolations(changes)
    }

    /// How many changed objects ``uniquenessViolations(_:)`` looks up one by one.
    static let targetedUniquenessLimit = 200

    /// An entity and its ancestors: the entities whose uniqueness constraints bind its objects.
    private static func constraintOwners(of entity: EntityDescription, _ schema: Schema) -> [EntityDescription] {
        ([entity.name] + entity.ancestorNames).compactMap { schema.entity(named: $0) }
    }

    /// The stored objects that have, for some constraint, the same values as one of `records`.
    private func sameValues(as records: [StoreRecord], _ connection: PGConnection) throws(StrataError) -> [ObjectID] {
        var found: [ObjectID] = []
        for record in records {
            guard let entity = layout.entities[record.objectID.entityName] else { continue }
            for owner in Self.constraintOwners(of: entity.description, layout.schema) {
                let covered = layout.schema.entityAndDescendants(of: owner.name).map(\.name)
                constraints: for constraint in owner.uniquenessConstraints {
                    var conditions: [String] = []
                    var parameters: [String?] = []
                    for name in constraint {
                        if let type = entity.attributes.first(where: { $0.name == name })?.type {
                            // nil is never equal to anything: no object can collide.
                            guard let value = record.attributes[name] else { continue constraints }
                            parameters.append(try PostgresValueCoding.encode(value, attribute: name, entity: entity.description.name))
                            let placeholder = "$\(parameters.count)::\(PostgresValueCoding.columnType(type))"
                            conditions.append(type == .string
                                ? "normalize(\(quoted(name)), NFC) = normalize(\(placeholder), NFC)"
                                : "\(quoted(name)) = \(placeholder)")
                        } else {
                            guard let target = record.toOne[name]?.primaryKey else { continue constraints }
                            parameters.append(String(target))
                            conditions.append("\(quoted(name)) = $\(parameters.count)::bigint")
                        }
                    }
                    if entity.hasEntityColumn {
                        parameters.append(Self.array(covered))
                        conditions.append("\"_entity\" = ANY($\(parameters.count)::text[])")
                    }
                    let result = try connection.run(
                        "SELECT \"_pk\", \(entity.hasEntityColumn ? "\"_entity\"" : "NULL") FROM \(quoted(entity.table)) WHERE \(conditions.joined(separator: " AND ")) LIMIT 10",
                        parameters)
                    for row in 0..<result.count {
                        guard let key = result.int64(row, 0) else { continue }
                        found.append(ObjectID(entityName: result.text(row, 1) ?? entity.table, storeIdentifier: storeIdentifier, primaryKey: key))
                    }
                }
            }
        }
        return found
    }

    // MARK: - Rows

    /// The records of a request: one compiled SELECT when it compiles (``fetch(_:)``), else the
    /// candidate rows of its entities in primary-key order, filtered, sorted and windowed by the
    /// evaluator.
    func matching(_ request: StoreFetchRequest, _ connection: PGConnection) throws(StrataError) -> [StoreRecord] {
        let tables = tables(of: request.entityNames)
        if tables.count == 1, let compiled = compiled(request, tables[0]) {
            let (sql, parameters) = Self.statement(compiled.select, compiled.arguments)
            return try selectRecords(sql, parameters, table: tables[0].table, connection)
        }
        var candidates = try rows(of: request.entityNames, connection)
        if request.predicate != nil || !request.sortDescriptors.isEmpty {
            let evaluator = evaluator(connection)
            if let predicate = request.predicate { candidates = try evaluator.filter(candidates, by: predicate) }
            candidates = try RecordSorter.sort(candidates, by: request.sortDescriptors, evaluator: evaluator, id: \.objectID)
        }
        let start = min(max(request.fetchOffset, 0), candidates.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, candidates.count) : candidates.count
        return Array(candidates[start..<end])
    }

    /// The request as one SELECT (and its COUNT) of `table`, or nil when some part of it needs
    /// the evaluator (``fetch(_:)``).
    func compiled(_ request: StoreFetchRequest, _ table: (table: String, entities: [String])) -> CompiledFetch? {
        var compiler = PredicateCompiler(layout: layout, dialect: PostgreSQLDialect())
        compiler.storeIdentifier = storeIdentifier
        return try? compiler.fetch(
            table: layout.tables[table.table]!, entityNames: table.entities, predicate: request.predicate,
            sortDescriptors: request.sortDescriptors, limit: max(request.fetchLimit, 0), offset: max(request.fetchOffset, 0))
    }

    /// A compiled statement with only the parameters it uses, numbered from `$1` in the order
    /// they were bound: the compiler may bind a value it then writes no placeholder for, and
    /// PostgreSQL refuses a parameter whose type nothing in the statement says.
    static func statement(_ sql: String, _ arguments: [SQLValue]) -> (String, [PGConnection.Parameter]) {
        var numbers: [Int: Int] = [:]
        var parameters: [PGConnection.Parameter] = []
        var text = ""
        var rest = Substring(sql)
        // Placeholders are the only `$`: identifiers are quoted names of the model, literals
        // entity names.
        while let dollar = rest.firstIndex(of: "$") {
            text += rest[..<dollar]
            let digits = rest[rest.index(after: dollar)...].prefix { $0.isASCII && $0.isNumber }
            rest = rest[digits.endIndex...]
            guard let index = Int(digits), arguments.indices.contains(index - 1) else {
                text += "$" + digits
                continue
            }
            if numbers[index] == nil {
                parameters.append(parameter(arguments[index - 1]))
                numbers[index] = parameters.count
            }
            text += "$\(numbers[index]!)"
        }
        return (text + rest, parameters)
    }

    /// A bound value of a compiled statement as the text parameter PostgreSQL reads (the
    /// placeholder casts it to its type).
    static func parameter(_ value: SQLValue) -> PGConnection.Parameter {
        switch value {
        case .null: nil
        case .integer(let number): String(number)
        case .real(let number): PostgresValueCoding.text(of: number)
        case .text(let text): text
        case .blob(let data): PostgresValueCoding.hex(data)
        }
    }

    /// The evaluator over this store's records, reading related records on demand (each once).
    private func evaluator(_ connection: PGConnection) -> PredicateEvaluator<StoreRecord> {
        let cache = RecordCache()
        let schema = layout.schema
        func lookup(_ ids: [ObjectID]) throws(StrataError) -> [StoreRecord] {
            let missing = ids.filter { cache.records[$0] == nil && !cache.absent.contains($0) }
            if !missing.isEmpty {
                let found = try records(missing, connection)
                for id in missing {
                    if let record = found[id] { cache.records[id] = record } else { cache.absent.insert(id) }
                }
            }
            return ids.compactMap { cache.records[$0] }
        }
        return PredicateEvaluator(GraphAccessor<StoreRecord>(
            entity: { schema.entity(named: $0.objectID.entityName)! },
            objectID: { $0.objectID },
            attribute: { $0.attributes[$1] },
            toOne: { (record, key) throws(StrataError) in
                guard let target = record.toOne[key] else { return nil }
                return try lookup([target]).first
            },
            toMany: { (record, key) throws(StrataError) in
                let members = record.lazyToMany.contains(key) ? try self.members(of: record.objectID, key, connection) : record.toMany[key] ?? []
                return try lookup(members)
            }))
    }

    /// The rows of `entityNames`, by table, in primary-key order.
    func rows(of entityNames: [String], _ connection: PGConnection) throws(StrataError) -> [StoreRecord] {
        let byTable = tables(of: entityNames)
        var records: [StoreRecord] = []
        for table in byTable { records += try rows(of: table, connection) }
        if byTable.count > 1 { records.sort { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 } }
        return records
    }

    /// The rows of some entities of one table, in key order.
    private func rows(of table: (table: String, entities: [String]), _ connection: PGConnection) throws(StrataError) -> [StoreRecord] {
        let hasEntity = layout.tables[table.table]!.hasEntityColumn
        return try select(table.table, where: hasEntity ? "\"_entity\" = ANY($1::text[])" : "TRUE", hasEntity ? [Self.array(table.entities)] : [], connection)
    }

    /// The tables of `entityNames` (those this store holds), by name, each with its entities asked for.
    func tables(of entityNames: [String]) -> [(table: String, entities: [String])] {
        var byTable: [String: [String]] = [:]
        for name in entityNames {
            guard let entity = layout.entities[name] else { continue }
            byTable[entity.table, default: []].append(name)
        }
        return byTable.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The records of `ids` that the store holds (of the entity each ID names).
    func records(_ ids: [ObjectID], _ connection: PGConnection) throws(StrataError) -> [ObjectID: StoreRecord] {
        var byTable: [String: [Int64]] = [:]
        for id in ids where id.storeIdentifier == storeIdentifier {
            guard let entity = layout.entities[id.entityName], let key = id.primaryKey else { continue }
            byTable[entity.table, default: []].append(key)
        }
        let wanted = Set(ids)
        var found: [ObjectID: StoreRecord] = [:]
        for (table, keys) in byTable {
            for record in try select(table, where: "\"_pk\" = ANY($1::bigint[])", [Self.array(keys.map(String.init))], connection)
            where wanted.contains(record.objectID) {
                found[record.objectID] = record
            }
        }
        return found
    }

    /// The rows of one table matching `condition`, in key order (``decode(_:table:)``).
    private func select(_ table: String, where condition: String, _ parameters: [String?], _ connection: PGConnection) throws(StrataError) -> [StoreRecord] {
        let list = PredicateCompiler.selectList(layout.tables[table]!, alias: "t")
        return try selectRecords("SELECT \(list) FROM \(quoted(table)) AS t WHERE \(condition) ORDER BY t.\"_pk\"", parameters, table: table, connection)
    }

    /// The records of a SELECT of rows of `table` (``decode(_:table:)``), read in the binary
    /// format.
    private func selectRecords(_ sql: String, _ parameters: [String?], table: String, _ connection: PGConnection) throws(StrataError) -> [StoreRecord] {
        var values = PGParameters()
        for parameter in parameters { values.append(text: parameter) }
        let result: PGResult
        do throws(PGError) {
            result = try connection.query(sql, values, binaryResults: true)
        } catch {
            throw error.strataError(location: location.description)
        }
        return try decode(result, table: table)
    }

    /// Rows of a table, selected with `PredicateCompiler.selectList(_:alias:)` (`_pk`, `_entity`
    /// where the table has it, `_version`, then every column) in the binary format, as records of
    /// their concrete entities, with every to-many relationship left lazy. A row of an entity the
    /// store does not hold, or without a key, is skipped.
    private func decode(_ result: PGResult, table: String) throws(StrataError) -> [StoreRecord] {
        let layoutTable = layout.tables[table]!
        let entityColumn: Int32? = layoutTable.hasEntityColumn ? 1 : nil
        let versionColumn: Int32 = layoutTable.hasEntityColumn ? 2 : 1
        var columns: [String: Int32] = [:]
        for (index, column) in layoutTable.columns.enumerated() { columns[column.name] = Int32(index) + versionColumn + 1 }
        var readers: [String: RowReader] = [:]
        var last: RowReader?
        var records: [StoreRecord] = []
        records.reserveCapacity(result.count)
        for row in 0..<Int32(result.count) {
            guard let key = result.bytes(row, 0).flatMap(Self.int64) else { continue }
            let reader: RowReader
            if let entityColumn {
                guard let name = result.bytes(row, entityColumn).map({ String(decoding: $0, as: UTF8.self) }) else { continue }
                if let last, last.entity.description.name == name {
                    reader = last
                } else if let known = readers[name] {
                    reader = known
                } else {
                    guard let entity = layout.entities[name] else { continue }
                    reader = RowReader(entity, columns: columns, result: result, store: self)
                    readers[name] = reader
                }
            } else if let last {
                reader = last
            } else {
                guard let entity = layout.entities[table] else { continue }
                reader = RowReader(entity, columns: columns, result: result, store: self)
            }
            last = reader
            records.append(try reader.record(row, key: key, version: result.bytes(row, versionColumn).flatMap(Self.int64) ?? 0, result, store: self))
        }
        return records
    }

    /// A `bigint` in the binary format.
    static func int64(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        bytes.count == 8 ? Int64(bigEndian: bytes.loadUnaligned(as: Int64.self)) : nil
    }

    /// The members of a to-many relationship, in stored order (ordered) or key order.
    func members(of objectID: ObjectID, _ relationship: String, _ connection: PGConnection) throws(StrataError) -> [ObjectID] {
        guard let entity = layout.entities[objectID.entityName], let key = objectID.primaryKey else { return [] }
        guard let storage = entity.toMany[relationship] else {
            throw StrataError(.unknownProperty, "\(objectID.entityName) has no to-many relationship '\(relationship)'", file: location.description)
        }
        let sql: String
        var parameters: [String?] = [String(key)]
        let destination: String
        switch storage {
        case .foreignKey(let table, let column, let orderColumn, let entities):
            // Keys are unique in a hierarchy: the key alone names the owner.
            destination = table
            let entityName = layout.tables[table]!.hasEntityColumn ? "\"_entity\"" : "NULL"
            var condition = "\(quoted(column)) = $1::bigint"
            if let entities {
                condition += " AND \"_entity\" = ANY($\(parameters.count + 1)::text[])"
                parameters.append(Self.array(entities))
            }
            let order = orderColumn.map { "\(quoted($0)), " } ?? ""
            sql = "SELECT \"_pk\", \(entityName) FROM \(quoted(table)) WHERE \(condition) ORDER BY \(order)\"_pk\""
        case .joinTable(let table, let own, let other, let orderColumn, let otherRoot):
            destination = otherRoot
            let entityName = layout.tables[otherRoot]!.hasEntityColumn ? "t.\"_entity\"" : "NULL"
            let order = orderColumn.map { "j.\(quoted($0)), " } ?? ""
            sql = "SELECT t.\"_pk\", \(entityName) FROM \(quoted(table)) j JOIN \(quoted(otherRoot)) t ON t.\"_pk\" = j.\(quoted(other)) WHERE j.\(quoted(own)) = $1::bigint ORDER BY \(order)t.\"_pk\""
        }
        let result = try connection.run(sql, parameters)
        var members: [ObjectID] = []
        members.reserveCapacity(result.count)
        for row in 0..<result.count {
            guard let member = result.int64(row, 0) else { continue }
            members.append(ObjectID(entityName: result.text(row, 1) ?? destination, storeIdentifier: storeIdentifier, primaryKey: member))
        }
        return members
    }

    /// A PostgreSQL array literal of strings (`{"a","b"}`), for `= ANY($n::text[])`.
    static func array(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }
}

/// Reads the rows of one entity of a result (``PostgresStore/decode(_:table:)``): where each
/// attribute and to-one relationship is, by the position of the entity's attribute layout.
private final class RowReader {
    let entity: PostgresLayout.Entity
    /// Each position of the entity's attribute layout: the result column, the attribute type and
    /// the column's type; nil for a transient attribute.
    private let attributes: [(column: Int32, type: AttributeType, columnType: PGType, label: String)?]
    private let toOnes: [(name: String, column: Int32, entityColumn: Int32?, destination: String)]
    private let lazyToMany: Set<String>
    /// An ID of the entity's objects, from which the others are made.
    private let scope: ObjectID
    /// The store's location, for errors.
    private let location: String

    init(_ entity: PostgresLayout.Entity, columns: [String: Int32], result: PGResult, store: PostgresStore) {
        self.entity = entity
        let layout = entity.description.attributeLayout
        // Each column named `table.attribute` once, for errors.
        var attributes: [(column: Int32, type: AttributeType, columnType: PGType, label: String)?] = Array(repeating: nil, count: layout.count)
        for (name, type) in entity.attributes {
            guard let position = layout.position(of: name), let column = columns[name] else { continue }
            attributes[position] = (column, type, result.type(column), "\(entity.table).\(name)")
        }
        location = store.location.description
        self.attributes = attributes
        toOnes = entity.toOnes.compactMap { toOne in
            columns[toOne.name].map { (toOne.name, $0, toOne.entityColumn.flatMap { columns[$0] }, toOne.destination) }
        }
        lazyToMany = Set(entity.toMany.keys)
        scope = ObjectID(entityName: entity.description.name, storeIdentifier: store.storeIdentifier, primaryKey: 0)
    }

    func record(_ row: Int32, key: Int64, version: Int64, _ result: PGResult, store: PostgresStore) throws(StrataError) -> StoreRecord {
        let values = try AttributeValues(layout: entity.description.attributeLayout) { (position) throws(StrataError) -> AttributeValue? in
            guard let attribute = attributes[position], let bytes = result.bytes(row, attribute.column) else { return nil }
            return try PostgresValueCoding.decode(binary: bytes, of: attribute.columnType, as: attribute.type, column: attribute.label, location: location)
        }
        var toOne: [String: ObjectID] = [:]
        for relationship in toOnes {
            guard let target = result.bytes(row, relationship.column).flatMap(PostgresStore.int64) else { continue }
            let targetEntity = relationship.entityColumn.flatMap { result.bytes(row, $0) }.map { String(decoding: $0, as: UTF8.self) } ?? relationship.destination
            toOne[relationship.name] = ObjectID(entityName: targetEntity, storeIdentifier: store.storeIdentifier, primaryKey: target)
        }
        return StoreRecord(objectID: ObjectID(scope: scope, primaryKey: key), attributes: values, toOne: toOne, lazyToMany: lazyToMany, version: version)
    }
}

/// The records one fetch has read, so that each related record is read once.
private final class RecordCache {
    var records: [ObjectID: StoreRecord] = [:]
    var absent: Set<ObjectID> = []
}
