package import Foundation

/// A value as SQLite stores it: one of its five storage classes.
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
