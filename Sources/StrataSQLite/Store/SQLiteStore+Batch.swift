public import Strata

/// Batch updates and deletes in SQL: one `UPDATE` or `DELETE` statement of the rows the
/// request's predicate (compiled as a fetch's is) selects, in one write transaction.
extension SQLiteStore {
    /// An update sets its attributes' columns (and their comparison-key shadow columns) and
    /// bumps `_version` of every matching row in one `UPDATE … WHERE "_pk" IN (SELECT …)
    /// RETURNING`; a broken uniqueness constraint (the UNIQUE index fires) rolls it back and is
    /// reported, object by object, by the save's dry run. A delete of entities without
    /// relationships is one `DELETE`; with relationships, the coordinator's general path plans
    /// the delete rules over the matching records and saves them in one transaction (nil here).
    /// So does a request SQL cannot express (a predicate the compiler leaves to the evaluator,
    /// entities in several tables): it fetches the matching objects — in memory, counted as a
    /// fetch's fallback is — and saves them.
    public func executeBatch(_ request: StoreBatchRequest) throws(StrataError) -> StoreBatchOutcome? {
        try checkWritable()
        let groups = try tables(of: request.fetch.entityNames)
        guard groups.count == 1 else { return groups.isEmpty ? StoreBatchOutcome(matched: []) : nil }
        let (table, names) = groups[0]
        var compiler = compiler()
        guard let rows = try? compiler.fetch(
            table: table, entityNames: names, predicate: request.fetch.predicate, sortDescriptors: [], limit: 0, offset: 0, keysOnly: true)
        else { return nil }
        let selection = "\"_pk\" IN (SELECT \"_pk\" FROM (\(rows.select)))"
        let returning = "RETURNING \"_pk\"\(table.hasEntityColumn ? ", \"_entity\"" : "")"
        switch request.operation {
        case .update(let values):
            return try update(table, names, values, selection: selection, returning: returning, arguments: rows.arguments, request)
        case .delete:
            let schema = layout.schema
            guard names.allSatisfy({ schema.entity(named: $0)?.relationships.isEmpty == true }) else { return nil }
            let sql = "DELETE FROM \(quoted(table.name)) WHERE \(selection) \(returning)"
            var deleted = try pool.write { (database) throws(StrataError) -> [ObjectID] in
                try writeTransaction(database) { () throws(StrataError) in
                    try database.rows(sql, rows.arguments) { (row) throws(StrataError) in try returnedID(row, table) }
                }
            }
            deleted.sort()
            return StoreBatchOutcome(matched: deleted)
        }
    }

    /// The UPDATE of a batch update, and the uniqueness violations when its UNIQUE index fires.
    private func update(
        _ table: TableLayout, _ names: [String], _ values: [String: AttributeValue?], selection: String, returning: String,
        arguments: [SQLValue], _ request: StoreBatchRequest
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
        let sql = "UPDATE \(quoted(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \(selection) \(returning), \"_version\""
        var set: [String: AttributeValue] = [:]
        for case (let name, let value?) in values { set[name] = value }
        let record = StoreRecord(objectID: ObjectID(entityName: entity.entity.name, storeIdentifier: storeIdentifier, primaryKey: 0), attributes: AttributeValues(set))
        let outcome = try pool.write { (database) throws(StrataError) -> StoreBatchOutcome? in
            database.clearLastError()
            do throws(StrataError) {
                return try writeTransaction(database) { () throws(StrataError) in
                    let statement = try database.statement(sql)
                    try statement.prepareForBinding()
                    for (index, argument) in arguments.enumerated() { try statement.bind(argument, at: Int32(index + 1)) }
                    _ = try bindValues(written, of: record, entity, to: statement, from: Int32(arguments.count + 1))
                    var outcome = StoreBatchOutcome(matched: [])
                    let versionColumn: Int32 = table.hasEntityColumn ? 2 : 1
                    while try statement.step() {
                        let id = try returnedID(statement, table)
                        outcome.matched.append(id)
                        outcome.versions[id] = statement.int64(versionColumn)
                    }
                    return outcome
                }
            } catch {
                guard database.lastErrorCode == Database.constraintUnique else { throw error }
                return nil
            }
        }
        if var outcome {
            outcome.matched.sort()
            return outcome
        }
        // The UNIQUE index fired: nothing was written. Which objects break which constraint, as
        // a save reports it (a constant value leaves no intermediate state to blame).
        let changes = BatchExecution.updating(Array(try records(for: try fetchObjectIDs(request.fetch)).values), with: values)
        let violations = uniquenessViolations(changes)
        // Worded as the atomic stores word it, so that every store reports it alike.
        throw StrataError(.validationFailed, "the save would break a uniqueness constraint", failures: violations)
    }

    /// The ID of a row a `RETURNING "_pk"[, "_entity"]` gives.
    private func returnedID(_ row: Statement, _ table: TableLayout) throws(StrataError) -> ObjectID {
        ObjectID(entityName: try entityName(row, table), storeIdentifier: storeIdentifier, primaryKey: row.int64(0))
    }
}
