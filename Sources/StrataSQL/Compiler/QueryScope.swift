/// The FROM clause of one SELECT being built: a first table, then inner and left joins in the
/// order they were made, so every join refers only to aliases before it.
///
/// Joins through to-one relationships are added to the scope that owns the alias they start
/// from, and shared: `author.name` and `author.age` use one join.
package final class QueryScope {
    package enum Item {
        case table(String)
        case inner(String, on: String)
        case left(String, on: String)
    }

    private(set) var items: [Item] = []
    /// Conditions that must go to WHERE (those of a first table).
    private var joinAliases: [String: String] = [:]
    /// A scope merged into another forwards to it.
    private var target: QueryScope?

    package init(table: String? = nil) {
        if let table { items.append(.table(table)) }
    }

    package var resolved: QueryScope {
        var scope = self
        while let next = scope.target { scope = next }
        return scope
    }

    package var isEmpty: Bool { resolved.items.isEmpty }

    /// The alias of the to-one join `key`, if it was made.
    package func joinAlias(_ key: String) -> String? {
        resolved.joinAliases[key]
    }

    /// Adds a LEFT JOIN known by `key`.
    package func addJoin(key: String, table: String, alias: String, on condition: String) {
        let scope = resolved
        scope.items.append(.left(table, on: condition))
        scope.joinAliases[key] = alias
    }

    /// Appends `inner`'s tables to this scope (a flattened collection): its first table joins on
    /// `conditions`; the conditions are returned when this scope has no table to join to.
    ///
    /// With `outer`, every table of `inner` is LEFT JOINed, so that an outer row without inner
    /// rows stays (with NULLs). `always` is the dialect's true condition, for a join on nothing.
    package func absorb(_ inner: QueryScope, on conditions: [String], outer: Bool = false, always: String) -> [String] {
        let scope = resolved
        let other = inner.resolved
        guard scope !== other else { return conditions }
        var leftover: [String] = []
        for (offset, item) in other.items.enumerated() {
            if offset == 0, case .table(let table) = item {
                if scope.items.isEmpty {
                    scope.items.append(.table(table))
                    leftover = conditions
                } else {
                    let on = conditions.isEmpty ? always : conditions.joined(separator: " AND ")
                    scope.items.append(outer ? .left(table, on: on) : .inner(table, on: on))
                }
            } else if outer, case .inner(let table, let on) = item {
                scope.items.append(.left(table, on: on))
            } else {
                scope.items.append(item)
            }
        }
        if other.items.isEmpty { leftover = conditions }
        for (key, alias) in other.joinAliases { scope.joinAliases[key] = alias }
        other.items = []
        other.joinAliases = [:]
        other.target = scope
        return leftover
    }

    /// ` FROM …`, or nothing for a scope without tables.
    package var fromClause: String {
        let items = resolved.items
        guard !items.isEmpty else { return "" }
        var sql = " FROM"
        for item in items {
            switch item {
            case .table(let table): sql += sql == " FROM" ? " \(table)" : ", \(table)"
            case .inner(let table, let on): sql += " JOIN \(table) ON \(on)"
            case .left(let table, let on): sql += " LEFT JOIN \(table) ON \(on)"
            }
        }
        return sql
    }
}
