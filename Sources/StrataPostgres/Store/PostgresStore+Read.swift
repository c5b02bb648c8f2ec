public import Strata
internal import StrataSQL

extension PostgresStore {
    /// The records matching the request, in its order and window.
    ///
    /// The entities' rows come from SQL; the predicate and the sort descriptors are applied by
    /// the evaluator every store shares (the one contexts and atomic stores use), so the answer
    /// is the same as every other store's, Unicode rules included. Related objects a predicate
    /// or a sort follows are read on demand, each once per fetch. The reads of one fetch share
    /// one snapshot (`REPEATABLE READ`, read-only). Compiling predicates to SQL for PostgreSQL
    /// (the shared compiler with a dialect) is the next step; until then a fetch reads every row
    /// of its entities.
    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        try pool.read { (connection) throws(StrataError) -> [StoreRecord] in
            try connection.transaction("ISOLATION LEVEL REPEATABLE READ READ ONLY") { () throws(StrataError) -> [StoreRecord] in
                try matching(request, connection)
            }
        }
    }

    /// How many records match: `count(*)` in SQL when there is no predicate, else the length of
    /// the fetch.
    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        guard request.predicate == nil else { return try fetch(request).count }
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
            // The save's deferred UNIQUE constraints still refuse what this could not check.
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

    /// The candidate rows of a request's entities in primary-key order, filtered, sorted and
    /// windowed by the evaluator.
    func matching(_ request: StoreFetchRequest, _ connection: PGConnection) throws(StrataError) -> [StoreRecord] {
        // Key order and a window only, in one table: the window is SQL's.
        let tables = tables(of: request.entityNames)
        if request.predicate == nil, request.sortDescriptors.isEmpty, tables.count == 1, request.fetchLimit > 0 || request.fetchOffset > 0 {
            return try rows(of: tables[0], connection, window: PostgreSQLDialect().window(limit: max(request.fetchLimit, 0), offset: max(request.fetchOffset, 0)))
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

    /// The rows of some entities of one table, in key order, in a window (`LIMIT`/`OFFSET`).
    private func rows(of table: (table: String, entities: [String]), _ connection: PGConnection, window: String = "") throws(StrataError) -> [StoreRecord] {
        let hasEntity = layout.tables[table.table]!.hasEntityColumn
        return try select(
            table.table, where: hasEntity ? "\"_entity\" = ANY($1::text[])" : "TRUE", hasEntity ? [Self.array(table.entities)] : [], connection, window: window)
    }

    /// The tables of `entityNames` (those this store holds), by name, each with its entities asked for.
    private func tables(of entityNames: [String]) -> [(table: String, entities: [String])] {
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

    /// The rows of one table matching `condition`, as records of their concrete entities, with
    /// every to-many relationship left lazy.
    private func select(_ table: String, where condition: String, _ parameters: [String?], _ connection: PGConnection, window: String = "") throws(StrataError) -> [StoreRecord] {
        let layoutTable = layout.tables[table]!
        let columns = layoutTable.columns
        var list = ["\"_pk\"", "\"_version\"", layoutTable.hasEntityColumn ? "\"_entity\"" : "NULL"]
        list += columns.map { quoted($0.name) }
        let result = try connection.run("SELECT \(list.joined(separator: ", ")) FROM \(quoted(table)) WHERE \(condition) ORDER BY \"_pk\"\(window)", parameters)
        var positions: [String: Int] = [:]
        for (index, column) in columns.enumerated() { positions[column.name] = index + 3 }
        var records: [StoreRecord] = []
        records.reserveCapacity(result.count)
        for row in 0..<result.count {
            let name = result.text(row, 2) ?? table
            guard let entity = layout.entities[name], let key = result.int64(row, 0) else { continue }
            var attributes = AttributeValues(layout: entity.description.attributeLayout)
            for (attribute, type) in entity.attributes {
                guard let position = positions[attribute], let text = result.text(row, position) else { continue }
                attributes[attribute] = try PostgresValueCoding.decode(text, as: type, column: "\(table).\(attribute)", location: location.description)
            }
            var record = StoreRecord(
                objectID: ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: key),
                attributes: attributes, version: result.int64(row, 1) ?? 0)
            for toOne in entity.toOnes {
                guard let position = positions[toOne.name], let target = result.int64(row, position) else { continue }
                let targetEntity = toOne.entityColumn.flatMap { positions[$0] }.flatMap { result.text(row, $0) } ?? toOne.destination
                record.toOne[toOne.name] = ObjectID(entityName: targetEntity, storeIdentifier: storeIdentifier, primaryKey: target)
            }
            record.lazyToMany = Set(entity.toMany.keys)
            records.append(record)
        }
        return records
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

/// The records one fetch has read, so that each related record is read once.
private final class RecordCache {
    var records: [ObjectID: StoreRecord] = [:]
    var absent: Set<ObjectID> = []
}
