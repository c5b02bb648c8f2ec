package import Strata

/// How one SQL engine spells what Strata's SQL stores write alike: identifiers, parameters,
/// booleans, windows and casts. The stores' layouts, and (next) the predicate, sort and
/// aggregate compiler, write SQL through a dialect instead of spelling one engine's.
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
}

extension SQLDialect {
    /// An identifier in double quotes, a quote inside doubled (both engines: standard SQL).
    package func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A string literal in single quotes, a quote inside doubled (for internal names only; values
    /// are always bound).
    package func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `LIMIT … OFFSET …` for a window (0: no limit), empty for none.
    package func window(limit: Int, offset: Int) -> String {
        var clause = ""
        if limit > 0 { clause += " LIMIT \(limit)" } else if offset > 0 { clause += limitForOffsetOnly }
        if offset > 0 { clause += " OFFSET \(offset)" }
        return clause
    }
}

/// SQLite's spelling.
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
}
