package import Strata

/// A dictionary fetch of one table as one SELECT, and how to read each column of its rows.
package struct CompiledDictionaryFetch {
    package var sql: String
    package var arguments: [SQLValue]
    /// How each column of the plan (in order) is read from a row.
    package var readers: [ColumnReader]

    package init(sql: String, arguments: [SQLValue], readers: [ColumnReader]) {
        self.sql = sql
        self.arguments = arguments
        self.readers = readers
    }
}

/// Where a column's value is in a row, and what it is.
package enum ColumnReader {
    /// A value stored as `kind`, of a column whose values have `type`.
    case value(index: Int32, kind: ValueKind, type: AttributeType?)
    /// An object: its key, and its entity name (a column, or known when nil).
    case object(pk: Int32, entity: Int32?, staticEntity: String?)
}

extension PredicateCompiler {
    /// The SELECT of a dictionary fetch of `entityNames` (all in `table`), with the
    /// evaluator's rows (``DictionaryPlan``): the same values, groups and order.
    ///
    /// - Without groups: one row per object, in the fetch's order.
    /// - With groups: `GROUP BY` the group keys as the evaluator compares them (strings,
    ///   URIs and decimals by their comparison keys or collations); group key columns are read
    ///   from the group's row with the smallest primary key (SQLite's bare columns beside the
    ///   one `min()` of the query); aggregates are `count` and the evaluator's own
    ///   `strata_aggregate`; `HAVING` is the having predicate with columns in place of its names;
    ///   order by the sort descriptors, then the group keys.
    /// - Distinct: the rows above numbered in their order (`ROW_NUMBER()`), grouped by every
    ///   column and ordered by the first number of each group.
    package mutating func dictionaries(table: any SQLQueryTable, entityNames: [String], request: StoreDictionaryRequest) throws(Unsupported) -> CompiledDictionaryFetch {
        let plan = request.plan
        let fetch = request.fetch
        let scope = QueryScope(table: "\(dialect.quote(table.name)) AS t")
        let subject = Shape.object(self.subject(table: table, alias: "t", scope: scope))
        let conditions = try conditions(table: table, entityNames: entityNames, predicate: fetch.predicate, subject: subject)
        var select: [String] = []
        func add(_ sql: String) -> Int32 {
            select.append(sql)
            return Int32(select.count - 1)
        }
        var readers: [ColumnReader] = []
        var order: [String] = []
        var groupBy: [String] = []
        var having = ""
        if plan.isGrouped {
            // The anchor of the bare columns: the group's row with the smallest key.
            _ = add("min(t.\"_pk\")")
            var shapes: [Shape] = []
            // The columns come first among the named values.
            for (index, column) in plan.named.enumerated() {
                let shape = try value(column.value, subject)
                shapes.append(shape)
                if index < plan.columns.count { readers.append(reader(shape, column.value, add)) }
            }
            for key in plan.groupKeys {
                let shape = try value(key.value, subject)
                groupBy.append(try groupTerm(shape))
                order += try orderTerms(of: shape, FetchSortDescriptor(""))
            }
            var sorted: [String] = []
            for (descriptor, position) in zip(fetch.sortDescriptors, plan.sortPositions) {
                sorted += try orderTerms(of: shapes[position], descriptor)
            }
            order = sorted + order
            if let predicate = plan.having {
                var variables: [String: Shape] = [:]
                let names = plan.named.map(\.name)
                let bound = try Self.bindColumns(predicate, names)
                for (index, shape) in shapes.enumerated() { variables["\u{1}\(index)"] = shape }
                let condition = try compile(bound, Context(subject: subject, variables: variables))
                if condition.sql != "1" { having = " HAVING \(condition.sql)" }
            }
        } else {
            for column in plan.columns {
                readers.append(reader(try value(column.value, subject), column.value, add))
            }
            order = try objectOrder(table: table, sortDescriptors: fetch.sortDescriptors, subject: subject)
        }
        let window = self.window(limit: fetch.fetchLimit, offset: fetch.fetchOffset)
        try checkLimits(scope)
        let body = scope.fromClause + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + (groupBy.isEmpty ? "" : " GROUP BY " + groupBy.joined(separator: ", ")) + having
        let columns = select.enumerated().map { "\($1) AS \"c\($0)\"" }.joined(separator: ", ")
        let orderBy = order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", ")
        guard plan.distinct else {
            return CompiledDictionaryFetch(sql: "SELECT \(columns)\(body)\(orderBy)\(window)", arguments: arguments, readers: readers)
        }
        let numbered = "SELECT \(columns), ROW_NUMBER() OVER (\(orderBy.dropFirst())) AS \"_rn\"\(body)"
        var distinctKeys: [String] = []
        for reader in readers { distinctKeys += try distinctTerms(reader) }
        let outer = (0..<select.count).map { "\"c\($0)\"" }.joined(separator: ", ")
        let grouped = distinctKeys.isEmpty ? "" : " GROUP BY " + distinctKeys.joined(separator: ", ")
        return CompiledDictionaryFetch(
            sql: "SELECT \(outer), min(\"_rn\") FROM (\(numbered))\(dialect.derivedTableAlias)\(grouped) ORDER BY min(\"_rn\")\(window)",
            arguments: arguments, readers: readers)
    }

    /// The shape of what a column or group key reads; its aggregate for an aggregate.
    private mutating func value(_ value: DictionaryPlan.Value, _ subject: Shape) throws(Unsupported) -> Shape {
        switch value {
        case .scalar(let path, _), .object(let path):
            let shape = try walk(subject, try Self.checked(path))
            switch shape {
            case .scalar, .object, .null: return shape
            case .rows, .list: throw Unsupported(reason: "the key path \(path.joined(separator: ".")) gives several values")
            }
        case .members(let path):
            throw Unsupported(reason: "the to-many relationship \(path.joined(separator: ".")) as a column")
        case .computed(let computation):
            // The expression with a variable for each value it is computed from, so that the
            // compiler computes it as it computes a predicate's.
            var variables: [String: Shape] = [:]
            let expression = try self.expression(computation, subject, &variables)
            let shape = try self.value(expression, Context(subject: subject, variables: variables))
            switch shape {
            case .scalar, .null: return shape
            default: throw Unsupported(reason: "an expression column of several values")
            }
        case .aggregate(let function, let path, _):
            if function == .count && path.isEmpty {
                return .scalar(ScalarSQL(sql: "count(*)", kind: .integer, nullable: false))
            }
            let element = try walk(subject, try Self.checked(path))
            if function == .count {
                switch element {
                case .scalar(let scalar): return .scalar(ScalarSQL(sql: "count(\(scalar.sql))", kind: .integer, nullable: false))
                case .object(let object): return .scalar(ScalarSQL(sql: "count(\(object.pk))", kind: .integer, nullable: false))
                case .null: return .scalar(ScalarSQL(sql: "0", kind: .integer, nullable: false))
                case .rows, .list: throw Unsupported(reason: "@count of several values per object")
                }
            }
            guard let operation = SQLAggregate(function.rawValue) else { throw Unsupported(reason: "the aggregate \(function.rawValue)") }
            let scalar: ScalarSQL
            switch element {
            case .scalar(let found): scalar = found
            case .null: scalar = ScalarSQL(sql: "NULL", kind: .integer, nullable: true)
            default: throw Unsupported(reason: "\(function.rawValue) of several values per object")
            }
            let call = try dialect.applicationFunction("strata_aggregate", "\(operation.rawValue), \(scalar.kind.rawValue), \(scalar.sql)")
            switch operation {
            case .sum: return .scalar(ScalarSQL(sql: "coalesce(\(call), 0)", kind: .number, nullable: false))
            // A number: the average of decimals is a decimal (exact), of other numbers a double.
            case .avg: return .scalar(ScalarSQL(sql: call, kind: .number, nullable: true))
            case .min, .max: return .scalar(ScalarSQL(sql: call, kind: scalar.kind, nullable: true))
            // The middle value of its kind (of an odd count) or a mean: a number.
            case .median: return .scalar(ScalarSQL(sql: call, kind: .number, nullable: true))
            case .stddev: return .scalar(ScalarSQL(sql: call, kind: .double, nullable: true))
            case .count: throw Unsupported(reason: "the aggregate \(function.rawValue) of a group")
            }
        }
    }

    /// A computed column as an expression of the compiler, its values as variables.
    private mutating func expression(
        _ computation: DictionaryPlan.Computation, _ subject: Shape, _ variables: inout [String: Shape]
    ) throws(Unsupported) -> FetchExpression {
        switch computation {
        case .constant(let value):
            return .constant(value)
        case .value(let leaf):
            let name = "\u{2}\(variables.count)"
            variables[name] = try value(leaf, subject)
            return .variable(name, [])
        case .apply(let function, let arguments):
            var compiled: [FetchExpression] = []
            for argument in arguments { compiled.append(try expression(argument, subject, &variables)) }
            return .function(function, compiled)
        case .orZero(let inner):
            // The inner value, made 0 where it is nil, as a variable of its own.
            var shape: Shape
            if case .value(let leaf) = inner {
                shape = try value(leaf, subject)
            } else {
                throw Unsupported(reason: "a computed value made 0 where nil")
            }
            switch shape {
            case .scalar(var scalar):
                scalar.sql = "coalesce(\(scalar.sql), 0)"
                scalar.nullable = false
                shape = .scalar(scalar)
            case .null:
                shape = .scalar(ScalarSQL(sql: "0", kind: .integer, nullable: false, constant: .integer(0)))
            default:
                throw Unsupported(reason: "a value made 0 where nil that is not one value")
            }
            let name = "\u{2}\(variables.count)"
            variables[name] = shape
            return .variable(name, [])
        }
    }

    /// Selects what a column reads and says how to read it.
    private func reader(_ shape: Shape, _ value: DictionaryPlan.Value, _ add: (String) -> Int32) -> ColumnReader {
        let type: AttributeType?
        switch value {
        case .scalar(_, let valueType), .aggregate(_, _, let valueType): type = valueType
        case .computed: type = nil
        case .object, .members:
            guard case .object(let object) = shape else {
                return .object(pk: add("NULL"), entity: nil, staticEntity: "")
            }
            let pk = add(object.pk)
            let entity = object.staticEntity == nil ? add(object.entity) : nil
            return .object(pk: pk, entity: entity, staticEntity: object.staticEntity)
        }
        switch shape {
        case .scalar(let scalar): return .value(index: add(scalar.sql), kind: scalar.kind, type: type)
        default: return .value(index: add("NULL"), kind: type.map(ValueKind.init) ?? .number, type: type)
        }
    }

    /// The GROUP BY term of a group key: equal exactly when the evaluator finds the values equal.
    private func groupTerm(_ shape: Shape) throws(Unsupported) -> String {
        switch shape {
        case .scalar(let scalar):
            switch scalar.kind {
            case .string, .uri: return try keyed(scalar, .strings, "")
            case .decimal: return try keyed(scalar, .decimals, "")
            case .integer, .bool, .double, .date, .binary, .uuid: return scalar.sql
            case .number, .object: return try valueKey(scalar.kind, scalar.sql)
            }
        case .object(let object):
            return object.pk
        default:
            return "NULL"
        }
    }

    /// The GROUP BY terms over the selected columns that make equal rows one (distinct).
    private func distinctTerms(_ reader: ColumnReader) throws(Unsupported) -> [String] {
        switch reader {
        case .value(let index, let kind, _):
            let column = "\"c\(index)\""
            switch kind {
            case .string, .uri: return ["\(column)\(try dialect.collation(.strings))"]
            case .decimal: return ["\(column)\(try dialect.collation(.decimals))"]
            case .integer, .bool, .double, .date, .binary, .uuid: return [column]
            case .number, .object: return [try valueKey(kind, column)]
            }
        case .object(let pk, let entity, _):
            return ["\"c\(pk)\""] + (entity.map { ["\"c\($0)\""] } ?? [])
        }
    }

    /// The having predicate with each name replaced by the variable the compiler binds to its
    /// column (`\u{1}` and its position among the named values).
    package static func bindColumns(_ predicate: FetchPredicate, _ names: [String]) throws(Unsupported) -> FetchPredicate {
        do {
            return try DictionaryPlan.substitute(predicate, depth: 0) { (name) throws(StrataError) in
                guard let index = names.firstIndex(of: name) else { throw StrataError(.invalidPredicate, name) }
                return .variable("\u{1}\(index)", [])
            }
        } catch {
            throw Unsupported(reason: "a having predicate: \(error.message)")
        }
    }

    /// A value of mixed kinds (`strata_key`) with the collation that orders and groups it by
    /// the value it stands for.
    private func valueKey(_ kind: ValueKind, _ sql: String) throws(Unsupported) -> String {
        try dialect.applicationFunction("strata_key", "\(kind.rawValue), \(sql)") + (try dialect.collation(.values))
    }
}
