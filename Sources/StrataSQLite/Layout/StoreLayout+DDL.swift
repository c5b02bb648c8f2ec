internal import Foundation
internal import Strata

/// A quoted SQL identifier. Names come from a validated model (ASCII letters, digits and `_`),
/// and quotes are doubled anyway.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// A quoted SQL string literal, for names in DDL (which cannot take bound parameters).
func literal(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}

extension StoreLayout {
    /// The statements that create an empty store: tables, join tables, Strata's own tables and
    /// every index.
    var creationStatements: [String] { namedCreationStatements.map(\.sql) }

    /// ``creationStatements`` with the name of the table or index each creates.
    var namedCreationStatements: [(name: String, sql: String)] {
        (tableStatements + indexStatements).map { sql in
            // `CREATE [UNIQUE] {TABLE|INDEX} "name" …`
            let start = sql.firstIndex(of: "\"")!
            let end = sql[sql.index(after: start)...].firstIndex(of: "\"")!
            return (String(sql[sql.index(after: start)..<end]), sql)
        }
    }

    private var tableStatements: [String] {
        var statements: [String] = []
        for root in tables.keys.sorted() {
            let table = tables[root]!
            var columns = ["\"_pk\" INTEGER PRIMARY KEY"]
            if table.hasEntityColumn { columns.append("\"_entity\" TEXT NOT NULL") }
            columns.append("\"_version\" INTEGER NOT NULL")
            for column in table.columns { columns.append("\(quoted(column.name)) \(column.declaredType)") }
            statements.append("CREATE TABLE \(quoted(table.name)) (\n  \(columns.joined(separator: ",\n  "))\n) STRICT")
        }
        for join in joinTables {
            var columns = ["\"source\" INTEGER NOT NULL", "\"destination\" INTEGER NOT NULL"]
            if join.hasSourceOrder { columns.append("\"source_order\" INTEGER") }
            if join.hasDestinationOrder { columns.append("\"destination_order\" INTEGER") }
            columns.append("PRIMARY KEY (\"source\", \"destination\")")
            statements.append("CREATE TABLE \(quoted(join.name)) (\n  \(columns.joined(separator: ",\n  "))\n) STRICT, WITHOUT ROWID")
        }
        statements.append("CREATE TABLE \"strata_metadata\" (\n  \"key\" TEXT PRIMARY KEY,\n  \"value\" TEXT NOT NULL\n) STRICT")
        statements.append("CREATE TABLE \"strata_keys\" (\n  \"entity\" TEXT PRIMARY KEY,\n  \"last\" INTEGER NOT NULL\n) STRICT")
        return statements
    }

    /// How a column of `type` is compared: strings by Swift's rules, decimals by value.
    static func collation(for role: ColumnLayout.Role) -> String {
        switch role {
        case .attribute(.string), .attribute(.uri): " COLLATE \(SQLFunctions.collation)"
        case .attribute(.decimal): " COLLATE \(SQLFunctions.decimalCollation)"
        default: ""
        }
    }

    var indexStatements: [String] {
        var statements: [String] = []
        var names: Set<String> = Set(tables.keys).union(joinTables.map(\.name))
        func name(_ base: String) -> String {
            var candidate = base
            var number = 2
            while names.contains(candidate) {
                candidate = "\(base)_\(number)"
                number += 1
            }
            names.insert(candidate)
            return candidate
        }
        for root in tables.keys.sorted() {
            let table = tables[root]!
            func term(_ property: String, descending: Bool = false) -> String? {
                guard let column = table.column(property) else { return nil }
                return quoted(column.name) + Self.collation(for: column.role) + (descending ? " DESC" : "")
            }
            if table.hasEntityColumn {
                statements.append("CREATE INDEX \(quoted(name("index_\(root)__entity"))) ON \(quoted(root)) (\"_entity\")")
            }
            for column in table.columns {
                if case .toOne = column.role {
                    statements.append("CREATE INDEX \(quoted(name("index_\(root)_\(column.name)"))) ON \(quoted(root)) (\(quoted(column.name)))")
                }
            }
            for entityName in table.entityNames {
                guard let entity = schema.entity(named: entityName) else { continue }
                for attribute in entity.declaredAttributes where attribute.isIndexed && !attribute.isTransient {
                    if let term = term(attribute.name) {
                        statements.append("CREATE INDEX \(quoted(name("index_\(root)_\(attribute.name)"))) ON \(quoted(root)) (\(term))")
                    }
                }
                for index in entity.indexes {
                    let terms = index.elements.compactMap { term($0.property, descending: $0.order == .descending) }
                    guard terms.count == index.elements.count else { continue }
                    statements.append("CREATE INDEX \(quoted(name("index_\(entityName)_\(index.name)"))) ON \(quoted(root)) (\(terms.joined(separator: ", ")))")
                }
                for constraint in entity.uniquenessConstraints {
                    let terms = constraint.compactMap { term($0) }
                    guard terms.count == constraint.count else { continue }
                    var sql = "CREATE UNIQUE INDEX \(quoted(name("unique_\(entityName)_\(constraint.joined(separator: "_"))"))) ON \(quoted(root)) (\(terms.joined(separator: ", ")))"
                    let covered = schema.entityAndDescendants(of: entityName).map(\.name)
                    if table.hasEntityColumn && covered.count < table.entityNames.count {
                        sql += " WHERE \"_entity\" IN (\(covered.map(literal).joined(separator: ", ")))"
                    }
                    statements.append(sql)
                }
            }
        }
        for join in joinTables {
            statements.append("CREATE INDEX \(quoted(name("index_\(join.name)_destination"))) ON \(quoted(join.name)) (\"destination\")")
        }
        return statements
    }
}
