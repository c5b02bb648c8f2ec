internal import Foundation
package import Strata

/// How one SQL engine spells what Strata's SQL stores write alike: identifiers, parameters,
/// booleans, windows and casts. The stores' layouts and the predicate, sort and aggregate
/// compiler (``PredicateCompiler``) write SQL through a dialect instead of spelling one engine's.
///
/// The compiler writes SQL only where it gives exactly the in-memory evaluator's answers. What
/// needs the evaluator's own semantics (its string comparisons, aggregates, functions and
/// orders) is asked of the dialect (``applicationFunction(_:_:)``, ``collation(_:)``): SQLite
/// calls the evaluator inside SQL (its `strata_*` functions and collations); an engine that
/// cannot throws ``Unsupported``, and the store answers that request with the evaluator.
package protocol SQLDialect: Sendable {
    /// The name of the engine, for messages.
    var name: String { get }
    /// The placeholder of the `index`th bound value (from 1): `?1` (SQLite), `$1` (PostgreSQL).
    func parameter(_ index: Int) -> String
    /// A boolean value as SQL: `1`/`0` (SQLite), `TRUE`/`FALSE` (PostgreSQL).
    func boolean(_ value: Bool) -> String
    /// The column type of an attribute type.
    func columnType(_ type: AttributeType) -> String
    /// A value cast to a column type (`CAST(x AS REAL)`, `x::double precision`).
    func cast(_ sql: String, to type: String) -> String
    /// What an offset without a limit needs first: SQLite requires a LIMIT (` LIMIT -1`).
    var limitForOffsetOnly: String { get }

    // MARK: The compiler's

    /// An attribute's column as the compiler reads it (`sql` is the quoted column): PostgreSQL
    /// reads a boolean as an integer, 0 or 1, as SQLite keeps it.
    func attribute(_ sql: String, type: AttributeType) -> String
    /// The direction of an ORDER BY term, nil (NULL) first ascending and last descending, as
    /// the evaluator sorts (SQLite: `""`, `" DESC"`).
    func direction(ascending: Bool) -> String
    /// The placeholder of the `index`th bound value, which is `value` (an engine that infers a
    /// parameter's type from its use may need a cast).
    func placeholder(_ index: Int, for value: SQLValue) -> String
    /// A predicate constant as the value the compiler binds for it, stored as the columns of
    /// its kind are.
    func encode(_ value: PredicateValue) -> SQLValue
    /// The bound limit of a window with an offset and no limit (SQLite: -1).
    var unlimited: SQLValue { get }
    /// A constant as the comparison key a column of `kind` is compared by (its shadow column:
    /// strings, URIs and decimals on SQLite), or nil when there is none.
    func comparisonKey(of value: PredicateValue, as kind: ValueKind) -> SQLValue?
    /// `a` and `b` equal, NULL equal to NULL (`a IS b`); `negated`: the opposite (`a IS NOT b`).
    func nullSafeEqual(_ a: String, _ b: String, negated: Bool) -> String
    /// Whether the engine compares an integer with a double exactly, as the evaluator does
    /// (SQLite does; PostgreSQL converts the integer to a double, rounding it past 2^53).
    var comparesIntegersWithDoublesExactly: Bool { get }
    /// A condition on a double column that holds only for its numbers (not for NaN).
    func numbersOnly(_ sql: String) -> String
    /// A call of one of the evaluator's functions in SQL (`strata_compare`, `strata_fold`,
    /// `strata_key`, `strata_aggregate`, `strata_function`); throws where the engine has none.
    func applicationFunction(_ name: String, _ arguments: String) throws(Unsupported) -> String
    /// ` COLLATE …` that orders and compares as the evaluator does; throws where the engine
    /// has no such collation.
    func collation(_ collation: SQLCollation) throws(Unsupported) -> String
    /// A condition as an integer, 1 or 0 (SQLite's conditions already are).
    func integer(ofCondition sql: String) -> String
    /// The alias a derived table (a subquery in FROM) needs: PostgreSQL before 16 requires one.
    var derivedTableAlias: String { get }
    /// The most tables one FROM clause may join.
    var maximumTables: Int { get }
    /// The most values one statement may bind.
    var maximumParameters: Int { get }
}

/// An order of the evaluator's that a dialect may offer as a collation.
package enum SQLCollation: Sendable {
    /// Strings and URIs: Unicode canonical equivalence, then code points.
    case strings
    /// Decimals as text: by value.
    case decimals
    /// `localizedStandardCompare`.
    case localized
    /// Values of mixed kinds (an `@sum`'s integers, doubles and decimals) by what they stand for.
    case values
}

/// An identifier in double quotes, a quote inside doubled (every engine: standard SQL).
package func quotedIdentifier(_ identifier: String) -> String {
    // Most names hold no quote: Foundation's search and copy are skipped for them.
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension SQLDialect {
    /// An identifier in double quotes, a quote inside doubled (both engines: standard SQL).
    package func quote(_ identifier: String) -> String {
        quotedIdentifier(identifier)
    }

    /// A string literal in single quotes, a quote inside doubled (for internal names only; values
    /// are always bound).
    package func literal(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    package func placeholder(_ index: Int, for value: SQLValue) -> String { parameter(index) }

    /// `LIMIT … OFFSET …` for a window (0: no limit), empty for none.
    package func window(limit: Int, offset: Int) -> String {
        var clause = ""
        if limit > 0 { clause += " LIMIT \(limit)" } else if offset > 0 { clause += limitForOffsetOnly }
        if offset > 0 { clause += " OFFSET \(offset)" }
        return clause
    }
}

/// PostgreSQL's spelling.
package struct PostgreSQLDialect: SQLDialect {
    package init() {}
    package var name: String { "PostgreSQL" }
    package func parameter(_ index: Int) -> String { "$\(index)" }
    package func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
    package var limitForOffsetOnly: String { "" }
    /// Dates are `double precision` seconds since 2001, not `timestamptz`, whose microseconds
    /// would round a `Date`'s bits away.
    package func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: "text"
        case .int16: "smallint"
        case .int32: "integer"
        case .int64: "bigint"
        case .decimal: "numeric"
        case .double, .date: "double precision"
        case .float: "real"
        case .bool: "boolean"
        case .binary, .transformable: "bytea"
        case .uuid: "uuid"
        }
    }
    package func cast(_ sql: String, to type: String) -> String { "\(sql)::\(type)" }

    // MARK: The compiler's

    package func attribute(_ sql: String, type: AttributeType) -> String { type == .bool ? "\(sql)::integer" : sql }
    /// PostgreSQL sorts NULL last ascending: the evaluator's nil comes first.
    package func direction(ascending: Bool) -> String { ascending ? " NULLS FIRST" : " DESC NULLS LAST" }

    /// A typed placeholder: a parameter's type would otherwise be inferred from its use (a
    /// double compared with a `real` column would be rounded to a float).
    package func placeholder(_ index: Int, for value: SQLValue) -> String {
        switch value {
        case .integer: "$\(index)::bigint"
        case .real: "$\(index)::double precision"
        case .blob: "$\(index)::bytea"
        case .text, .null: "$\(index)"
        }
    }

    /// As the PostgreSQL store keeps values: numbers as they are (NaN a double too), decimals
    /// as numeric text, dates as seconds since 2001, UUIDs as text, booleans as 0 and 1 (a
    /// boolean column is read as an integer by the compiler).
    package func encode(_ value: PredicateValue) -> SQLValue {
        switch value {
        case .null, .array: .null
        case .bool(let v): .integer(v ? 1 : 0)
        case .integer(let v): .integer(v)
        case .double(let v): .real(v)
        case .decimal(let v): .text(DecimalText.text(for: v))
        case .string(let v): .text(v)
        case .date(let v): .real(v.timeIntervalSinceReferenceDate)
        case .data(let v): .blob(v)
        case .uuid(let v): .text(v.uuidString)
        case .uri(let v): .text(v.absoluteString)
        case .object(let id): .integer(id.primaryKey ?? 0)
        }
    }

    package var unlimited: SQLValue { .null }
    package var comparesIntegersWithDoublesExactly: Bool { false }
    /// No comparison-key columns: strings, URIs and decimals are left to the evaluator.
    package func comparisonKey(of value: PredicateValue, as kind: ValueKind) -> SQLValue? { nil }

    package func nullSafeEqual(_ a: String, _ b: String, negated: Bool) -> String {
        negated ? "\(a) IS DISTINCT FROM \(b)" : "\(a) IS NOT DISTINCT FROM \(b)"
    }

    /// PostgreSQL sorts NaN above every number (and finds it equal to itself, as the evaluator
    /// does).
    package func numbersOnly(_ sql: String) -> String { "\(sql) <> 'NaN'::double precision" }

    /// PostgreSQL has none of the evaluator's functions: the request is the evaluator's.
    package func applicationFunction(_ name: String, _ arguments: String) throws(Unsupported) -> String {
        throw Unsupported(reason: "\(name): the evaluator's semantics, which PostgreSQL has no function for")
    }

    /// PostgreSQL's collations (ICU's included) do not order as the evaluator does (canonical
    /// equivalence, then code points; `[c]`, `[d]` folding): the request is the evaluator's.
    package func collation(_ collation: SQLCollation) throws(Unsupported) -> String {
        throw Unsupported(reason: "the evaluator's order of \(collation), which PostgreSQL has no collation for")
    }

    package func integer(ofCondition sql: String) -> String { "\(sql)::integer" }
    package var derivedTableAlias: String { " AS d" }
    package var maximumTables: Int { 64 }
    /// The wire protocol counts parameters in 16 bits.
    package var maximumParameters: Int { 65_535 }
}
