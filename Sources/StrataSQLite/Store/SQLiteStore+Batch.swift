public import Strata

/// Batch updates and deletes in SQL: one `UPDATE` or `DELETE` statement of the rows the
/// request's predicate (compiled as a fetch's is) selects, in one write transaction.
extension SQLiteStore: ComputesBatchUpdates {
    /// An update sets its attributes' columns (and their comparison-key shadow columns) and
    /// bumps `_version` of every matching row in one `UPDATE … WHERE`; a broken uniqueness
    /// constraint (the UNIQUE index fires) rolls it back and is reported, object by object, by
    /// the save's dry run. A delete of entities without relationships is one `DELETE … WHERE`;
    /// with relationships, the coordinator's general path plans the delete rules over the
    /// matching records and saves them in one transaction (nil here). So does a request SQL
    /// cannot express (a predicate the compiler leaves to the evaluator, entities in several
    /// tables): it fetches the matching objects — in memory, counted as a fetch's fallback is —
    /// and saves them. The statements return the rows' keys (`RETURNING`) only when the request
    /// lists its objects.
    public func executeBatch(_ request: StoreBatchRequest) throws(StrataError) -> StoreBatchOutcome? {
        try checkWritable()
        let groups = try tables(of: request.fetch.entityNames)
        guard groups.count == 1 else { return groups.isEmpty ? StoreBatchOutcome(matched: []) : nil }
        let (table, names) = groups[0]
        if case .update(let values) = request.operation, let computed = request.computed {
            return try computedUpdate(table, names, values, computed, request)
        }
        var compiler = compiler()
        guard let rows = try? compiler.fetch(
            table: table, entityNames: names, predicate: request.fetch.predicate, sortDescriptors: [], limit: 0, offset: 0, keysOnly: true)
        else { return nil }
        let target = Self.target(of: rows.select, table)
        let returning = request.listsObjects ? " RETURNING \"_pk\"\(table.hasEntityColumn ? ", \"_entity\"" : "")" : ""
        switch request.operation {
        case .update(let values):
            return try update(table, names, values, target: target, returning: returning, arguments: rows.arguments, request)
        case .delete:
            let schema = layout.schema
            guard names.allSatisfy({ schema.entity(named: $0)?.relationships.isEmpty == true }) else { return nil }
            let sql = "DELETE FROM \(target.table)\(target.condition)\(returning)"
            return try pool.write { (database) throws(StrataError) -> StoreBatchOutcome in
                try writeTransaction(database) { () throws(StrataError) in
                    let outcome = try changedRows(try database.statement(sql), arguments: rows.arguments, bound: { _ throws(StrataError) in }, table, database)
                    try recordBatch(outcome, entities: names, deleting: true, database)
                    return outcome
                }
            }
        }
    }

    /// The table clause and `WHERE` clause that select a compiled fetch's rows: the fetch's own
    /// condition on the table under its alias `t` when it joins no other table (what SQLite
    /// runs fastest), else `"_pk" IN (the fetch)`.
    private static func target(of select: String, _ table: TableLayout) -> (table: String, condition: String) {
        let columns = "t.\"_pk\"" + (table.hasEntityColumn ? ", t.\"_entity\"" : "")
        let head = "SELECT \(columns) FROM \(quoted(table.name)) AS t"
        let tail = " ORDER BY t.\"_pk\""
        if select.hasPrefix(head), select.hasSuffix(tail) {
            let middle = select.dropFirst(head.count).dropLast(tail.count)
            if middle.isEmpty { return ("\(quoted(table.name)) AS t", "") }
            if middle.hasPrefix(" WHERE ") { return ("\(quoted(table.name)) AS t", String(middle)) }
        }
        return (quoted(table.name), " WHERE \"_pk\" IN (SELECT \"_pk\" FROM (\(select)))")
    }

    /// Runs a batch statement with the fetch's arguments (then what `bound` binds) and reads the
    /// rows its `RETURNING` gives, if any, in key order; or counts the rows it changed.
    private func changedRows(
        _ statement: Statement, arguments: [SQLValue], bound: (Statement) throws(StrataError) -> Void, _ table: TableLayout, _ database: Database
    ) throws(StrataError) -> StoreBatchOutcome {
        try statement.prepareForBinding()
        for (index, argument) in arguments.enumerated() { try statement.bind(argument, at: Int32(index + 1)) }
        try bound(statement)
        guard statement.columnCount > 0 else {
            try statement.stepToEnd()
            return StoreBatchOutcome(matched: [], matchedCount: database.changes)
        }
        // IDs made from one ID per entity: no name is looked up per row.
        var scopes: [String: ObjectID] = [:]
        var ids: [ObjectID] = []
        while try statement.step() {
            let entity = table.hasEntityColumn ? try entityName(statement, table) : table.name
            let scope: ObjectID
            if let known = scopes[entity] {
                scope = known
            } else {
                scope = ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: 0)
                scopes[entity] = scope
            }
            ids.append(ObjectID(scope: scope, primaryKey: statement.int64(0)))
        }
        ids.sort()
        return StoreBatchOutcome(matched: ids)
    }

    /// A batch update that sets attributes to expressions: the new values computed in SQL (the
    /// dictionary fetch of ``StoreBatchRequest/computed``) and checked by ``BatchExpressions``,
    /// then one `UPDATE` of each matching row by its key, in one transaction; nil when SQL
    /// cannot compute them (the coordinator then fetches the records and saves them).
    private func computedUpdate(
        _ table: TableLayout, _ names: [String], _ values: [String: AttributeValue?], _ computed: StoreDictionaryRequest, _ request: StoreBatchRequest
    ) throws(StrataError) -> StoreBatchOutcome? {
        var compiler = compiler()
        guard let compiled = try? compiler.dictionaries(table: table, entityNames: names, request: computed) else { return nil }
        let entity = try layout.entity(names[0])
        let keys = Set(values.keys).union(computed.plan.columns.dropFirst().map(\.name))
        var written: [EntityLayout.WrittenValue] = []
        var assignments: [String] = []
        for (index, property) in entity.writtenProperties.enumerated() where keys.contains(property) {
            written.append(entity.writtenValues[index])
            assignments.append("\(quoted(entity.writtenColumns[index].name)) = ?")
        }
        let sql = "UPDATE \(quoted(table.name)) SET \(assignments.joined(separator: ", ")), \"_version\" = \"_version\" + 1 WHERE \"_pk\" = ?"
        let columns = computed.plan.columns
        var newValues: [ObjectID: [String: AttributeValue?]] = [:]
        let outcome = try pool.write { (database) throws(StrataError) -> StoreBatchOutcome? in
            database.clearLastError()
            do throws(StrataError) {
                return try writeTransaction(database) { () throws(StrataError) -> StoreBatchOutcome in
                    let rows = try database.rows(compiled.sql, compiled.arguments) { (row) throws(StrataError) -> DictionaryRow in
                        var dictionary: DictionaryRow = [:]
                        for (column, reader) in zip(columns, compiled.readers) { dictionary[column.name] = try self.read(reader, row, table) }
                        return dictionary
                    }
                    newValues = try BatchExpressions.values(rows, entity: computed.plan.entity)
                    let update = try database.statement(sql)
                    for (id, set) in newValues {
                        var attributes: AttributeValues = [:]
                        for case (let name, let value?) in values { attributes[name] = value }
                        for case (let name, let value?) in set { attributes[name] = value }
                        try update.prepareForBinding()
                        let next = try bindValues(written, of: StoreRecord(objectID: id, attributes: attributes), entity, to: update, from: 1)
                        try update.bindInteger(id.primaryKey ?? 0, at: next)
                        try update.stepToEnd()
                    }
                    let outcome = StoreBatchOutcome(matched: request.listsObjects ? newValues.keys.sorted() : [], matchedCount: newValues.count)
                    try recordBatch(outcome, entities: names, deleting: false, database)
                    return outcome
                }
            } catch {
                guard database.lastErrorCode == Database.constraintUnique else { throw error }
                return nil
            }
        }
        if let outcome { return outcome }
        // The UNIQUE index fired: nothing was written. Which objects break which constraint.
        let changes = BatchExecution.updating(Array(try records(for: newValues.keys.sorted()).values), with: values, computed: newValues)
        let violations = uniquenessViolations(changes)
        // Unique values that move between objects fire the index row by row, yet the result
        // breaks nothing: the coordinator's path saves them (the save clears them first).
        guard !violations.isEmpty else { return nil }
        throw StrataError(.validationFailed, "the save would break a uniqueness constraint", failures: violations)
    }

    /// The UPDATE of a batch update, and the uniqueness violations when its UNIQUE index fires.
    private func update(
        _ table: TableLayout, _ names: [String], _ values: [String: AttributeValue?], target: (table: String, condition: String),
        returning: String, arguments: [SQLValue], _ request: StoreBatchRequest
    ) throws(StrataError) -> StoreBatchOutcome {
        // The entities of one table share the columns of the attributes they have in common.
        let entity = try layout.entity(names[0])
        var written: [EntityLayout.WrittenValue] = []
        var assignments: [String] = []
        for (index, property) in entity.writtenProperties.enumerated() where values.keys.contains(property) {
            written.append(entity.writtenValues[index])
            assignments.append("\(quoted(entity.writtenColumns[index].name)) = ?\(arguments.count + assignments.count + 1)")
        }
        assignments.append("\"_version\" = \"_version\" + 1")
        let sql = "UPDATE \(target.table) SET \(assignments.joined(separator: ", "))\(target.condition)\(returning)"
        var set: [String: AttributeValue] = [:]
        for case (let name, let value?) in values { set[name] = value }
        let record = StoreRecord(objectID: ObjectID(entityName: entity.entity.name, storeIdentifier: storeIdentifier, primaryKey: 0), attributes: AttributeValues(set))
        let outcome = try pool.write { (database) throws(StrataError) -> StoreBatchOutcome? in
            database.clearLastError()
            do throws(StrataError) {
                return try writeTransaction(database) { () throws(StrataError) in
                    let outcome = try changedRows(try database.statement(sql), arguments: arguments, bound: { (statement) throws(StrataError) in
                        _ = try bindValues(written, of: record, entity, to: statement, from: Int32(arguments.count + 1))
                    }, table, database)
                    try recordBatch(outcome, entities: names, deleting: false, database)
                    return outcome
                }
            } catch {
                guard database.lastErrorCode == Database.constraintUnique else { throw error }
                return nil
            }
        }
        if let outcome { return outcome }
        // The UNIQUE index fired: nothing was written. Which objects break which constraint, as
        // a save reports it (a constant value leaves no intermediate state to blame).
        let changes = BatchExecution.updating(Array(try records(for: try fetchObjectIDs(request.fetch)).values), with: values)
        // Worded as the atomic stores word it, so that every store reports it alike.
        throw StrataError(.validationFailed, "the save would break a uniqueness constraint", failures: uniquenessViolations(changes))
    }
}

/// Batch inserts: the rows bound straight from the attribute values by position, in `INSERT`s
/// of many rows as the streamed load writes them, with the keys allocated in the same
/// transaction.
extension SQLiteStore {
    /// Allocates the objects' keys (one `UPDATE` of the key counter), then inserts their rows,
    /// `BulkLoad.rowsPerInsert` per statement (the rest one by one): version 1, no
    /// relationship, shadow columns from the values (a string's only when its NFC form
    /// differs). A UNIQUE index that fires rolls it all back and gives nil: the coordinator then
    /// saves the objects as records, whose save reports every violation.
    public func insertBatch(_ batch: StoreBatchInsert) throws(StrataError) -> [Int64]? {
        guard !batch.objects.isEmpty else { return [] }
        try checkWritable()
        guard let entity = layout.entities[batch.entityName], !entity.entity.isAbstract else {
            throw StrataError(.unknownEntity, "this SQLite store holds no concrete entity '\(batch.entityName)'", file: url?.path)
        }
        let count = batch.objects.count
        let parameters = 2 + (entity.table.hasEntityColumn ? 1 : 0) + entity.writtenValues.count + entity.insertedOrders.count
        let rowsPerInsert = BulkLoad.rowsPerInsert
        return try pool.write { (database) throws(StrataError) -> [Int64]? in
            database.clearLastError()
            // In a transaction of its own, a broken constraint rolls it all back (`OR ROLLBACK`):
            // SQLite then keeps no statement journal to undo one statement of many rows alone,
            // which cost a third of the insert even in memory.
            let insertSQL = database.isInTransaction ? entity.insertSQL : "INSERT OR ROLLBACK" + entity.insertSQL.dropFirst("INSERT".count)
            do throws(StrataError) {
                return try writeTransaction(database, journalsInMemory: true) { () throws(StrataError) -> [Int64] in
                    let last = try database.scalar(
                        "UPDATE \"strata_keys\" SET \"last\" = \"last\" + ?1 WHERE \"entity\" = ?2 RETURNING \"last\"",
                        [.integer(Int64(count)), .text(entity.rootName)])
                    guard case .integer(let end) = last else {
                        throw StrataError(.corruptStore, "strata_keys has no row for '\(entity.rootName)'", file: url?.path)
                    }
                    let first = end - Int64(count) + 1
                    let single = try database.statement(insertSQL)
                    let many = count >= rowsPerInsert && parameters * rowsPerInsert <= database.parameterLimit
                        ? try database.statement(BulkLoad.repeated(insertSQL, parameters: parameters)) : nil
                    var row = 0
                    while row < count {
                        let statement: Statement
                        let rows: Int
                        if let many, count - row >= rowsPerInsert {
                            (statement, rows) = (many, rowsPerInsert)
                        } else {
                            (statement, rows) = (single, 1)
                        }
                        try statement.prepareForBinding()
                        for offset in 0..<rows {
                            let position = row + offset
                            try Self.bindNewRow(first + Int64(position), batch.objects[position], entity, to: statement, from: Int32(offset * parameters))
                        }
                        try statement.stepToEnd()
                        row += rows
                    }
                    try recordChange(database, inserted: (first...end).map { ObjectID(entityName: entity.entity.name, storeIdentifier: storeIdentifier, primaryKey: $0) })
                    return Array(first...end)
                }
            } catch {
                guard database.lastErrorCode == Database.constraintUnique else { throw error }
                return nil
            }
        }
    }

    /// Binds one new row of an insert (``EntityLayout/insertSQL``'s columns: key, entity, version
    /// 1, the written values, no order), its parameters after `base`; `toOneKey` gives the key a
    /// to-one column (by its offset in ``EntityLayout/writtenValues``) refers to, if any.
    static func bindNewRow(
        _ key: Int64, _ values: AttributeValues, _ entity: EntityLayout, to insert: Statement, from base: Int32,
        toOneKey: (Int) -> Int64? = { _ in nil }
    ) throws(StrataError) {
        try insert.bindInteger(key, at: base + 1)
        var parameter = base + 2
        if entity.table.hasEntityColumn {
            try insert.bindText(entity.entity.name, at: parameter)
            parameter += 1
        }
        try insert.bindInteger(1, at: parameter)
        parameter += 1
        var binder = AttributeBinder(attributes: values.laidOut(by: entity.entity.attributeLayout))
        for (offset, written) in entity.writtenValues.enumerated() {
            switch written {
            case .toOneKey:
                if let destination = toOneKey(offset) {
                    try insert.bindInteger(destination, at: parameter)
                } else {
                    try insert.bind(.null, at: parameter)
                }
            case .toOneEntity: try insert.bind(.null, at: parameter)
            default: try binder.bind(written, to: insert, at: parameter)
            }
            parameter += 1
        }
        for _ in entity.insertedOrders {
            try insert.bind(.null, at: parameter)
            parameter += 1
        }
    }
}
