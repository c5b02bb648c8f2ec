internal import Strata

/// What an expression of a predicate is, as the SQL compiler sees it: the static counterpart of
/// the evaluator's `EvaluatedValue`.
indirect enum Shape {
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

    var isCollection: Bool {
        switch self {
        case .rows, .list: true
        default: false
        }
    }
}

/// A scalar SQL expression and how its value is stored.
struct ScalarSQL {
    var sql: String
    var kind: ValueKind
    var nullable: Bool
    /// The value, when the expression is a bound constant.
    var constant: PredicateValue?
    /// For a string, URI or decimal column: the SQL of its comparison key, which compares in
    /// the evaluator's order with the BINARY collation and is what indexes hold
    /// (``TableLayout/comparisonKey(_:alias:)``).
    var key: String?
}

/// An object: its primary key and concrete entity name as SQL, and where its row can be read.
struct ObjectSQL {
    var pk: String
    /// The concrete entity name as SQL (a column or a bound literal).
    var entity: String
    /// The entity name when it is known at compile time.
    var staticEntity: String?
    /// The table alias whose row is this object's, and the scope that owns the alias; nil for a
    /// constant object, whose keys cannot be followed (the evaluator treats it as a value).
    var alias: String?
    var table: TableLayout?
    var scope: QueryScope?
    var nullable: Bool
    /// The ID, for a constant object.
    var constant: ObjectID?
}

/// The rows of a collection: a subquery scope, its correlation conditions, what each row
/// yields, and the order the evaluator would see the members in.
final class RowSource {
    let scope: QueryScope
    var conditions: [String]
    var element: Shape
    var order: [String]
    /// The key of the object whose relationship these rows are, when that object may be nil:
    /// an aggregate of a nil object's relationship is nil, not 0 (the evaluator's walk stops
    /// at the nil).
    var nullWhenNil: String?
    /// SQL that is not NULL exactly when a member row is there (its key).
    var presence: String?
    /// The rows of `@distinctUnionOfObjects`: aggregates count equal values once.
    var distinct = false

    init(scope: QueryScope, conditions: [String], element: Shape, order: [String], nullWhenNil: String? = nil, presence: String? = nil) {
        self.presence = presence
        self.scope = scope
        self.conditions = conditions
        self.element = element
        self.order = order
        self.nullWhenNil = nullWhenNil
    }

    /// `FROM … WHERE …` with `extra` conditions.
    func body(_ extra: [String] = []) -> String {
        let conditions = self.conditions + extra
        return scope.fromClause + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
    }
}

/// A compiled condition: SQL that is 1 when it holds, 0 or NULL when not (NULL only where
/// `nullable`; ``PredicateCompiler/strict(_:)`` makes it 0).
struct Condition {
    var sql: String
    var nullable: Bool
    /// For `NOT x`, the SQL of `x` (made strict): `NOT NOT x` is written as `x`, which keeps
    /// chains of NOT within SQLite's parser stack.
    var negated: String? = nil

    static let `true` = Condition(sql: "1", nullable: false)
    static let `false` = Condition(sql: "0", nullable: false)
}

/// A construct the compiler cannot turn into SQL; the store then evaluates that one request
/// in memory.
struct Unsupported: Error {
    var reason: String
}
