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
        var order: [String] = []
        for descriptor in sortDescriptors {
            order += try orderTerms(descriptor, subject)
        }
        if !sortDescriptors.isEmpty && table.hasEntityColumn { order.append("t.\"_entity\"") }
        order.append("t.\"_pk\"")
        var window = ""
        if windowed && (limit > 0 || offset > 0) {
            window = " LIMIT \(bind(.integer(limit > 0 ? Int64(limit) : -1))) OFFSET \(bind(.integer(Int64(max(offset, 0)))))"
        }
        try checkTables(scope)
        guard arguments.count <= Self.maximumParameters else {
            throw Unsupported(reason: "more than \(Self.maximumParameters) values to bind")
        }
        let columns = keysOnly ? "t.\"_pk\"" + (table.hasEntityColumn ? ", t.\"_entity\"" : "") : Self.selectList(table, alias: "t")
        let body = scope.fromClause + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        return CompiledFetch(
            select: "SELECT \(columns)\(body) ORDER BY \(order.joined(separator: ", "))\(window)",
            count: "SELECT count(*) FROM (SELECT 1\(body)\(window))",
            arguments: arguments)
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
        let direction = descriptor.ascending ? "" : " DESC"
        switch try walk(subject, try Self.checked(descriptor.keyPathComponents)) {
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
            case .number:
                throw Unsupported(reason: "sorting by an aggregate")
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
