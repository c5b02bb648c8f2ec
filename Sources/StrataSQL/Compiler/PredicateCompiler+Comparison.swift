internal import Foundation
package import Strata

extension PredicateCompiler {
    /// One comparison of two values (the evaluator's `compare`), with its nil rules: with nil on
    /// one side only, `==` is false and `!=` true; nil equals nil; ordering with nil is false.
    package mutating func compare(_ left: Shape, _ op: ComparisonOperator, _ right: Shape, _ options: ComparisonOptions) throws(Unsupported) -> Condition {
        if left.isCollection || right.isCollection { return .false }
        if let l = Self.staticValue(left), let r = Self.staticValue(right) {
            // A comparison of two constants that cannot be decided (a MATCHES past the regex
            // engine's limits) is left to the evaluator, which reports it.
            guard let holds = try? PredicateEvaluator<Never>.compare(l, op, r, options) else {
                throw Unsupported(reason: "a comparison of constants that cannot be decided")
            }
            return holds ? .true : .false
        }
        switch (left, right) {
        case (.null, let other), (let other, .null):
            return Self.nilComparison(other, op)
        case (.object(let a), .object(let b)):
            return objectComparison(a, op, b)
        case (.object(let object), .scalar(let scalar)), (.scalar(let scalar), .object(let object)):
            // Never equal unless both are nil.
            guard op == .equal || op == .notEqual else { return .false }
            let bothNil = object.nullable && scalar.nullable
                ? Condition(sql: "(\(object.pk) IS NULL AND \(scalar.sql) IS NULL)", nullable: false)
                : .false
            return op == .equal ? bothNil : not(bothNil)
        case (.scalar(let a), .scalar(let b)):
            if let native = try native(a, op, b, options) { return native }
            return try generic(a, op, b, options)
        default:
            return .false
        }
    }

    package static func staticValue(_ shape: Shape) -> PredicateValue? {
        switch shape {
        case .null: .null
        case .scalar(let scalar): scalar.constant
        case .object(let object): object.constant.map { .object($0) }
        default: nil
        }
    }

    package static func nilComparison(_ other: Shape, _ op: ComparisonOperator) -> Condition {
        let sql: String
        let nullable: Bool
        switch other {
        case .scalar(let scalar): (sql, nullable) = (scalar.sql, scalar.nullable)
        case .object(let object): (sql, nullable) = (object.pk, object.nullable)
        case .null: return op == .equal ? .true : .false
        default: return .false
        }
        switch op {
        case .equal: return nullable ? Condition(sql: "\(sql) IS NULL", nullable: false) : .false
        case .notEqual: return nullable ? Condition(sql: "\(sql) IS NOT NULL", nullable: false) : .true
        default: return .false
        }
    }

    /// `strata_compare`: the evaluator's own comparison, on values decoded by kind (where the
    /// dialect has it).
    package func generic(_ a: ScalarSQL, _ op: ComparisonOperator, _ b: ScalarSQL, _ options: ComparisonOptions) throws(Unsupported) -> Condition {
        Condition(
            sql: try dialect.applicationFunction(
                "strata_compare", "\(SQLAggregate.code(op)), \(options.rawValue), \(a.kind.rawValue), \(a.sql), \(b.kind.rawValue), \(b.sql)"),
            nullable: false)
    }

    // MARK: - Objects

    private mutating func objectComparison(_ a: ObjectSQL, _ op: ComparisonOperator, _ b: ObjectSQL) -> Condition {
        if a.constant != nil && b.constant == nil { return objectComparison(b, Self.flipped(op), a) }
        switch op {
        case .equal, .notEqual:
            let equal: Condition
            if let id = b.constant {
                if id.storeIdentifier != storeIdentifier || id.isTemporary || (a.staticEntity != nil && a.staticEntity != id.entityName) {
                    equal = .false
                } else if a.staticEntity != nil {
                    equal = Condition(sql: "\(a.pk) = \(b.pk)", nullable: a.nullable)
                } else {
                    equal = Condition(sql: "(\(a.pk) = \(b.pk) AND \(a.entity) = \(b.entity))", nullable: a.nullable)
                }
            } else {
                var same = "\(a.pk) = \(b.pk)"
                if a.staticEntity == nil || b.staticEntity == nil || a.staticEntity != b.staticEntity {
                    same = "(\(same) AND \(a.entity) = \(b.entity))"
                }
                if a.nullable && b.nullable {
                    equal = Condition(sql: "((\(a.pk) IS NULL AND \(b.pk) IS NULL) OR \(same))", nullable: true)
                } else {
                    equal = Condition(sql: same, nullable: a.nullable || b.nullable)
                }
            }
            return op == .equal ? equal : not(equal)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            let strict = op == .lessThan || op == .greaterThan
            let before = op == .lessThan || op == .lessThanOrEqual ? "<" : ">"
            let keyOp = before + (strict ? "" : "=")
            return Condition(
                sql: "(\(a.entity) \(before) \(b.entity) OR (\(a.entity) = \(b.entity) AND \(a.pk) \(keyOp) \(b.pk)))",
                nullable: true)
        default:
            return .false
        }
    }

    package static func flipped(_ op: ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        default: op
        }
    }

    // MARK: - Native comparisons

    package static func isIntegerLike(_ kind: ValueKind) -> Bool { kind == .integer || kind == .bool }

    package static func folds(_ options: ComparisonOptions) -> Bool {
        !options.intersection([.caseInsensitive, .diacriticInsensitive]).isEmpty
    }

    /// Whether `column = constant` in SQL (after ``nativeOperand(_:_:)`` and
    /// ``nativeConstant(_:as:_:)``) is exactly the evaluator's equality for non-nil values.
    package static func nativeEquality(
        _ kind: ValueKind, _ constantKind: ValueKind, _ value: PredicateValue, _ options: ComparisonOptions, exactMixedNumbers: Bool
    ) -> Bool {
        if !exactMixedNumbers && ((isIntegerLike(kind) && constantKind == .double) || (kind == .double && isIntegerLike(constantKind))) {
            return false
        }
        switch (kind, constantKind) {
        case (.integer, .integer), (.integer, .bool), (.bool, .integer), (.bool, .bool):
            return true
        case (.integer, .double), (.bool, .double), (.double, .integer), (.double, .bool), (.double, .double), (.double, .decimal):
            if case .double(let d) = value, d.isNaN { return false }
            return true
        case (.date, .date), (.string, .string), (.uri, .uri), (.uuid, .uuid), (.binary, .binary),
             (.decimal, .decimal), (.decimal, .integer):
            return true
        default:
            return false
        }
    }

    /// The comparison key of a scalar for a native comparison under `options`: its key column
    /// (``ScalarSQL/key``) — nil for a string compared with folding options, which only a
    /// query-time function can fold.
    package static func key(_ scalar: ScalarSQL, _ options: ComparisonOptions) -> String? {
        if scalar.kind == .string && folds(options) { return nil }
        return scalar.key
    }

    /// A constant bound as the key a column of `kind` is compared by (SQLite's `ComparisonKey`); nil
    /// when the kinds have no common key.
    package mutating func keyConstant(_ value: PredicateValue, as kind: ValueKind) -> String? {
        dialect.comparisonKey(of: value, as: kind).map { bind($0) }
    }

    /// The expression and collation a native comparison uses for a scalar.
    package func nativeOperand(_ scalar: ScalarSQL, _ options: ComparisonOptions) throws(Unsupported) -> (String, String) {
        switch scalar.kind {
        case .string:
            let sql = Self.folds(options) ? try dialect.applicationFunction("strata_fold", "\(scalar.sql), \(options.rawValue)") : scalar.sql
            return (sql, try dialect.collation(.strings))
        case .uri:
            return (scalar.sql, try dialect.collation(.strings))
        case .decimal:
            return (scalar.sql, try dialect.collation(.decimals))
        default:
            return (scalar.sql, "")
        }
    }

    /// A constant bound as the other side of a native comparison with a value of `kind`.
    package mutating func nativeConstant(_ value: PredicateValue, as kind: ValueKind, _ options: ComparisonOptions) -> String {
        switch (kind, value) {
        case (.string, .string(let string)):
            return bind(.text(StringMatching.fold(string, options)))
        case (.double, .decimal), (.integer, .decimal):
            return bind(dialect.encode(.double(PredicateEvaluator<Never>.doubleValue(value) ?? .nan)))
        case (.decimal, .integer(let integer)):
            return bind(dialect.encode(.decimal(Decimal(integer))))
        default:
            return bind(dialect.encode(value))
        }
    }

    /// The comparison in plain SQL when that is exactly the evaluator's, else nil.
    private mutating func native(_ a: ScalarSQL, _ op: ComparisonOperator, _ b: ScalarSQL, _ options: ComparisonOptions) throws(Unsupported) -> Condition? {
        guard [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(op) else { return nil }
        if a.constant != nil && b.constant == nil { return try native(b, Self.flipped(op), a, options) }
        let numeric: Set<ValueKind> = [.integer, .bool, .double]
        if numeric.contains(a.kind) && (numeric.contains(b.kind) || (a.kind == .double && b.kind == .decimal && b.constant != nil)) {
            if Self.isIntegerLike(a.kind) && Self.isIntegerLike(b.kind) {
                return plain(a.sql, op, b.sql, "", a.nullable, b.nullable)
            }
            if !dialect.comparesIntegersWithDoublesExactly && Self.isIntegerLike(a.kind) != Self.isIntegerLike(b.kind) {
                return mixedNumbers(a, op, b)
            }
            if let constant = b.constant {
                let isNaN: Bool
                if case .double(let d) = constant { isNaN = d.isNaN } else { isNaN = false }
                if isNaN {
                    guard a.kind == .double else { return op == .notEqual ? .true : .false }
                    let nan = bind(dialect.encode(.double(.nan)))
                    switch op {
                    case .equal, .lessThanOrEqual, .greaterThanOrEqual: return Condition(sql: dialect.nullSafeEqual(a.sql, nan, negated: false), nullable: false)
                    case .notEqual: return Condition(sql: dialect.nullSafeEqual(a.sql, nan, negated: true), nullable: false)
                    default: return .false
                    }
                }
                let value = nativeConstant(constant, as: a.kind, options)
                if a.kind == .double && (op == .greaterThan || op == .greaterThanOrEqual) {
                    // NaN is not greater than any number (SQLite keeps it as text, PostgreSQL sorts it
                    // last): numbers only.
                    return Condition(sql: "(\(a.sql) \(op == .greaterThan ? ">" : ">=") \(value) AND \(dialect.numbersOnly(a.sql)))", nullable: true)
                }
                return plain(a.sql, op, value, "", a.nullable, false)
            }
            guard op == .equal || op == .notEqual else { return nil }
            return plain(a.sql, op, b.sql, "", a.nullable, b.nullable)
        }
        switch (a.kind, b.kind) {
        case (.date, .date), (.uuid, .uuid), (.binary, .binary), (.string, .string), (.uri, .uri), (.decimal, .decimal), (.decimal, .integer):
            if a.kind == .decimal && b.kind == .integer && b.constant == nil { return nil }
            // Both sides as comparison keys, with the BINARY collation: what the indexes hold.
            if let left = Self.key(a, options) {
                if let constant = b.constant, let right = keyConstant(constant, as: a.kind) {
                    return plain(left, op, right, "", a.nullable, false)
                }
                if a.kind == b.kind, let right = Self.key(b, options) {
                    return plain(left, op, right, "", a.nullable, b.nullable)
                }
            }
            let (left, collation) = try nativeOperand(a, options)
            let right: String
            if let constant = b.constant {
                right = nativeConstant(constant, as: a.kind, options)
            } else {
                right = try nativeOperand(b, options).0
            }
            return plain(left, op, right, collation, a.nullable, b.nullable)
        default:
            return nil
        }
    }

    /// An integer against a double where the engine compares them as doubles (rounding
    /// integers past 2^53), unlike the evaluator, which compares them exactly: against a double
    /// constant, the integer is compared with an integer (or the answer is known); a double
    /// against an integer constant that a double holds exactly is a comparison of doubles; else
    /// nil (the evaluator's).
    private mutating func mixedNumbers(_ a: ScalarSQL, _ op: ComparisonOperator, _ b: ScalarSQL) -> Condition? {
        guard case .double(let d)? = b.constant else {
            guard a.kind == .double, case .integer(let i)? = b.constant, i.magnitude <= 1 << 53 else { return nil }
            if op == .greaterThan || op == .greaterThanOrEqual {
                return Condition(sql: "(\(a.sql) \(op.rawValue) \(bind(.real(Double(i)))) AND \(dialect.numbersOnly(a.sql)))", nullable: true)
            }
            return plain(a.sql, op, bind(.real(Double(i))), "", a.nullable, false)
        }
        guard Self.isIntegerLike(a.kind) else { return nil }
        let present = Condition(sql: "\(a.sql) IS NOT NULL", nullable: false)
        if d.isNaN { return op == .notEqual ? .true : .false }
        // Past the integers' range (or infinite): every integer is on one side.
        if d >= 0x1p63 || d < -0x1p63 {
            let below = d > 0
            switch op {
            case .lessThan, .lessThanOrEqual: return below ? (a.nullable ? present : .true) : .false
            case .greaterThan, .greaterThanOrEqual: return below ? .false : (a.nullable ? present : .true)
            case .notEqual: return .true
            default: return .false
            }
        }
        if d == d.rounded(.down) {
            return plain(a.sql, op, bind(.integer(Int64(d))), "", a.nullable, false)
        }
        // Not an integer: x < d is x <= floor(d), x > d is x >= ceil(d).
        switch op {
        case .equal: return .false
        case .notEqual: return .true
        case .lessThan, .lessThanOrEqual: return plain(a.sql, .lessThanOrEqual, bind(.integer(Int64(d.rounded(.down)))), "", a.nullable, false)
        case .greaterThan, .greaterThanOrEqual: return plain(a.sql, .greaterThanOrEqual, bind(.integer(Int64(d.rounded(.up)))), "", a.nullable, false)
        default: return nil
        }
    }

    private func plain(_ a: String, _ op: ComparisonOperator, _ b: String, _ collation: String, _ aNullable: Bool, _ bNullable: Bool) -> Condition {
        switch op {
        case .equal:
            if aNullable && bNullable { return Condition(sql: dialect.nullSafeEqual(a, "\(b)\(collation)", negated: false), nullable: false) }
            return Condition(sql: "\(a) = \(b)\(collation)", nullable: aNullable || bNullable)
        case .notEqual:
            return Condition(sql: dialect.nullSafeEqual(a, "\(b)\(collation)", negated: true), nullable: false)
        default:
            return Condition(sql: "\(a) \(op.rawValue) \(b)\(collation)", nullable: aNullable || bNullable)
        }
    }
}
