internal import Strata

/// A fetch request of one table as SQL: the rows, and their count.
struct CompiledFetch {
    var select: String
    var count: String
    var arguments: [SQLValue]
}

extension PredicateCompiler {
    /// The SELECT of the records of `entityNames` (all in `table`) matching a request, in its
    /// order and window, and the matching COUNT.
    ///
    /// Without sort descriptors, records come in primary-key order; with them, ties are broken
    /// by object ID (entity name, then primary key), as `RecordSorter` does.
    mutating func fetch(
        table: TableLayout, entityNames: [String], predicate: FetchPredicate?, sortDescriptors: [FetchSortDescriptor],
        limit: Int, offset: Int, windowed: Bool = true, keysOnly: Bool = false
    ) throws(Unsupported) -> CompiledFetch {
        let scope = QueryScope(table: "\(quoted(table.name)) AS t")
        let subject = Shape.object(self.subject(table: table, alias: "t", scope: scope))
        let conditions = try conditions(table: table, entityNames: entityNames, predicate: predicate, subject: subject)
        let order = try objectOrder(table: table, sortDescriptors: sortDescriptors, subject: subject)
        let window = windowed ? self.window(limit: limit, offset: offset) : ""
        try checkLimits(scope)
        let columns = keysOnly ? "t.\"_pk\"" + (table.hasEntityColumn ? ", t.\"_entity\"" : "") : Self.selectList(table, alias: "t")
        let body = scope.fromClause + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        return CompiledFetch(
            select: "SELECT \(columns)\(body) ORDER BY \(order.joined(separator: ", "))\(window)",
            count: "SELECT count(*) FROM (SELECT 1\(body)\(window))",
            arguments: arguments)
    }

    /// The WHERE conditions of a fetch of `entityNames` (all in `table`) matching `predicate`.
    mutating func conditions(table: TableLayout, entityNames: [String], predicate: FetchPredicate?, subject: Shape) throws(Unsupported) -> [String] {
        var conditions: [String] = []
        if table.hasEntityColumn && Set(entityNames) != Set(table.entityNames) {
            var names: [String] = []
            for name in entityNames { names.append(bind(.text(name))) }
            conditions.append("t.\"_entity\" IN (\(names.joined(separator: ", ")))")
        }
        if let predicate {
            let condition = try compile(predicate, Context(subject: subject, variables: [:]))
            if condition.sql == "0" { conditions.append("0") } else if condition.sql != "1" { conditions.append(condition.sql) }
        }
        return conditions
    }

    /// The ORDER BY terms of objects: the sort descriptors, then the object ID.
    mutating func objectOrder(table: TableLayout, sortDescriptors: [FetchSortDescriptor], subject: Shape) throws(Unsupported) -> [String] {
        var order: [String] = []
        for descriptor in sortDescriptors {
            order += try orderTerms(descriptor, subject)
        }
        if !sortDescriptors.isEmpty && table.hasEntityColumn { order.append("t.\"_entity\"") }
        order.append("t.\"_pk\"")
        return order
    }

    /// ` LIMIT … OFFSET …`, or nothing for no window.
    mutating func window(limit: Int, offset: Int) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        return " LIMIT \(bind(.integer(limit > 0 ? Int64(limit) : -1))) OFFSET \(bind(.integer(Int64(max(offset, 0)))))"
    }

    /// Refuses what SQLite cannot take: too many tables in a join, too many values to bind.
    func checkLimits(_ scope: QueryScope) throws(Unsupported) {
        try checkTables(scope)
        guard arguments.count <= Self.maximumParameters else {
            throw Unsupported(reason: "more than \(Self.maximumParameters) values to bind")
        }
    }

    /// The columns a record is read from, under `alias`: `_pk`, `_entity` (if any), `_version`,
    /// then the rest in layout order (the positions ``EntityLayout`` reads) up to the shadow
    /// comparison columns, which come last and which reading never needs (selecting them cost a
    /// third more time to fetch every row of a table with three strings).
    static func selectList(_ table: TableLayout, alias: String) -> String {
        var columns = ["\(alias).\"_pk\""]
        if table.hasEntityColumn { columns.append("\(alias).\"_entity\"") }
        columns.append("\(alias).\"_version\"")
        for column in table.columns {
            switch column.role {
            case .stringKey, .decimalKey: continue
            default: columns.append("\(alias).\(quoted(column.name))")
            }
        }
        return columns.joined(separator: ", ")
    }

    /// ORDER BY terms for one sort descriptor, in `FetchSortDescriptor.compare`'s order: nil first,
    /// strings by the descriptor's string comparison, NaN after every number (as `'NaN'` text
    /// sorts after numbers), objects by entity name and primary key.
    mutating func orderTerms(_ descriptor: FetchSortDescriptor, _ subject: Shape) throws(Unsupported) -> [String] {
        orderTerms(of: try walk(subject, try Self.checked(descriptor.keyPathComponents)), descriptor)
    }

    /// ORDER BY terms for the values of `shape`, in the descriptor's order.
    func orderTerms(of shape: Shape, _ descriptor: FetchSortDescriptor) -> [String] {
        let direction = descriptor.ascending ? "" : " DESC"
        switch shape {
        case .scalar(let scalar):
            switch scalar.kind {
            case .string:
                // The comparison key when there is one: the order an index on it holds.
                let plain = scalar.key.map { "\($0)\(direction)" } ?? "\(scalar.sql) COLLATE \(SQLFunctions.collation)\(direction)"
                switch descriptor.comparison {
                case .default:
                    return [plain]
                case .caseInsensitive:
                    return [
                        "strata_fold(\(scalar.sql), \(ComparisonOptions.caseInsensitive.rawValue)) COLLATE \(SQLFunctions.collation)\(direction)",
                        plain,
                    ]
                case .localizedStandard:
                    return ["\(scalar.sql) COLLATE \(SQLFunctions.localizedCollation)\(direction)"]
                }
            case .uri:
                return [scalar.key.map { "\($0)\(direction)" } ?? "\(scalar.sql) COLLATE \(SQLFunctions.collation)\(direction)"]
            case .decimal:
                return [scalar.key.map { "\($0)\(direction)" } ?? "\(scalar.sql) COLLATE \(SQLFunctions.decimalCollation)\(direction)"]
            case .number, .object:
                // A `@sum` (integers, reals, 'NaN' or decimal text): by the values they stand for.
                return ["strata_key(\(scalar.kind.rawValue), \(scalar.sql)) COLLATE \(SQLFunctions.valueCollation)\(direction)"]
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
}
