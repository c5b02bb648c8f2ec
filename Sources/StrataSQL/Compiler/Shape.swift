package import Strata

/// What an expression of a predicate is, as the SQL compiler sees it: the static counterpart of
/// the evaluator's `EvaluatedValue`.
package indirect enum Shape {
    /// Always nil (a nil constant, a key path past an attribute).
    case null
    /// One value, possibly NULL at run time.
    case scalar(ScalarSQL)
    /// One object (possibly none at run time, for a to-one relationship).
    case object(ObjectSQL)
    /// The members of a to-many key path or SUBQUERY: rows of a correlated subquery.
    case rows(RowSource)
    /// An array of expressions (`{1, 2, title}`), members known at compile time.
    case list([Shape])

    package var isCollection: Bool {
        switch self {
        case .rows, .list: true
        default: false
        }
    }
}

/// A scalar SQL expression and how its value is stored.
package struct ScalarSQL {
    package var sql: String
    package var kind: ValueKind
    package var nullable: Bool
    /// The value, when the expression is a bound constant.
    package var constant: PredicateValue?
    /// For a string, URI or decimal column: the SQL of its comparison key, which compares in
    /// the evaluator's order with the BINARY collation and is what indexes hold
    /// (``SQLQueryTable/comparisonKey(_:alias:)``).
    package var key: String?
}

/// An object: its primary key and concrete entity name as SQL, and where its row can be read.
package struct ObjectSQL {
    package var pk: String
    /// The concrete entity name as SQL (a column or a bound literal).
    package var entity: String
    /// The entity name when it is known at compile time.
    package var staticEntity: String?
    /// The table alias whose row is this object's, and the scope that owns the alias; nil for a
    /// constant object, whose keys cannot be followed (the evaluator treats it as a value).
    package var alias: String?
    package var table: (any SQLQueryTable)?
    package var scope: QueryScope?
    package var nullable: Bool
    /// The ID, for a constant object.
    package var constant: ObjectID?
}

/// The rows of a collection: a subquery scope, its correlation conditions, what each row
/// yields, and the order the evaluator would see the members in.
package final class RowSource {
    package let scope: QueryScope
    package var conditions: [String]
    package var element: Shape
    package var order: [String]
    /// The key of the object whose relationship these rows are, when that object may be nil:
    /// an aggregate of a nil object's relationship is nil, not 0 (the evaluator's walk stops
    /// at the nil).
    package var nullWhenNil: String?
    /// SQL that is not NULL exactly when a member row is there (its key).
    package var presence: String?
    /// The rows of `@distinctUnionOfObjects`: aggregates count equal values once.
    package var distinct = false

    package init(scope: QueryScope, conditions: [String], element: Shape, order: [String], nullWhenNil: String? = nil, presence: String? = nil) {
        self.presence = presence
        self.scope = scope
        self.conditions = conditions
        self.element = element
        self.order = order
        self.nullWhenNil = nullWhenNil
    }

    /// `FROM … WHERE …` with `extra` conditions.
    package func body(_ extra: [String] = []) -> String {
        let conditions = self.conditions + extra
        return scope.fromClause + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
    }
}

/// A compiled condition: SQL that is true (1) when it holds, false (0) or NULL when not (NULL
/// only where `nullable`; ``PredicateCompiler/strict(_:)`` makes it false). ``true`` and
/// ``false`` are the compiler's own constants ("1", "0"), folded away or spelled by the
/// dialect where they reach SQL.
package struct Condition {
    package var sql: String
    package var nullable: Bool
    /// For `NOT x`, the SQL of `x` (made strict): `NOT NOT x` is written as `x`, which keeps
    /// chains of NOT within SQLite's parser stack.
    package var negated: String? = nil

    package static let `true` = Condition(sql: "1", nullable: false)
    package static let `false` = Condition(sql: "0", nullable: false)
}

/// A construct the compiler cannot turn into SQL; the store then evaluates that one request
/// in memory.
package struct Unsupported: Error {
    package var reason: String

    package init(reason: String) {
        self.reason = reason
    }
}
