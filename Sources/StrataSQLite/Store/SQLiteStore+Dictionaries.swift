internal import CSQLite
public import Strata
internal import StrataSQL

extension SQLiteStore {
    /// The rows of a dictionary fetch, computed by one SELECT (columns, GROUP BY, HAVING,
    /// DISTINCT, order and window: `PredicateCompiler.dictionaries(table:entityNames:request:)`);
    /// a request SQL cannot express — entities in several tables, a to-many relationship as a
    /// column, more tables than SQLite joins — runs in memory over the records instead, logged
    /// with the reason.
    public func fetchDictionaries(_ request: StoreDictionaryRequest) throws(StrataError) -> [DictionaryRow] {
        let groups = try tables(of: request.fetch.entityNames)
        guard groups.count == 1 else {
            return try dictionariesInMemory(request, because: groups.isEmpty ? nil : Self.severalTables)
        }
        let (table, names) = groups[0]
        var compiler = compiler()
        let compiled: CompiledDictionaryFetch
        do {
            compiled = try compiler.dictionaries(table: table, entityNames: names, request: request)
        } catch {
            return try dictionariesInMemory(request, because: error.reason)
        }
        let columns = request.plan.columns
        let rows = try readCompiled { (database) throws(StrataError) -> [DictionaryRow] in
            try database.rows(compiled.sql, compiled.arguments) { (row) throws(StrataError) -> DictionaryRow in
                var dictionary: DictionaryRow = [:]
                for (column, reader) in zip(columns, compiled.readers) {
                    dictionary[column.name] = try column.finished(try self.read(reader, row, table))
                }
                return dictionary
            }
        }
        if let rows { return rows }
        return try dictionariesInMemory(request, because: Self.refusedBySQLite)
    }

    /// The rows evaluated in memory over this store's records; `reason` is logged (nil: the
    /// request names no entity of this store).
    private func dictionariesInMemory(_ request: StoreDictionaryRequest, because reason: String?) throws(StrataError) -> [DictionaryRow] {
        if let reason { logFallback(reason, entityNames: request.fetch.entityNames) }
        let records = try fetchInMemory(request.recordsRequest, because: nil).sorted { DictionaryPlan.inKeyOrder($0.objectID, $1.objectID) }
        return try request.rows(records, evaluator: recordEvaluator())
    }

    /// One column's value from a row.
    func read(_ reader: ColumnReader, _ row: Statement, _ table: TableLayout) throws(StrataError) -> PropertyValue {
        switch reader {
        case .value(let index, let kind, let type):
            return .attribute(DictionaryPlan.attributeValue(ValueCodec.decode(row.value(at: index), as: kind), type))
        case .object(let pk, let entity, let staticEntity):
            guard !row.isNull(pk) else { return .toOne(nil) }
            var name = staticEntity ?? ""
            if let entity {
                name = row.text(entity)
                guard layout.entities[name] != nil else {
                    throw corruptRow(table, key: row.int64(0), row: row, column: entity, expected: "the name of an entity of the model")
                }
            }
            return .toOne(ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: row.int64(pk)))
        }
    }
}
