package import StrataSQL

/// A value as SQLite stores it: one of its five storage classes (shared with the SQL compiler,
/// which binds its values as these).
package typealias SQLValue = StrataSQL.SQLValue

/// How a value of a predicate, a column or an aggregate is kept in SQL (``StrataSQL/ValueKind``).
package typealias ValueKind = StrataSQL.ValueKind
