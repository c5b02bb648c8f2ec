internal import Foundation
internal import Strata

extension StoreLayout {
    /// SQLite's default `SQLITE_MAX_COLUMN`: no table may have more columns
    /// (https://sqlite.org/limits.html#max_column).
    static let maximumColumns = 2_000

    /// The index on one column of a table (an entity table or a join table).
    static func columnIndexName(_ table: String, _ column: String) -> String {
        "index.\(table).\(column)"
    }

    /// The index a model declares on an entity.
    static func modelIndexName(_ entity: String, _ index: String) -> String {
        "named.\(entity).\(index)"
    }

    /// The unique index of a uniqueness constraint.
    static func uniqueIndexName(_ entity: String, _ constraint: [String]) -> String {
        "unique.\(entity).\(constraint.joined(separator: "."))"
    }

    /// Names SQLite would refuse or confuse: tables named like Strata's or SQLite's own, and
    /// names that differ only in case (SQLite compares names without case), each said plainly;
    /// and tables with more columns than SQLite allows.
    func nameProblems() -> [String] {
        var problems: [String] = []
        let reserved = ["strata_metadata", "strata_keys"]
        for root in tables.keys.sorted() {
            let lowered = root.lowercased()
            if reserved.contains(lowered) {
                problems.append("entity '\(root)' cannot be a SQLite table: SQLite compares names without case, and '\(lowered)' is Strata's own table; rename the entity")
            } else if lowered.hasPrefix("sqlite_") {
                problems.append("entity '\(root)' cannot be a SQLite table: SQLite reserves names starting with 'sqlite_' (in any case); rename the entity")
            }
        }
        problems += Self.caseClashes(Array(tables.keys) + joinTables.map(\.name), what: "tables")
        problems += Self.caseClashes(indexDefinitions.map(\.name), what: "indexes")
        for root in tables.keys.sorted() {
            let table = tables[root]!
            let names = ["_pk", "_version"] + (table.hasEntityColumn ? ["_entity"] : []) + table.columns.map(\.name)
            problems += Self.caseClashes(names, what: "columns", place: " of table '\(root)'")
            if names.count > Self.maximumColumns {
                var count = String(names.count)
                for position in stride(from: count.count - 3, to: 0, by: -3) {
                    count.insert(",", at: count.index(count.startIndex, offsetBy: position))
                }
                problems.append("entity hierarchy '\(root)' has \(count) stored columns; a SQLite store holds at most 2,000 in one table (the hierarchy's attributes, to-one relationships and Strata's own columns); split the hierarchy or move attributes to related entities")
            }
        }
        return problems
    }

    /// One problem per group of names that are equal when case is ignored.
    private static func caseClashes(_ names: [String], what: String, place: String = "") -> [String] {
        var groups: [String: Set<String>] = [:]
        for name in names { groups[name.lowercased(), default: []].insert(name) }
        return groups.keys.sorted().compactMap { key in
            let group = groups[key]!.sorted()
            guard group.count > 1 else { return nil }
            return "the SQLite \(what) \(group.map { "'\($0)'" }.joined(separator: " and "))\(place) would have one name, as SQLite compares names without case; rename all but one"
        }
    }
}
