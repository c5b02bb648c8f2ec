package import Foundation

/// A bound value of a compiled statement: one of SQLite's five storage classes (each dialect
/// binds them as its engine needs; ``SQLDialect/encode(_:)`` makes them from predicate values).
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
