internal import Foundation
package import Strata
package import StrataSQL

/// SQLite's spelling. What needs the evaluator's semantics is the evaluator itself, called from
/// SQL: the `strata_*` functions and collations of ``SQLFunctions``, registered on every
/// connection; strings, URIs and decimals are compared by their comparison keys
/// (``ComparisonKey``).
package struct SQLiteDialect: SQLDialect {
    package init() {}
    package var name: String { "SQLite" }
    package func parameter(_ index: Int) -> String { "?\(index)" }
    package func boolean(_ value: Bool) -> String { value ? "1" : "0" }
    package var limitForOffsetOnly: String { " LIMIT -1" }
    package func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .decimal, .uuid, .uri: "TEXT"
        case .int16, .int32, .int64, .bool: "INTEGER"
        // ANY keeps a bound REAL as it is: a REAL column would store -0.0 as the integer 0.
        case .double, .float: "ANY"
        case .date: "REAL"
        case .binary, .transformable: "BLOB"
        }
    }
    package func cast(_ sql: String, to type: String) -> String { "CAST(\(sql) AS \(type))" }

    // MARK: The compiler's

    package func attribute(_ sql: String, type: AttributeType) -> String { sql }
    /// SQLite sorts NULL first ascending, last descending, as the evaluator sorts nil.
    package func direction(ascending: Bool) -> String { ascending ? "" : " DESC" }
    package func encode(_ value: PredicateValue) -> SQLValue { ValueCodec.encode(value) }
    package var unlimited: SQLValue { .integer(-1) }
    package var comparesIntegersWithDoublesExactly: Bool { true }

    package func comparisonKey(of value: PredicateValue, as kind: ValueKind) -> SQLValue? {
        switch (kind, value) {
        case (.string, .string(let string)): .text(ComparisonKey.normalizedString(string))
        case (.uri, .uri(let url)): .text(ComparisonKey.normalizedString(url.absoluteString))
        case (.decimal, .decimal(let decimal)): .text(ComparisonKey.decimal(decimal))
        case (.decimal, .integer(let integer)): .text(ComparisonKey.decimal(Decimal(integer)))
        default: nil
        }
    }

    package func nullSafeEqual(_ a: String, _ b: String, negated: Bool) -> String {
        negated ? "\(a) IS NOT \(b)" : "\(a) IS \(b)"
    }

    /// NaN is kept as the text `'NaN'`, which SQL sorts after every number: `< ''` keeps numbers.
    package func numbersOnly(_ sql: String) -> String { "\(sql) < ''" }

    package func applicationFunction(_ name: String, _ arguments: String) -> String { "\(name)(\(arguments))" }

    package func collation(_ collation: SQLCollation) -> String {
        switch collation {
        case .strings: " COLLATE \(SQLFunctions.collation)"
        case .decimals: " COLLATE \(SQLFunctions.decimalCollation)"
        case .localized: " COLLATE \(SQLFunctions.localizedCollation)"
        case .values: " COLLATE \(SQLFunctions.valueCollation)"
        }
    }

    package func integer(ofCondition sql: String) -> String { sql }
    package var derivedTableAlias: String { "" }
    /// SQLite's limit on the tables of one join (https://sqlite.org/limits.html, "Maximum
    /// Number Of Tables In A Join").
    package var maximumTables: Int { 64 }
    /// SQLite's default `SQLITE_MAX_VARIABLE_NUMBER` (since 3.32.0).
    package var maximumParameters: Int { 32_766 }
}
