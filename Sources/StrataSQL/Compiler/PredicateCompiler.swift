internal import Foundation
package import Strata

/// Compiles predicates and sort descriptors into SQL that gives exactly the answers of the
/// in-memory `PredicateEvaluator` (whose documentation states the rules).
///
/// The compiler mirrors the evaluator's structure: expressions become ``Shape``s (a value, an
/// object, the rows of a collection, a list), key paths are walked the way `walk` walks them,
/// and `test` and `compare` are reproduced case by case. Three rules keep SQL from drifting:
///
/// - Every value is a bound parameter (the dialect's placeholder: `?N`, `$N`); only internal
///   codes are written into the SQL.
/// - SQL's NULL never leaks: a comparison may be NULL only where NULL and false are the same
///   (under AND, OR and WHERE); `NOT` and `ALL` first turn it into 0 with `coalesce`.
/// - Where native SQL could differ from the evaluator in any case (decimals against doubles,
///   string operators, mixed kinds, `@sum` …), the comparison calls `strata_compare`, which is
///   the evaluator's own `compare` on the decoded values (a dialect without it throws
///   ``Unsupported``: ``SQLDialect/applicationFunction(_:_:)``). Native SQL is used only where it is
///   provably the same: integers, doubles (with NaN kept as `'NaN'` text and guarded), dates,
///   binary, UUIDs, and strings, URIs and decimals through their comparison keys (the shadow
///   columns the indexes hold, with the BINARY collation: SQLite's `ComparisonKey`), or the `strata`
///   collations where no key column is at hand (folded strings, aggregates).
///
/// What the engine cannot take — more than ``SQLDialect/maximumTables`` tables in one FROM clause
/// (a long to-one key path joins a table per step), more than ``SQLDialect/maximumParameters``
/// bound values, a
/// predicate nested deeper than ``FetchPredicate/maximumDepth`` or a key path longer than
/// ``FetchPredicate/maximumKeyPathLength`` — is ``Unsupported``: the store evaluates that
/// request in memory instead (and the evaluator reports the last two). Long runs of AND and OR
/// are written as balanced trees, so that SQLite's expression depth (1,000) grows with the
/// logarithm of their length.
package struct PredicateCompiler {
    package let layout: any SQLQueryLayout
    package let dialect: any SQLDialect
    private(set) var arguments: [SQLValue] = []
    private var aliasCount = 0
    /// The levels of AND, OR, NOT, SUBQUERY and arrays being compiled.
    private var depth = 0

    package init(layout: any SQLQueryLayout, dialect: any SQLDialect) {
        self.layout = layout
        self.dialect = dialect
    }

    /// Binds a value and returns its parameter.
    package mutating func bind(_ value: SQLValue) -> String {
        arguments.append(value)
        return dialect.placeholder(arguments.count, for: value)
    }

    /// Counts one more level of nesting while `body` compiles it.
    package mutating func nested<T>(_ body: (inout PredicateCompiler) throws(Unsupported) -> T) throws(Unsupported) -> T {
        guard depth < FetchPredicate.maximumDepth else { throw Unsupported(reason: "a predicate nested too deeply") }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    /// Refuses a FROM clause with more tables than the engine joins.
    package func checkTables(_ scope: QueryScope) throws(Unsupported) {
        if scope.resolved.items.count > dialect.maximumTables {
            throw Unsupported(reason: "more than \(dialect.maximumTables) tables in one join")
        }
    }

    package mutating func alias(_ prefix: String) -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

    /// The object a fetch is about: a row of `table` under `alias`.
    package func subject(table: any SQLQueryTable, alias: String, scope: QueryScope) -> ObjectSQL {
        ObjectSQL(
            pk: "\(alias).\"_pk\"", entity: table.hasEntityColumn ? "\(alias).\"_entity\"" : dialect.literal(table.name),
            staticEntity: table.hasEntityColumn ? nil : table.name, alias: alias, table: table, scope: scope,
            nullable: false, constant: nil)
    }

    package struct Context {
        package var subject: Shape
        package var variables: [String: Shape]

        package init(subject: Shape, variables: [String: Shape]) {
            self.subject = subject
            self.variables = variables
        }
    }

    // MARK: - Predicates

    package mutating func compile(_ predicate: FetchPredicate, _ context: Context) throws(Unsupported) -> Condition {
        switch predicate {
        case .constant(let value):
            return value ? .true : .false
        case .and(let predicates):
            guard !predicates.isEmpty else { return .true }
            var parts: [Condition] = []
            try nested { (compiler) throws(Unsupported) in
                for predicate in predicates { parts.append(try compiler.compile(predicate, context)) }
            }
            if parts.count == 1 { return parts[0] }
            return balanced(parts, "AND")
        case .or(let predicates):
            guard !predicates.isEmpty else { return .false }
            var parts: [Condition] = []
            try nested { (compiler) throws(Unsupported) in
                for predicate in predicates { parts.append(try compiler.compile(predicate, context)) }
            }
            if parts.count == 1 { return parts[0] }
            return balanced(parts, "OR")
        case .not(let inner):
            return not(try nested { (compiler) throws(Unsupported) in try compiler.compile(inner, context) })
        case .comparison(let comparison):
            return try compile(comparison, context)
        }
    }

    /// False where the condition is NULL: AND and OR are monotone, so making the whole of a
    /// condition strict equals making each comparison in it strict.
    package func strict(_ condition: Condition) -> Condition {
        condition.nullable ? Condition(sql: "coalesce(\(condition.sql), \(dialect.boolean(false)))", nullable: false) : condition
    }

    package func not(_ condition: Condition) -> Condition {
        switch condition.sql {
        case "1": return .false
        case "0": return .true
        default:
            if let inner = condition.negated { return Condition(sql: inner, nullable: false) }
            let operand = strict(condition).sql
            return Condition(sql: "NOT \(operand)", nullable: false, negated: operand)
        }
    }

    package func and(_ parts: [Condition]) -> Condition {
        let kept = parts.filter { $0.sql != "1" }
        if kept.contains(where: { $0.sql == "0" }) { return .false }
        if kept.isEmpty { return .true }
        if kept.count == 1 { return kept[0] }
        return balanced(kept, "AND")
    }

    package func or(_ parts: [Condition]) -> Condition {
        let kept = parts.filter { $0.sql != "0" }
        if kept.contains(where: { $0.sql == "1" }) { return .true }
        if kept.isEmpty { return .false }
        if kept.count == 1 { return kept[0] }
        return balanced(kept, "OR")
    }

    /// Two or more conditions joined by `AND` or `OR`, in parentheses: a few in a row, more as
    /// a balanced tree, since SQLite parses `a OR b OR c …` into a tree as deep as the run is
    /// long and refuses one deeper than 1,000.
    package func balanced(_ parts: [Condition], _ connective: String) -> Condition {
        let nullable = parts.contains(where: \.nullable)
        guard parts.count > 4 else {
            return Condition(sql: "(" + parts.map(spelled).joined(separator: " \(connective) ") + ")", nullable: nullable)
        }
        let middle = parts.count / 2
        let sql = "(" + balanced(Array(parts[..<middle]), connective).sql + " \(connective) " + balanced(Array(parts[middle...]), connective).sql + ")"
        return Condition(sql: sql, nullable: nullable)
    }

    /// A condition's SQL, the compiler's constants ("1", "0") in the dialect's spelling.
    package func spelled(_ condition: Condition) -> String {
        switch condition.sql {
        case "1": dialect.boolean(true)
        case "0": dialect.boolean(false)
        default: condition.sql
        }
    }

    private mutating func compile(_ comparison: Comparison, _ context: Context) throws(Unsupported) -> Condition {
        let left = try value(comparison.left, context)
        let right = try value(comparison.right, context)
        let op = comparison.op
        let options = comparison.options
        switch comparison.modifier {
        case .any:
            return try any(left) { (compiler, element) throws(Unsupported) in try compiler.test(element, op, right, options) }
        case .all:
            return try all(left) { (compiler, element) throws(Unsupported) in try compiler.test(element, op, right, options) }
        case .none:
            return not(try any(left) { (compiler, element) throws(Unsupported) in try compiler.test(element, op, right, options) })
        case .direct:
            if left.isCollection && op != .contains {
                let some = try any(left) { (compiler, element) throws(Unsupported) in try compiler.test(element, op, right, options) }
                // A to-many key path through a nil object is nil itself, compared as a value.
                guard case .rows(let rows) = left, let owner = rows.nullWhenNil else { return some }
                let asNil = try test(.null, op, right, options)
                return or([and([Condition(sql: "\(owner) IS NULL", nullable: false), asNil]), some])
            }
            return try test(left, op, right, options)
        }
    }

    package typealias ElementTest = (inout PredicateCompiler, Shape) throws(Unsupported) -> Condition

    /// True when some element of `shape` (as the evaluator's `elements(of:)` lists them) passes.
    package mutating func any(_ shape: Shape, _ body: ElementTest) throws(Unsupported) -> Condition {
        switch shape {
        case .null:
            return .false
        case .rows(let rows):
            let test = try body(&self, rows.element)
            if test.sql == "0" { return .false }
            return Condition(sql: "EXISTS (SELECT 1\(rows.body(test.sql == "1" ? [] : [test.sql])))", nullable: false)
        case .list(let members):
            var parts: [Condition] = []
            for member in members { parts.append(try body(&self, member)) }
            return or(parts)
        case .scalar(let scalar):
            let test = try body(&self, shape)
            guard scalar.nullable else { return test }
            return and([Condition(sql: "\(scalar.sql) IS NOT NULL", nullable: false), test])
        case .object(let object):
            let test = try body(&self, shape)
            guard object.nullable else { return test }
            return and([Condition(sql: "\(object.pk) IS NOT NULL", nullable: false), test])
        }
    }

    /// True when every element of `shape` passes (also when there is none).
    package mutating func all(_ shape: Shape, _ body: ElementTest) throws(Unsupported) -> Condition {
        switch shape {
        case .null:
            return .true
        case .rows(let rows):
            let test = try body(&self, rows.element)
            if test.sql == "1" { return .true }
            return Condition(sql: "NOT EXISTS (SELECT 1\(rows.body([spelled(not(test))])))", nullable: false)
        case .list(let members):
            var parts: [Condition] = []
            for member in members { parts.append(try body(&self, member)) }
            return and(parts)
        case .scalar(let scalar):
            let test = try body(&self, shape)
            guard scalar.nullable else { return test }
            return or([Condition(sql: "\(scalar.sql) IS NULL", nullable: false), test])
        case .object(let object):
            let test = try body(&self, shape)
            guard object.nullable else { return test }
            return or([Condition(sql: "\(object.pk) IS NULL", nullable: false), test])
        }
    }

    /// The evaluator's `test`: collection operators first, then one comparison of two values.
    package mutating func test(_ left: Shape, _ op: ComparisonOperator, _ right: Shape, _ options: ComparisonOptions) throws(Unsupported) -> Condition {
        switch op {
        case .in:
            if case .list(let members) = right {
                return try equalsAny(left, members, options)
            }
            if right.isCollection {
                return try any(right) { (compiler, member) throws(Unsupported) in try compiler.test(left, .equal, member, options) }
            }
            if left.isCollection { return .false }
            // `needle IN haystack` on two strings is a substring test.
            return try compare(right, .contains, left, options)
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                if case .rows = right { throw Unsupported(reason: "BETWEEN with a to-many key path as its bounds") }
                return .false
            }
            return and([
                try test(left, .greaterThanOrEqual, bounds[0], options),
                try test(left, .lessThanOrEqual, bounds[1], options),
            ])
        case .contains:
            if left.isCollection {
                return try any(left) { (compiler, member) throws(Unsupported) in try compiler.test(member, .equal, right, options) }
            }
        default:
            break
        }
        if case .rows(let rows) = right, let owner = rows.nullWhenNil, !left.isCollection {
            // Through a nil object the right side is nil, not a collection.
            return and([Condition(sql: "\(owner) IS NULL", nullable: false), try compare(left, op, .null, options)])
        }
        if left.isCollection || right.isCollection { return .false }
        return try compare(left, op, right, options)
    }

    /// `left == m` for some member `m`: one `IN (…)` for the members SQL can compare natively,
    /// a comparison each for the rest.
    package mutating func equalsAny(_ left: Shape, _ members: [Shape], _ options: ComparisonOptions) throws(Unsupported) -> Condition {
        if left.isCollection { return .false }
        var parts: [Condition] = []
        var rest: [Shape] = []
        switch left {
        case .scalar(let scalar) where scalar.constant == nil:
            var values: [PredicateValue] = []
            for member in members {
                if case .scalar(let constant) = member, let value = constant.constant,
                   Self.nativeEquality(scalar.kind, ValueKind(value) ?? .object, value, options, exactMixedNumbers: dialect.comparesIntegersWithDoublesExactly) {
                    values.append(value)
                } else {
                    rest.append(member)
                }
            }
            if !values.isEmpty, let key = Self.key(scalar, options) {
                var placeholders: [String] = []
                for value in values { placeholders.append(keyConstant(value, as: scalar.kind) ?? nativeConstant(value, as: scalar.kind, options)) }
                parts.append(Condition(sql: "\(key) IN (\(placeholders.joined(separator: ", ")))", nullable: true))
            } else if !values.isEmpty {
                let (sql, collation) = try nativeOperand(scalar, options)
                var placeholders: [String] = []
                for value in values { placeholders.append(nativeConstant(value, as: scalar.kind, options)) }
                parts.append(Condition(sql: "\(sql)\(collation) IN (\(placeholders.joined(separator: ", ")))", nullable: true))
            }
        case .object(let object) where object.constant == nil:
            var byEntity: [String: [Int64]] = [:]
            var order: [String] = []
            for member in members {
                if case .object(let constant) = member, let id = constant.constant {
                    guard let key = id.primaryKey, id.storeIdentifier == storeIdentifier else { continue }
                    if byEntity[id.entityName] == nil { order.append(id.entityName) }
                    byEntity[id.entityName, default: []].append(key)
                } else {
                    rest.append(member)
                }
            }
            for entity in order {
                if let known = object.staticEntity, known != entity { continue }
                var keys: [String] = []
                for key in byEntity[entity]! { keys.append(bind(.integer(key))) }
                var condition = "\(object.pk) IN (\(keys.joined(separator: ", ")))"
                if object.staticEntity == nil { condition = "(\(object.entity) = \(bind(.text(entity))) AND \(condition))" }
                parts.append(Condition(sql: condition, nullable: true))
            }
        default:
            rest = members
        }
        for member in rest { parts.append(try test(left, .equal, member, options)) }
        return or(parts)
    }

    /// The identifier of the store whose objects the compiled SQL reads.
    package var storeIdentifier: String = ""
}
