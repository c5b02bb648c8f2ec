internal import Foundation
internal import Strata
internal import StrataSQL

/// A quoted SQL identifier. Names come from a validated model (ASCII letters, digits and `_`),
/// and quotes are doubled anyway.
func quoted(_ identifier: String) -> String {
    quotedIdentifier(identifier)
}

/// A quoted SQL string literal, for names in DDL (which cannot take bound parameters).
func literal(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
    return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}

extension StoreLayout {
    /// The statements that create an empty store: tables, join tables, Strata's own tables and
    /// every index.
    var creationStatements: [String] { namedCreationStatements.map(\.sql) }

    /// ``creationStatements`` with the name of the table or index each creates.
    var namedCreationStatements: [(name: String, sql: String)] {
        tableStatements.map { sql in
            // `CREATE TABLE "name" …`
            let start = sql.firstIndex(of: "\"")!
            let end = sql[sql.index(after: start)...].firstIndex(of: "\"")!
            return (String(sql[sql.index(after: start)..<end]), sql)
        } + indexDefinitions.map { ($0.name, $0.sql) }
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

    /// The indexes of the layout, each with its name, its table and its `CREATE INDEX` statement. Only
    /// SQLite's own functions and collations appear: strings, URIs and decimals are indexed by
    /// their comparison keys (``TableLayout/comparisonKey(_:alias:)``).
    var indexDefinitions: [(name: String, table: String, sql: String)] {
        var definitions: [(name: String, table: String, sql: String)] = []
        var made: Set<String> = []
        func add(_ name: String, unique: Bool = false, on table: String, _ terms: [String], where condition: String? = nil) {
            guard made.insert(name).inserted else { return }
            var sql = "CREATE \(unique ? "UNIQUE " : "")INDEX \(quoted(name)) ON \(quoted(table)) (\(terms.joined(separator: ", ")))"
            if let condition { sql += " WHERE \(condition)" }
            definitions.append((name, table, sql))
        }
        for root in tables.keys.sorted() {
            let table = tables[root]!
            func term(_ property: String, descending: Bool = false) -> String? {
                guard let column = table.column(property) else { return nil }
                return (table.comparisonKey(property, alias: nil) ?? quoted(column.name)) + (descending ? " DESC" : "")
            }
            if table.hasEntityColumn {
                add(Self.columnIndexName(root, "_entity"), on: root, ["\"_entity\""])
            }
            for column in table.columns {
                if case .toOne = column.role {
                    add(Self.columnIndexName(root, column.name), on: root, [quoted(column.name)])
                }
            }
            for entityName in table.entityNames {
                guard let entity = schema.entity(named: entityName) else { continue }
                for attribute in entity.declaredAttributes where attribute.isIndexed && !attribute.isTransient {
                    if let term = term(attribute.name) {
                        add(Self.columnIndexName(root, attribute.name), on: root, [term])
                    }
                }
                for index in entity.indexes {
                    let terms = index.elements.compactMap { term($0.property, descending: $0.order == .descending) }
                    guard terms.count == index.elements.count else { continue }
                    add(Self.modelIndexName(entityName, index.name), on: root, terms)
                }
                for constraint in entity.uniquenessConstraints {
                    let terms = constraint.compactMap { term($0) }
                    guard terms.count == constraint.count else { continue }
                    let covered = schema.entityAndDescendants(of: entityName).map(\.name)
                    let condition = table.hasEntityColumn && covered.count < table.entityNames.count
                        ? "\"_entity\" IN (\(covered.map(literal).joined(separator: ", ")))" : nil
                    add(Self.uniqueIndexName(entityName, constraint), unique: true, on: root, terms, where: condition)
                }
            }
        }
        for join in joinTables {
            add(Self.columnIndexName(join.name, "destination"), on: join.name, ["\"destination\""])
        }
        return definitions
    }

    var indexStatements: [String] { indexDefinitions.map(\.sql) }
}
