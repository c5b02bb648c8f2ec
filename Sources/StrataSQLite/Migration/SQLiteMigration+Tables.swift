internal import Foundation
internal import Strata
internal import StrataSQL

extension SQLiteMigration {
    /// Where a destination column's values come from, for the rows of one source table.
    enum ColumnSource: Equatable {
        /// The source table's column of this name (renamed when the names differ).
        case column(String)
        /// A constant: the attribute's default value or its comparison key, or the one entity
        /// a to-one relationship's destination used to be (as SQL literal).
        case value(String)
        /// Nothing: nil, or filled after the tables from pairs (relationships) or computed
        /// (order columns).
        case null
    }

    /// Where `column` of destination table `table` comes from in source table `from`.
    /// With `only`, for the rows of that destination entity alone.
    func columnSource(_ column: ColumnLayout, of table: TableLayout, from: TableLayout, only: String? = nil) -> ColumnSource {
        // The destination entities of the table with the property, matched to an entity of
        // `from`, and the source property.
        func matched(_ property: String) -> (entity: String, source: String)? {
            for entity in table.entityNames where only == nil || entity == only {
                guard let description = destination.schema.entity(named: entity), description.property(named: property) != nil,
                      let sourceName = sourceEntity(entity), from.entityNames.contains(sourceName),
                      let sourceProperty = sourceProperty(property, of: entity) else { continue }
                return (sourceName, sourceProperty.name)
            }
            return nil
        }
        switch column.role {
        case .attribute(let type):
            guard let (entity, name) = matched(column.name),
                  case .attribute(let attribute)? = source.schema.entity(named: entity)?.property(named: name), !attribute.isTransient,
                  case .attribute(let sourceType)? = from.column(name)?.role, sourceType.keepsValues(as: type) else {
                return defaultValue(column.name, of: table).map { .value(Self.sqlLiteral(ValueCodec.encode($0))) } ?? .null
            }
            return .column(name)
        case .stringKey(let attribute), .decimalKey(let attribute):
            guard let owner = table.column(attribute) else { return .null }
            switch columnSource(owner, of: table, from: from, only: only) {
            case .column(let name):
                let shadow = column.name == ComparisonKey.stringColumn(attribute) ? ComparisonKey.stringColumn(name) : ComparisonKey.decimalColumn(name)
                return from.column(shadow) != nil ? .column(shadow) : .null
            case .value:
                return .value(Self.sqlLiteral(ComparisonKey.shadowValue(of: defaultValue(attribute, of: table))))
            case .null:
                return .null
            }
        case .toOne:
            guard let (entity, name) = matched(column.name), isCarriedToOne(name, of: entity, in: from) else { return .null }
            return .column(name)
        case .toOneEntity(let relationship):
            guard let owner = table.column(relationship), case .column(let name) = columnSource(owner, of: table, from: from, only: only) else { return .null }
            if from.column("_\(name)_entity") != nil { return .column("_\(name)_entity") }
            // The destination had no subentities: every reference is to that one entity.
            guard let (entity, _) = matched(relationship),
                  case .relationship(let old)? = source.schema.entity(named: entity)?.property(named: name),
                  let renamed = destinationEntity(old.destination) else { return .null }
            return .value(literal(renamed))
        case .order(let inverse):
            guard let owner = table.column(inverse), case .column(let name) = columnSource(owner, of: table, from: from, only: only),
                  from.column("_\(name)_order") != nil else { return .null }
            return .column("_\(name)_order")
        }
    }

    /// The value of `column` for the rows of source table `from` that `source` (the column of
    /// the first of the table's entities with a source) gives: that column, or, where the rows
    /// of another entity keep the values in another column (siblings whose differently named
    /// attributes get one name), `CASE` on `_entity` (the source entity names) choosing it.
    func columnValue(_ column: ColumnLayout, of table: TableLayout, from: TableLayout, source primary: String) -> String {
        guard from.hasEntityColumn else { return quoted(primary) }
        var others: [String: [String]] = [:]
        for entity in table.entityNames {
            guard case .column(let other) = columnSource(column, of: table, from: from, only: entity), other != primary,
                  let sourceName = sourceEntity(entity) else { continue }
            others[other, default: []].append(contentsOf: source.schema.entityAndDescendants(of: sourceName).map(\.name).filter { from.entityNames.contains($0) && destinationEntity($0) == entity })
        }
        guard !others.isEmpty else { return quoted(primary) }
        let cases = others.keys.sorted().map { "WHEN \"_entity\" IN (\(others[$0]!.map(literal).joined(separator: ", "))) THEN \(quoted($0))" }
        return "CASE \(cases.joined(separator: " ")) ELSE \(quoted(primary)) END"
    }

    /// Whether a source to-one relationship's foreign-key column holds the destination's
    /// to-one as it is: the relationship is a to-one in both, so the same pairs are stored the
    /// same way.
    func isCarriedToOne(_ name: String, of sourceEntityName: String, in from: TableLayout) -> Bool {
        guard case .relationship(let relationship)? = source.schema.entity(named: sourceEntityName)?.property(named: name),
              !relationship.isToMany, case .toOne? = from.column(name)?.role else { return false }
        return true
    }

    /// The default value of an attribute stored in `table` (of the entity that declares it).
    func defaultValue(_ attribute: String, of table: TableLayout) -> AttributeValue? {
        for entity in table.entityNames {
            if let value = destination.schema.entity(named: entity)?.attribute(named: attribute)?.defaultValue { return value }
        }
        return nil
    }

    /// A value as an SQL literal, for `DEFAULT` clauses (which take no parameters) and
    /// `INSERT … SELECT` constants. Reals keep their exact value (Swift prints the shortest
    /// text that reads back the same) and always look like reals; ±infinity is `±9e999`.
    static func sqlLiteral(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v):
            if v.isInfinite { return v < 0 ? "-9e999" : "9e999" }
            let text = "\(v)"
            return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
        case .text(let v): return literal(v)
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    // MARK: - Changing the tables

    /// Alters, rebuilds, creates and drops tables and join tables so that the file has the
    /// destination's, with the values carried over.
    mutating func changeTables() throws(StrataError) {
        var renames: [(from: String, to: String)] = []
        for name in destination.tables.keys.sorted() {
            guard let plan = plans[name] else { continue }
            let table = destination.tables[name]!
            switch plan {
            case .alter(let from):
                try alter(from, into: table)
                if from != name {
                    try database.execute("ALTER TABLE \(quoted(from)) RENAME TO \(quoted(Self.temporaryName(name)))")
                    renames.append((Self.temporaryName(name), name))
                }
            case .rebuild(let froms):
                try rebuild(table, from: froms)
                renames.append((Self.temporaryName(name), name))
            case .create:
                break
            }
        }
        renames += try changeJoinTables()
        for table in replacedTables {
            try database.execute("DROP TABLE \(quoted(table))")
        }
        for rename in renames {
            try database.execute("ALTER TABLE \(quoted(rename.from)) RENAME TO \(quoted(rename.to))")
        }
        let creation = Dictionary(destination.namedCreationStatements.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        for name in destination.tables.keys.sorted() where plans[name].map({ if case .create = $0 { true } else { false } }) == true {
            try database.execute(creation[name]!)
        }
        for join in destination.joinTables where carriedJoins[join.name] == nil && hasRoots(join) {
            try database.execute(creation[join.name]!)
        }
    }

    /// Whether both tables a join table links are in the file after the step.
    func hasRoots(_ join: JoinTableLayout) -> Bool {
        [join.sourceRoot, join.destinationRoot].allSatisfy { plans[$0] != nil || (existing.contains($0) && source.tables[$0] == nil) }
    }

    /// Changes source table `name` in place into `table` (renamed by the caller).
    private mutating func alter(_ name: String, into table: TableLayout) throws(StrataError) {
        let from = source.tables[name]!
        progress("\(table.name): altering the table in place", nil)
        var sources: [String: ColumnSource] = [:]
        for column in table.columns { sources[column.name] = columnSource(column, of: table, from: from) }
        let kept = Set(sources.values.compactMap { source -> String? in if case .column(let name) = source { name } else { nil } })
        let current = try database.columnNames(of: name)
        let dropped = current.filter { !kept.contains($0) && !["_pk", "_entity", "_version"].contains($0) }

        // Indexes on the table that the destination does not have by name, or that read a
        // column about to go (DROP COLUMN refuses those); the rest stay as they are.
        let wanted = Set(destination.indexDefinitions.map(\.name))
        let indexes = try database.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL", [.text(name)]) { ($0.text(0), $0.text(1)) }
        for (index, sql) in indexes where !wanted.contains(index) || dropped.contains(where: { sql.contains(quoted($0)) }) {
            try database.execute("DROP INDEX \(quoted(index))")
        }
        // Rows whose values another source column holds (see ``columnValue``) get them into
        // the column kept, before it goes; one UPDATE reads every column as it was.
        let merges = table.columns.compactMap { column -> String? in
            guard case .column(let primary)? = sources[column.name] else { return nil }
            let value = columnValue(column, of: table, from: from, source: primary)
            return value == quoted(primary) ? nil : "\(quoted(primary)) = \(value)"
        }
        if !merges.isEmpty {
            try database.execute("UPDATE \(quoted(name)) SET \(merges.joined(separator: ", "))")
        }
        for column in dropped {
            try database.execute("ALTER TABLE \(quoted(name)) DROP COLUMN \(quoted(column))")
        }
        // Renames, through temporary names where a name is still taken (two swapped names).
        var present = Set(current.filter { !dropped.contains($0) })
        var later: [(String, String)] = []
        for column in table.columns {
            guard case .column(let old)? = sources[column.name], old != column.name else { continue }
            if present.contains(column.name) {
                let temporary = "strata renaming \(column.name)"
                try database.execute("ALTER TABLE \(quoted(name)) RENAME COLUMN \(quoted(old)) TO \(quoted(temporary))")
                later.append((temporary, column.name))
            } else {
                try database.execute("ALTER TABLE \(quoted(name)) RENAME COLUMN \(quoted(old)) TO \(quoted(column.name))")
            }
            present.remove(old)
            present.insert(column.name)
        }
        for (temporary, final) in later {
            try database.execute("ALTER TABLE \(quoted(name)) RENAME COLUMN \(quoted(temporary)) TO \(quoted(final))")
        }
        // Added columns take their default from the schema: no row is rewritten
        // (https://sqlite.org/lang_altertable.html#altertabaddcol). The DEFAULT stays in the
        // table's SQL: rows written before the column was added read it from there, and every
        // save writes every column, so it never stands in for a value a save left out.
        for column in table.columns where sources[column.name].map({ if case .column = $0 { false } else { true } }) ?? true {
            var sql = "ALTER TABLE \(quoted(name)) ADD COLUMN \(quoted(column.name)) \(column.declaredType)"
            guard case .value(let value)? = sources[column.name], value != "NULL" else {
                try database.execute(sql)
                continue
            }
            if case .toOneEntity(let relationship) = column.role {
                // The entity of a reference: only where there is one.
                try database.execute(sql)
                try database.execute("UPDATE \(quoted(name)) SET \(quoted(column.name)) = \(value) WHERE \(quoted(relationship)) IS NOT NULL")
                continue
            }
            sql += " DEFAULT \(value)"
            try database.execute(sql)
        }
        // Rows of removed entities go; renamed entities are renamed in `_entity` and in the
        // `_x_entity` columns of references to them.
        if table.hasEntityColumn {
            let removed = from.entityNames.filter { destinationEntity($0) == nil }
            if !removed.isEmpty {
                try database.execute("DELETE FROM \(quoted(name)) WHERE \"_entity\" IN (\(removed.map(literal).joined(separator: ", ")))")
            }
            if let renaming = entityRenaming("\"_entity\"", of: from.entityNames) {
                try database.execute("UPDATE \(quoted(name)) SET \"_entity\" = \(renaming)")
            }
        }
        for column in table.columns {
            guard case .toOneEntity = column.role, case .column? = sources[column.name] else { continue }
            if let renaming = entityRenaming(quoted(column.name), of: Array(source.entities.keys)) {
                try database.execute("UPDATE \(quoted(name)) SET \(quoted(column.name)) = \(renaming) WHERE \(quoted(column.name)) IS NOT NULL")
            }
        }
    }

    /// `CASE expression WHEN 'Old' THEN 'New' … ELSE expression END` for the source entities
    /// among `entities` that were renamed; nil when none was.
    func entityRenaming(_ expression: String, of entities: [String]) -> String? {
        let renamed = entities.sorted().compactMap { old in destinationEntity(old).flatMap { $0 == old ? nil : (old, $0) } }
        guard !renamed.isEmpty else { return nil }
        return "CASE \(expression) " + renamed.map { "WHEN \(literal($0.0)) THEN \(literal($0.1))" }.joined(separator: " ") + " ELSE \(expression) END"
    }

    /// Builds `table` under its temporary name from the rows of `froms` that become its
    /// entities (https://sqlite.org/lang_altertable.html#otheralter).
    private mutating func rebuild(_ table: TableLayout, from froms: [String]) throws(StrataError) {
        let creation = destination.namedCreationStatements.first { $0.name == table.name }!.sql
        let temporary = Self.temporaryName(table.name)
        try database.execute(creation.replacingOccurrences(of: "CREATE TABLE \(quoted(table.name))", with: "CREATE TABLE \(quoted(temporary))"))
        for name in froms {
            let from = source.tables[name]!
            let moving = from.entityNames.filter { destinationEntity($0).map(table.entityNames.contains) ?? false }
            var columns = ["\"_pk\""], values = ["\"_pk\""]
            if table.hasEntityColumn {
                columns.append("\"_entity\"")
                if from.hasEntityColumn {
                    values.append(entityRenaming("\"_entity\"", of: from.entityNames) ?? "\"_entity\"")
                } else {
                    values.append(literal(destinationEntity(name)!))
                }
            }
            columns.append("\"_version\"")
            values.append("\"_version\"")
            for column in table.columns {
                let value: String
                switch columnSource(column, of: table, from: from) {
                case .column(let old):
                    let carried = columnValue(column, of: table, from: from, source: old)
                    if case .toOneEntity = column.role, let renaming = entityRenaming(carried, of: Array(source.entities.keys)) {
                        value = renaming
                    } else {
                        value = carried
                    }
                case .value(let constant):
                    if case .toOneEntity(let relationship) = column.role, let owner = table.column(relationship),
                       case .column(let key) = columnSource(owner, of: table, from: from) {
                        value = "CASE WHEN \(quoted(key)) IS NULL THEN NULL ELSE \(constant) END"
                    } else {
                        value = constant
                    }
                case .null: continue
                }
                columns.append(quoted(column.name))
                values.append(value)
            }
            var sql = "INSERT INTO \(quoted(temporary)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoted(name))"
            if from.hasEntityColumn { sql += " WHERE \"_entity\" IN (\(moving.map(literal).joined(separator: ", ")))" }
            try database.execute(sql)
            progress("\(table.name): copied \(database.changes) rows from \(name)", database.changes)
        }
    }

    /// Join tables carried over (renamed, order columns added or dropped); returns the renames
    /// to make once the replaced tables are gone. The others are created empty and filled
    /// from pairs.
    private mutating func changeJoinTables() throws(StrataError) -> [(from: String, to: String)] {
        var renames: [(from: String, to: String)] = []
        for join in destination.joinTables {
            guard let from = carriedJoins[join.name] else { continue }
            let table = from.name
            for (column, has, had) in [("source_order", join.hasSourceOrder, from.hasSourceOrder), ("destination_order", join.hasDestinationOrder, from.hasDestinationOrder)] where has != had {
                if has {
                    try database.execute("ALTER TABLE \(quoted(table)) ADD COLUMN \(quoted(column)) INTEGER")
                    // Unordered → ordered: by the other side's primary key.
                    let (own, other) = column == "source_order" ? ("source", "destination") : ("destination", "source")
                    try database.execute("UPDATE \(quoted(table)) AS j SET \(quoted(column)) = (SELECT count(*) FROM \(quoted(table)) AS k WHERE k.\(quoted(own)) = j.\(quoted(own)) AND k.\(quoted(other)) < j.\(quoted(other)))")
                } else {
                    try database.execute("ALTER TABLE \(quoted(table)) DROP COLUMN \(quoted(column))")
                }
            }
            if table != join.name {
                try database.execute("ALTER TABLE \(quoted(table)) RENAME TO \(quoted(Self.temporaryName(join.name)))")
                renames.append((Self.temporaryName(join.name), join.name))
            }
        }
        return renames
    }

    /// The relationship whose rows are a join table's `source` column: (entity, relationship).
    func owner(of join: JoinTableLayout) -> (String, String)? {
        for name in destination.entities.keys.sorted() {
            let layout = destination.entities[name]!
            for (relationship, storage) in layout.toMany.sorted(by: { $0.key < $1.key }) {
                if case .joinTable(join.name, "source", _, _, _) = storage, layout.entity.declares(relationship) { return (name, relationship) }
            }
        }
        return nil
    }
}
