public import Strata
internal import Foundation
internal import StrataSQL

extension PostgresStore {
    /// The rows of a dictionary fetch (`propertiesToFetch`, `propertiesToGroupBy`, `HAVING`,
    /// distinct rows): one SELECT by the compiler the SQLite store uses
    /// (`PredicateCompiler.dictionaries(table:entityNames:request:)`) with PostgreSQL's dialect,
    /// when every part of it compiles exactly — the request's predicate and order as for
    /// ``fetch(_:)``, columns of attributes and to-one relationships, computed columns the
    /// compiler writes for PostgreSQL, `@count`, groups by keys PostgreSQL compares as the
    /// evaluator does (numbers, booleans, dates, UUIDs, binary values, objects).
    ///
    /// Anything else — entities in several tables, distinct groups, a having predicate, a group
    /// whose columns PostgreSQL will not compute beside its keys, a group key or a distinct
    /// column of strings, URIs or decimals (no PostgreSQL collation compares them as the
    /// evaluator does), another aggregate than `@count`, a to-many relationship as a column —
    /// is evaluated in memory over the rows of the request's entities, by the evaluator every
    /// store shares.
    public func fetchDictionaries(_ request: StoreDictionaryRequest) throws(StrataError) -> [DictionaryRow] {
        let tables = tables(of: request.fetch.entityNames)
        guard tables.count == 1, let compiled = compiledDictionaries(request, tables[0]),
              let result = try compiledRows(compiled)
        else {
            let records = try fetch(request.recordsRequest).sorted { DictionaryPlan.inKeyOrder($0.objectID, $1.objectID) }
            return try request.rows(records, from: self)
        }
        let columns = request.plan.columns
        var rows: [DictionaryRow] = []
        rows.reserveCapacity(result.count)
        for row in 0..<result.count {
            var dictionary: DictionaryRow = [:]
            for (column, reader) in zip(columns, compiled.readers) {
                dictionary[column.name] = try column.finished(try value(reader, result, row, table: tables[0].table))
            }
            rows.append(dictionary)
        }
        return rows
    }

    /// The request as one SELECT, or nil when a part of it is the evaluator's: the compiler
    /// refused it, a column reads a value of mixed kinds (whose kind only the evaluator's
    /// functions, which PostgreSQL does not have, can tell), it asks for distinct groups (the
    /// compiler's SELECT of them keeps a column outside its GROUP BY, as SQLite allows and
    /// PostgreSQL does not), or it has a having predicate (which the compiler may write as
    /// SQLite's integer condition).
    func compiledDictionaries(_ request: StoreDictionaryRequest, _ table: (table: String, entities: [String])) -> CompiledDictionaryFetch? {
        guard !(request.plan.isGrouped && request.plan.distinct), request.plan.having == nil else { return nil }
        var compiler = PredicateCompiler(layout: layout, dialect: PostgreSQLDialect())
        compiler.storeIdentifier = storeIdentifier
        guard let compiled = try? compiler.dictionaries(table: layout.tables[table.table]!, entityNames: table.entities, request: request) else {
            return nil
        }
        for reader in compiled.readers {
            if case .value(_, let kind, _) = reader, kind == .number || kind == .object { return nil }
        }
        return compiled
    }

    /// The rows of a compiled request; nil when PostgreSQL refuses its grouping (`42803`): a
    /// grouped SELECT whose subquery (a to-many aggregate) reads the table's key, or a column
    /// beside its groups — which SQLite, whose SQL the compiler writes, allows.
    private func compiledRows(_ compiled: CompiledDictionaryFetch) throws(StrataError) -> PGResult? {
        let (sql, parameters) = Self.statement(compiled.sql, compiled.arguments)
        return try pool.read { (connection) throws(StrataError) -> PGResult? in
            do throws(PGError) {
                return try connection.query(sql, parameters)
            } catch {
                guard error.state == "42803" else { throw error.strataError(location: location.description) }
                return nil
            }
        }
    }

    /// One column's value from a row of the result.
    private func value(_ reader: ColumnReader, _ result: PGResult, _ row: Int, table: String) throws(StrataError) -> PropertyValue {
        switch reader {
        case .value(let index, let kind, let type):
            guard let text = result.text(row, Int(index)) else { return .attribute(nil) }
            let column = "column \(index) of a dictionary fetch of \(table)"
            // A boolean may come back as a condition's 1 or 0.
            if kind == .bool, text == "1" || text == "0" {
                return .attribute(DictionaryPlan.attributeValue(.bool(text == "1"), type))
            }
            // An attribute's own column reads as the attribute does (a float not rounded
            // through a double); a computed value or an aggregate by its kind.
            if let type, ValueKind(type) == kind {
                return .attribute(try PostgresValueCoding.decode(text, as: type, column: column, location: location.description))
            }
            let decoded: AttributeValue
            switch kind {
            case .integer: decoded = try PostgresValueCoding.decode(text, as: .int64, column: column, location: location.description)
            case .bool: decoded = try PostgresValueCoding.decode(text, as: .bool, column: column, location: location.description)
            case .double: decoded = try PostgresValueCoding.decode(text, as: .double, column: column, location: location.description)
            case .decimal: decoded = try PostgresValueCoding.decode(text, as: .decimal, column: column, location: location.description)
            case .string: decoded = .string(text)
            case .date: decoded = try PostgresValueCoding.decode(text, as: .date, column: column, location: location.description)
            case .binary: decoded = try PostgresValueCoding.decode(text, as: .binary, column: column, location: location.description)
            case .uuid: decoded = try PostgresValueCoding.decode(text, as: .uuid, column: column, location: location.description)
            case .uri: decoded = try PostgresValueCoding.decode(text, as: .uri, column: column, location: location.description)
            case .number, .object: preconditionFailure("a column of mixed kinds is the evaluator's (compiledDictionaries)")
            }
            return .attribute(DictionaryPlan.attributeValue(PredicateValue(decoded), type))
        case .object(let pk, let entity, let staticEntity):
            guard let key = result.int64(row, Int(pk)) else { return .toOne(nil) }
            let name = entity.flatMap { result.text(row, Int($0)) } ?? staticEntity ?? ""
            guard layout.entities[name] != nil else {
                throw StrataError(.corruptStore, "a row of \"\(table)\" names the entity '\(name)', which the model does not have", file: location.description)
            }
            return .toOne(ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: key))
        }
    }
}
