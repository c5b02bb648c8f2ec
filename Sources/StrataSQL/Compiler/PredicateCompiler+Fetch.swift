package import Strata

/// A fetch request of one table as SQL: the rows, and their count.
package struct CompiledFetch {
    package var select: String
    package var count: String
    package var arguments: [SQLValue]

    package init(select: String, count: String, arguments: [SQLValue]) {
        self.select = select
        self.count = count
        self.arguments = arguments
    }
}

extension PredicateCompiler {
    /// The SELECT of the records of `entityNames` (all in `table`) matching a request, in its
    /// order and window, and the matching COUNT.
    ///
    /// Without sort descriptors, records come in primary-key order; with them, ties are broken
    /// by object ID (entity name, then primary key), as `RecordSorter` does.
    package mutating func fetch(
        table: any SQLQueryTable, entityNames: [String], predicate: FetchPredicate?, sortDescriptors: [FetchSortDescriptor],
        limit: Int, offset: Int, windowed: Bool = true, keysOnly: Bool = false
    ) throws(Unsupported) -> CompiledFetch {
        let scope = QueryScope(table: "\(dialect.quote(table.name)) AS t")
        let subject = Shape.object(self.subject(table: table, alias: "t", scope: scope))
        let conditions = try conditions(table: table, entityNames: entityNames, predicate: predicate, subject: subject)
        let order = try objectOrder(table: table, sortDescriptors: sortDescriptors, subject: subject)
        let window = windowed ? self.window(limit: limit, offset: offset) : ""
        try checkLimits(scope)
        let columns = keysOnly ? "t.\"_pk\"" + (table.hasEntityColumn ? ", t.\"_entity\"" : "") : Self.selectList(table, alias: "t")
        let body = scope.fromClause + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        return CompiledFetch(
            select: "SELECT \(columns)\(body) ORDER BY \(order.joined(separator: ", "))\(window)",
            count: "SELECT count(*) FROM (SELECT 1\(body)\(window))\(dialect.derivedTableAlias)",
            arguments: arguments)
    }

    /// The WHERE conditions of a fetch of `entityNames` (all in `table`) matching `predicate`.
    package mutating func conditions(table: any SQLQueryTable, entityNames: [String], predicate: FetchPredicate?, subject: Shape) throws(Unsupported) -> [String] {
        var conditions: [String] = []
        if table.hasEntityColumn && Set(entityNames) != Set(table.entityNames) {
            var names: [String] = []
            for name in entityNames { names.append(bind(.text(name))) }
            conditions.append("t.\"_entity\" IN (\(names.joined(separator: ", ")))")
        }
        if let predicate {
            let condition = try compile(predicate, Context(subject: subject, variables: [:]))
            if condition.sql == "0" { conditions.append(dialect.boolean(false)) } else if condition.sql != "1" { conditions.append(condition.sql) }
        }
        return conditions
    }

    /// The ORDER BY terms of objects: the sort descriptors, then the object ID.
    package mutating func objectOrder(table: any SQLQueryTable, sortDescriptors: [FetchSortDescriptor], subject: Shape) throws(Unsupported) -> [String] {
        var order: [String] = []
        for descriptor in sortDescriptors {
            order += try orderTerms(descriptor, subject)
        }
        if !sortDescriptors.isEmpty && table.hasEntityColumn { order.append("t.\"_entity\"") }
        order.append("t.\"_pk\"")
        return order
    }

    /// ` LIMIT … OFFSET …`, or nothing for no window.
    package mutating func window(limit: Int, offset: Int) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        return " LIMIT \(bind(limit > 0 ? .integer(Int64(limit)) : dialect.unlimited)) OFFSET \(bind(.integer(Int64(max(offset, 0)))))"
    }

    /// Refuses what the engine cannot take: too many tables in a join, too many values to bind.
    package func checkLimits(_ scope: QueryScope) throws(Unsupported) {
        try checkTables(scope)
        guard arguments.count <= dialect.maximumParameters else {
            throw Unsupported(reason: "more than \(dialect.maximumParameters) values to bind")
        }
    }

    /// The columns a record is read from, under `alias`: `_pk`, `_entity` (if any), `_version`,
    /// then the rest in layout order (the positions ``EntityLayout`` reads) up to the shadow
    /// comparison columns, which come last and which reading never needs (selecting them cost a
    /// third more time to fetch every row of a table with three strings).
    package static func selectList(_ table: any SQLQueryTable, alias: String) -> String {
        var columns = ["\(alias).\"_pk\""]
        if table.hasEntityColumn { columns.append("\(alias).\"_entity\"") }
        columns.append("\(alias).\"_version\"")
        for column in table.recordColumns { columns.append("\(alias).\(quotedIdentifier(column))") }
        return columns.joined(separator: ", ")
    }

    /// ORDER BY terms for one sort descriptor, in `FetchSortDescriptor.compare`'s order: nil first,
    /// strings by the descriptor's string comparison, NaN after every number (as `'NaN'` text
    /// sorts after numbers), objects by entity name and primary key.
    package mutating func orderTerms(_ descriptor: FetchSortDescriptor, _ subject: Shape) throws(Unsupported) -> [String] {
        try orderTerms(of: try walk(subject, try Self.checked(descriptor.keyPathComponents)), descriptor)
    }

    /// ORDER BY terms for the values of `shape`, in the descriptor's order.
    package func orderTerms(of shape: Shape, _ descriptor: FetchSortDescriptor) throws(Unsupported) -> [String] {
        let direction = dialect.direction(ascending: descriptor.ascending)
        switch shape {
        case .scalar(let scalar):
            switch scalar.kind {
            case .string:
                // The comparison key when there is one: the order an index on it holds.
                let plain = try keyed(scalar, .strings, direction)
                switch descriptor.comparison {
                case .default:
                    return [plain]
                case .caseInsensitive:
                    return [
                        try dialect.applicationFunction("strata_fold", "\(scalar.sql), \(ComparisonOptions.caseInsensitive.rawValue)")
                            + (try dialect.collation(.strings)) + direction,
                        plain,
                    ]
                case .localizedStandard:
                    return ["\(scalar.sql)\(try dialect.collation(.localized))\(direction)"]
                }
            case .uri:
                return [try keyed(scalar, .strings, direction)]
            case .decimal:
                return [try keyed(scalar, .decimals, direction)]
            case .number, .object:
                // A `@sum` (integers, reals, 'NaN' or decimal text): by the values they stand for.
                return [try dialect.applicationFunction("strata_key", "\(scalar.kind.rawValue), \(scalar.sql)") + (try dialect.collation(.values)) + direction]
            default:
                return ["\(scalar.sql)\(direction)"]
            }
        case .object(let object):
            if object.staticEntity != nil { return ["\(object.pk)\(direction)"] }
            return ["\(object.entity)\(direction)", "\(object.pk)\(direction)"]
        default:
            // A key path that reaches nothing sortable sorts every record as nil.
            return []
        }
    }

    /// A value's comparison key when it has one (the order an index on it holds), else the value
    /// with the dialect's collation.
    func keyed(_ scalar: ScalarSQL, _ collation: SQLCollation, _ direction: String) throws(Unsupported) -> String {
        if let key = scalar.key { return "\(key)\(direction)" }
        return "\(scalar.sql)\(try dialect.collation(collation))\(direction)"
    }
}
