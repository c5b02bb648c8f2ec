internal import Foundation
package import Strata

extension PredicateCompiler {
    /// The shape of an expression, as the evaluator's `value(of:on:variables:)` computes it.
    package mutating func value(_ expression: FetchExpression, _ context: Context) throws(Unsupported) -> Shape {
        switch expression {
        case .constant(let constant):
            return lift(constant)
        case .keyPath(let path):
            return try walk(context.subject, try Self.checked(path))
        case .evaluatedObject:
            return context.subject
        case .variable(let name, let path):
            // An unbound variable is the evaluator's to report.
            guard let bound = context.variables[name] else { throw Unsupported(reason: "the variable $\(name) has no value") }
            return try walk(bound, try Self.checked(path))
        case .array(let expressions):
            var members: [Shape] = []
            try nested { (compiler) throws(Unsupported) in
                for expression in expressions { members.append(try compiler.value(expression, context)) }
            }
            return .list(members)
        case .subquery(let collection, let variable, let predicate, let path):
            return try nested { (compiler) throws(Unsupported) in
                try compiler.subquery(collection, variable, predicate, try Self.checked(path), context)
            }
        case .function(let function, let arguments):
            return try nested { (compiler) throws(Unsupported) in try compiler.function(function, arguments, context) }
        case .index(let collection, let index, let path):
            return try nested { (compiler) throws(Unsupported) in try compiler.index(collection, index, try Self.checked(path), context) }
        }
    }

    /// A key path no longer than ``FetchPredicate/maximumKeyPathLength``: `walk` recurses once
    /// per component.
    package static func checked(_ path: [String]) throws(Unsupported) -> ArraySlice<String> {
        guard path.count <= FetchPredicate.maximumKeyPathLength else { throw Unsupported(reason: "a key path too long") }
        return path[...]
    }

    /// `SUBQUERY(collection, $variable, predicate)` followed by `path`.
    private mutating func subquery(
        _ collection: FetchExpression, _ variable: String, _ predicate: FetchPredicate, _ path: ArraySlice<String>, _ context: Context
    ) throws(Unsupported) -> Shape {
        let source = try value(collection, context)
        let filtered: Shape
        switch source {
        case .null:
            filtered = .list([])
        case .rows(let rows):
            var inner = context
            inner.variables[variable] = rows.element
            if case .object = rows.element { inner.subject = rows.element }
            let condition = try compile(predicate, inner)
            let kept = RowSource(
                scope: rows.scope, conditions: rows.conditions + (condition.sql == "1" ? [] : [spelled(condition)]),
                element: rows.element, order: rows.order)
            kept.distinct = rows.distinct
            filtered = .rows(kept)
        case .scalar, .object:
            // One member (none when NULL at run time): rows of a FROM-less SELECT.
            var inner = context
            inner.variables[variable] = source
            if case .object = source { inner.subject = source }
            let condition = try compile(predicate, inner)
            var conditions = [spelled(condition)]
            if case .scalar(let scalar) = source, scalar.nullable { conditions.insert("\(scalar.sql) IS NOT NULL", at: 0) }
            if case .object(let object) = source, object.nullable { conditions.insert("\(object.pk) IS NOT NULL", at: 0) }
            filtered = .rows(RowSource(scope: QueryScope(), conditions: conditions, element: source, order: []))
        case .list:
            throw Unsupported(reason: "SUBQUERY over an array")
        }
        return try walk(filtered, path)
    }

    /// A constant as a shape: objects are values whose keys cannot be followed, as in memory.
    package mutating func lift(_ constant: PredicateValue) -> Shape {
        switch constant {
        case .null:
            return .null
        case .array(let values):
            return .list(values.map { lift($0) })
        case .object(let id):
            return .object(ObjectSQL(
                pk: bind(.integer(id.primaryKey ?? Int64.max)), entity: bind(.text(id.entityName)), staticEntity: id.entityName,
                alias: nil, table: nil, scope: nil, nullable: false, constant: id))
        default:
            return .scalar(ScalarSQL(sql: bind(dialect.encode(constant)), kind: ValueKind(constant)!, nullable: false, constant: constant))
        }
    }

    /// The evaluator's `walk`: follows a key path from a shape.
    package mutating func walk(_ start: Shape, _ path: ArraySlice<String>) throws(Unsupported) -> Shape {
        guard let key = path.first else { return start }
        let rest = path.dropFirst()
        if key == "@distinctUnionOfObjects" {
            return try distinctUnion(start, rest)
        }
        if key.hasPrefix("@") {
            return try aggregate(key, start, rest)
        }
        switch start {
        case .null, .scalar:
            return .null
        case .object(let object):
            guard let alias = object.alias, let table = object.table, let scope = object.scope else { return .null }
            if let (owner, relationship) = relationship(key, in: table) {
                if relationship.isToMany {
                    return try walk(.rows(members(of: object, owner: owner, relationship)), rest)
                }
                let destination = toOne(object, alias: alias, scope: scope, relationship)
                try checkTables(scope)
                return try walk(.object(destination), rest)
            }
            if key == "self" || key == "SELF" { return try walk(start, rest) }
            if let type = table.attributeType(key) {
                let scalar = ScalarSQL(
                    sql: dialect.attribute("\(alias).\(dialect.quote(key))", type: type), kind: ValueKind(type), nullable: true,
                    key: table.comparisonKey(key, alias: alias))
                return try walk(.scalar(scalar), rest)
            }
            return .null
        case .rows(let rows):
            guard !rows.distinct else { throw Unsupported(reason: "a key path through distinct values") }
            let mapped = try walk(rows.element, path)
            switch mapped {
            case .rows(let inner):
                // Each member's distinct values, joined: flattened, they would be deduplicated
                // across members too.
                guard !inner.distinct else { throw Unsupported(reason: "distinct values of each member of a collection") }
                guard let owner = inner.nullWhenNil else {
                    let leftover = rows.scope.absorb(inner.scope, on: inner.conditions, always: dialect.boolean(true))
                    try checkTables(rows.scope)
                    return .rows(RowSource(
                        scope: rows.scope, conditions: rows.conditions + leftover, element: inner.element, order: rows.order + inner.order,
                        nullWhenNil: rows.nullWhenNil, presence: inner.presence))
                }
                // A member whose path stops at a nil object adds one nil element (the
                // evaluator's walk returns nil for it), not none: outer-join the inner rows.
                guard !rows.scope.isEmpty, let presence = inner.presence else {
                    throw Unsupported(reason: "a collection through a nil-able relationship of a single value")
                }
                _ = rows.scope.absorb(inner.scope, on: inner.conditions, outer: true, always: dialect.boolean(true))
                try checkTables(rows.scope)
                var element = inner.element
                if case .object(var object) = element {
                    object.nullable = true
                    element = .object(object)
                }
                return .rows(RowSource(
                    scope: rows.scope, conditions: rows.conditions + ["(\(owner) IS NULL OR \(presence) IS NOT NULL)"], element: element,
                    order: rows.order + inner.order, nullWhenNil: rows.nullWhenNil, presence: presence))
            case .list:
                throw Unsupported(reason: "a collection of arrays")
            default:
                return .rows(RowSource(
                    scope: rows.scope, conditions: rows.conditions, element: mapped, order: rows.order,
                    nullWhenNil: rows.nullWhenNil, presence: rows.presence))
            }
        case .list(let members):
            var result: [Shape] = []
            for member in members {
                let value = try walk(member, path)
                switch value {
                case .list(let nested): result += nested
                case .rows: throw Unsupported(reason: "an array of to-many key paths")
                default: result.append(value)
                }
            }
            return .list(result)
        }
    }

    /// The relationship `key` of some entity of a table's hierarchy, and that entity.
    package func relationship(_ key: String, in table: any SQLQueryTable) -> (String, RelationshipDescription)? {
        for name in table.entityNames {
            if let relationship = layout.schema.entity(named: name)?.relationship(named: key) { return (name, relationship) }
        }
        return nil
    }

    /// The destination of a to-one relationship: a LEFT JOIN, so that nil and dangling
    /// references both read as no object, as in memory.
    package mutating func toOne(_ object: ObjectSQL, alias: String, scope: QueryScope, _ relationship: RelationshipDescription) -> ObjectSQL {
        let root = layout.schema.entity(named: relationship.destination)?.rootName ?? relationship.destination
        let table = layout.queryTable(forRoot: root)!
        let key = "\(alias).\(relationship.name)"
        let joined: String
        if let existing = scope.joinAlias(key) {
            joined = existing
        } else {
            joined = self.alias("j")
            scope.addJoin(key: key, table: "\(dialect.quote(root)) AS \(joined)", alias: joined, on: "\(joined).\"_pk\" = \(alias).\(dialect.quote(relationship.name))")
        }
        return ObjectSQL(
            pk: "\(joined).\"_pk\"", entity: table.hasEntityColumn ? "\(joined).\"_entity\"" : dialect.literal(root),
            staticEntity: table.hasEntityColumn ? nil : root, alias: joined, table: table, scope: scope.resolved,
            nullable: true, constant: nil)
    }

    /// The members of a to-many relationship of an object, as rows of a correlated subquery.
    package mutating func members(of object: ObjectSQL, owner: String, _ relationship: RelationshipDescription) throws(Unsupported) -> RowSource {
        guard let storage = layout.toManyStorage(of: owner, relationship.name) else {
            throw Unsupported(reason: "the relationship \(owner).\(relationship.name) has no storage in this store")
        }
        switch storage {
        case .foreignKey(let tableName, let column, let orderColumn, let filter):
            let table = layout.queryTable(forRoot: tableName)!
            let member = alias("m")
            let scope = QueryScope(table: "\(dialect.quote(tableName)) AS \(member)")
            var conditions = ["\(member).\(dialect.quote(column)) = \(object.pk)"]
            if let filter {
                var names: [String] = []
                for name in filter { names.append(bind(.text(name))) }
                conditions.append("\(member).\"_entity\" IN (\(names.joined(separator: ", ")))")
            }
            var order = ["\(member).\"_pk\""]
            if let orderColumn { order.insert("\(member).\(dialect.quote(orderColumn))", at: 0) }
            return RowSource(
                scope: scope, conditions: conditions, element: .object(subject(table: table, alias: member, scope: scope)), order: order,
                nullWhenNil: object.nullable ? object.pk : nil, presence: "\(member).\"_pk\"")
        case .joinTable(let tableName, let own, let other, let orderColumn, let otherRoot):
            let table = layout.queryTable(forRoot: otherRoot)!
            let link = alias("l")
            let member = alias("m")
            let scope = QueryScope(table: "\(dialect.quote(tableName)) AS \(link)")
            _ = scope.absorb(QueryScope(table: "\(dialect.quote(otherRoot)) AS \(member)"), on: ["\(member).\"_pk\" = \(link).\(dialect.quote(other))"], always: dialect.boolean(true))
            var order = ["\(link).\(dialect.quote(other))"]
            if let orderColumn { order.insert("\(link).\(dialect.quote(orderColumn))", at: 0) }
            return RowSource(
                scope: scope, conditions: ["\(link).\(dialect.quote(own)) = \(object.pk)"],
                element: .object(subject(table: table, alias: member, scope: scope)), order: order,
                nullWhenNil: object.nullable ? object.pk : nil, presence: "\(member).\"_pk\"")
        }
    }

    /// The evaluator's `aggregate`: `@count`, `@sum`, `@avg`, `@min`, `@max` of the elements of
    /// `start`, each followed by `rest` (for all but `@count`).
    package mutating func aggregate(_ key: String, _ start: Shape, _ rest: ArraySlice<String>) throws(Unsupported) -> Shape {
        var distinct = false
        if case .rows(let rows) = start, rows.distinct {
            guard rest.isEmpty else { throw Unsupported(reason: "\(key) of a key path of distinct values") }
            distinct = true
            if key == "@count" { return try countDistinct(rows) }
        }
        if key == "@count" {
            let count: ScalarSQL
            switch start {
            case .null:
                count = ScalarSQL(sql: "0", kind: .integer, nullable: false, constant: .integer(0))
            case .scalar(let scalar):
                count = scalar.nullable
                    ? ScalarSQL(sql: dialect.integer(ofCondition: "(\(scalar.sql) IS NOT NULL)"), kind: .integer, nullable: false)
                    : ScalarSQL(sql: "1", kind: .integer, nullable: false, constant: .integer(1))
            case .object(let object):
                count = object.nullable
                    ? ScalarSQL(sql: dialect.integer(ofCondition: "(\(object.pk) IS NOT NULL)"), kind: .integer, nullable: false)
                    : ScalarSQL(sql: "1", kind: .integer, nullable: false, constant: .integer(1))
            case .rows(let rows):
                if let owner = rows.nullWhenNil {
                    count = ScalarSQL(sql: "CASE WHEN \(owner) IS NULL THEN NULL ELSE (SELECT count(*)\(rows.body())) END", kind: .integer, nullable: true)
                } else {
                    count = ScalarSQL(sql: "(SELECT count(*)\(rows.body()))", kind: .integer, nullable: false)
                }
            case .list(let members):
                count = ScalarSQL(sql: "\(members.count)", kind: .integer, nullable: false, constant: .integer(Int64(members.count)))
            }
            return try walk(.scalar(count), rest)
        }
        guard let operation = SQLAggregate(key) else { return .null }
        let empty: Shape = operation == .sum
            ? .scalar(ScalarSQL(sql: "0", kind: .integer, nullable: false, constant: .integer(0)))
            : .null
        let dialect = self.dialect
        func call(_ kind: ValueKind, _ value: String) throws(Unsupported) -> String {
            try dialect.applicationFunction("strata_aggregate", "\(operation.rawValue + (distinct ? SQLAggregate.distinctFlag : 0)), \(kind.rawValue), \(value)")
        }
        func result(_ sql: String, _ element: ValueKind) -> Shape {
            switch operation {
            case .sum: .scalar(ScalarSQL(sql: "coalesce(\(sql), 0)", kind: .number, nullable: false))
            case .stddev: .scalar(ScalarSQL(sql: sql, kind: .double, nullable: true))
            // The average of decimals is a decimal (exact), of other numbers a double.
            case .avg, .median: .scalar(ScalarSQL(sql: sql, kind: .number, nullable: true))
            case .count: .scalar(ScalarSQL(sql: "coalesce(\(sql), 0)", kind: .integer, nullable: false))
            case .min, .max: .scalar(ScalarSQL(sql: sql, kind: element, nullable: true))
            }
        }
        switch start {
        case .null:
            return empty
        case .scalar, .object:
            guard case .scalar(let element) = try walk(start, rest) else { return empty }
            // The value goes through a table of one row: without a FROM, an aggregate whose
            // argument names only the outer query's columns (`sum:(priority)`) is the outer
            // query's, which a WHERE may not hold. (A group's own aggregate in a HAVING keeps
            // the direct form, where it is the outer query's by design.)
            if Self.aggregatesOuterRows(element.sql) {
                return result("(SELECT \(try call(element.kind, element.sql)))", element.kind)
            }
            return result("(SELECT \(try call(element.kind, "v")) FROM (SELECT \(element.sql) AS v)\(dialect.derivedTableAlias))", element.kind)
        case .rows(let rows):
            guard case .scalar(let element) = try walk(rows.element, rest) else {
                guard let owner = rows.nullWhenNil, case .scalar(var zero) = empty else { return empty }
                zero.sql = "CASE WHEN \(owner) IS NULL THEN NULL ELSE 0 END"
                zero.nullable = true
                zero.constant = nil
                return .scalar(zero)
            }
            let ordered = rows.order.isEmpty ? "" : " ORDER BY " + rows.order.joined(separator: ", ")
            let aggregated = result(
                "(SELECT \(try call(element.kind, "v")) FROM (SELECT \(element.sql) AS v\(rows.body())\(ordered))\(dialect.derivedTableAlias))", element.kind)
            guard let owner = rows.nullWhenNil, case .scalar(var scalar) = aggregated else { return aggregated }
            scalar.sql = "CASE WHEN \(owner) IS NULL THEN NULL ELSE \(scalar.sql) END"
            scalar.nullable = true
            return .scalar(scalar)
        case .list(let members):
            return try listAggregate(operation, members, rest, empty: empty)
        }
    }

    /// `@count` of distinct rows: their distinct values, counted in Swift.
    private mutating func countDistinct(_ rows: RowSource) throws(Unsupported) -> Shape {
        let code = SQLAggregate.count.rawValue + SQLAggregate.distinctFlag
        let count = "coalesce((SELECT \(try dialect.applicationFunction("strata_aggregate", "\(code), \(Self.valueOf(rows.element))"))\(rows.body())), 0)"
        guard let owner = rows.nullWhenNil else { return .scalar(ScalarSQL(sql: count, kind: .integer, nullable: false)) }
        return .scalar(ScalarSQL(sql: "CASE WHEN \(owner) IS NULL THEN NULL ELSE \(count) END", kind: .integer, nullable: true))
    }

    /// Whether SQL calls an aggregate function outside the subqueries it holds (those
    /// aggregate their own rows): `count(*)` of a group does, `(SELECT count(*) FROM …)` does not.
    package static func aggregatesOuterRows(_ sql: String) -> Bool {
        let bytes = Array(sql.utf8)
        var outside: [UInt8] = []
        var index = 0
        let select = Array("(SELECT".utf8)
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "("), bytes[index...].starts(with: select) {
                var depth = 0
                repeat {
                    if bytes[index] == UInt8(ascii: "(") { depth += 1 }
                    if bytes[index] == UInt8(ascii: ")") { depth -= 1 }
                    index += 1
                } while depth > 0 && index < bytes.count
                continue
            }
            outside.append(bytes[index])
            index += 1
        }
        let text = String(decoding: outside, as: UTF8.self)
        return text.contains("count(") || text.contains("strata_aggregate(")
    }

    /// An aggregate of an array's members (each followed by `rest`): the non-nil values among
    /// them, as rows of a `UNION ALL` with their kinds, since members may be of different kinds.
    private mutating func listAggregate(
        _ operation: SQLAggregate, _ members: [Shape], _ rest: ArraySlice<String>, empty: Shape
    ) throws(Unsupported) -> Shape {
        var selects: [String] = []
        var constants: [PredicateValue] = []
        var kinds: Set<ValueKind> = []
        for member in members {
            guard case .scalar(let value) = try walk(member, rest) else { continue }
            // Inside the subquery below, an aggregate of the outer query (a group's `count(*)`
            // in a HAVING) would aggregate the subquery's one row instead: left to the evaluator.
            if Self.aggregatesOuterRows(value.sql) {
                throw Unsupported(reason: "a group's aggregate inside an array that is aggregated")
            }
            selects.append("SELECT \(value.kind.rawValue) AS k, \(value.sql) AS v")
            kinds.insert(value.kind)
            if let constant = value.constant { constants.append(constant) }
        }
        if selects.isEmpty { return empty }
        if constants.count == selects.count {
            let value = AggregateSemantics.compute(operation, constants, distinct: false)
            return operation == .sum || value != .null ? lift(value) : .null
        }
        let sql = "(SELECT \(try dialect.applicationFunction("strata_aggregate", "\(operation.rawValue), k, v")) FROM (\(selects.joined(separator: " UNION ALL ")))\(dialect.derivedTableAlias))"
        switch operation {
        case .sum: return .scalar(ScalarSQL(sql: "coalesce(\(sql), 0)", kind: .number, nullable: false))
        case .stddev: return .scalar(ScalarSQL(sql: sql, kind: .double, nullable: true))
        case .avg, .median: return .scalar(ScalarSQL(sql: sql, kind: .number, nullable: true))
        case .count: return .scalar(ScalarSQL(sql: "coalesce(\(sql), 0)", kind: .integer, nullable: false))
        case .min, .max:
            // The least of values of different kinds may be any of them: no one kind to read.
            guard kinds.count == 1, let kind = kinds.first else { throw Unsupported(reason: "\(operation) of an array of mixed kinds") }
            return .scalar(ScalarSQL(sql: sql, kind: kind, nullable: true))
        }
    }
}
