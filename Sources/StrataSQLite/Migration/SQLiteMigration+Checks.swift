internal import Foundation
internal import Strata

extension SQLiteMigration {
    // MARK: - Keys

    /// When rows of several source hierarchies merge into one table and some of their keys
    /// collide, gives the colliding rows new keys and rewrites every reference to them
    /// (foreign keys and join tables) first, by the record migration's rule
    /// (`RecordMigration+Keys.swift`), so that every store gives the same keys:
    /// - the hierarchies are taken in order: first the one the destination root was matched
    ///   with, then the others by the first position, in the destination model, of an entity
    ///   their rows go to;
    /// - a row keeps its key when no row of a hierarchy taken before holds it; otherwise it
    ///   gets the next key above every key and key counter of the merged hierarchies, in the
    ///   order of the keys.
    mutating func renumberCollidingKeys() throws(StrataError) {
        var positions: [String: Int] = [:]
        for (position, entity) in destination.schema.entities.enumerated() { positions[entity.name] = position }
        for name in destination.tables.keys.sorted() {
            guard case .rebuild(let froms)? = plans[name], froms.count > 1 else { continue }
            let table = destination.tables[name]!
            // The hierarchies with rows that go to the table, with the first destination
            // position of an entity their rows go to.
            var ranked: [(rank: (Int, Int, String), from: String)] = []
            let keeper = sourceEntity(name).flatMap { source.entities[$0]?.rootName }
            for from in froms {
                let layout = source.tables[from]!
                let entities = layout.hasEntityColumn
                    ? try database.rows("SELECT DISTINCT \"_entity\" FROM \(quoted(from))", []) { $0.text(0) }
                    : (try database.scalar("SELECT 1 FROM \(quoted(from)) LIMIT 1") == nil ? [] : layout.entityNames)
                let first = entities.compactMap { destinationEntity($0).flatMap { table.entityNames.contains($0) ? positions[$0] : nil } }.min()
                guard let first else { continue }
                ranked.append((from == keeper ? (0, 0, from) : (1, first, from), from))
            }
            guard ranked.count > 1 else { continue }
            let order = ranked.sorted { $0.rank < $1.rank }.map(\.from)
            var next: Int64 = 0
            for from in order {
                if case .integer(let key)? = try database.scalar("SELECT max(\"_pk\") FROM \(quoted(from))") { next = max(next, key) }
                if case .integer(let key)? = try database.scalar("SELECT \"last\" FROM \"strata_keys\" WHERE \"entity\" = ?1", [.text(from)]) { next = max(next, key) }
            }
            var taken = [moving(order[0], into: table)]
            for from in order.dropFirst() {
                let rows = moving(from, into: table)
                let claimed = taken.joined(separator: " UNION ALL ")
                let map = "strata renumbering \(from)"
                try database.execute("CREATE TEMP TABLE \(quoted(map)) (\"old\" INTEGER PRIMARY KEY, \"new\" INTEGER NOT NULL)")
                try database.execute("INSERT INTO temp.\(quoted(map)) SELECT \"_pk\", \(next) + row_number() OVER (ORDER BY \"_pk\") FROM (\(rows)) WHERE \"_pk\" IN (\(claimed))")
                let count = database.changes
                if count > 0 {
                    try renumber(from, map: "temp.\(quoted(map))")
                    renumbered.append(from)
                    next += Int64(count)
                }
                try database.execute("DROP TABLE temp.\(quoted(map))")
                taken.append(moving(from, into: table))
            }
        }
    }

    /// `SELECT "_pk" FROM source table` of the rows that become entities of `table`.
    private func moving(_ from: String, into table: TableLayout) -> String {
        let layout = source.tables[from]!
        var sql = "SELECT \"_pk\" FROM \(quoted(from))"
        if layout.hasEntityColumn {
            let names = layout.entityNames.filter { destinationEntity($0).map(table.entityNames.contains) ?? false }
            sql += " WHERE \"_entity\" IN (\(names.map(literal).joined(separator: ", ")))"
        }
        return sql
    }

    /// Gives the rows of source root `from` listed in `map` (old key → new key) their new
    /// keys, and every reference to them.
    private func renumber(_ from: String, map: String) throws(StrataError) {
        progress("\(from): giving \(from) objects new primary keys (they collide with another hierarchy's)", nil)
        func renumbering(_ column: String) -> String {
            "\(column) = (SELECT \"new\" FROM \(map) WHERE \"old\" = \(column)) WHERE \(column) IN (SELECT \"old\" FROM \(map))"
        }
        for referring in source.tables.keys.sorted() where existing.contains(referring) {
            for column in source.tables[referring]!.columns {
                guard case .toOne(let target) = column.role, source.entities[target]?.rootName == from else { continue }
                try database.execute("UPDATE \(quoted(referring)) SET \(renumbering(quoted(column.name)))")
            }
        }
        for join in source.joinTables where existing.contains(join.name) {
            if join.sourceRoot == from { try database.execute("UPDATE \(quoted(join.name)) SET \(renumbering("\"source\""))") }
            if join.destinationRoot == from { try database.execute("UPDATE \(quoted(join.name)) SET \(renumbering("\"destination\""))") }
        }
        try database.execute("UPDATE \(quoted(from)) SET \(renumbering("\"_pk\""))")
    }

    /// `strata_keys` follows the roots: a destination root's counter is at least every
    /// counter of the hierarchies it was made from and every key it holds.
    func updateKeyCounters() throws(StrataError) {
        for name in destination.tables.keys.sorted() {
            guard let plan = plans[name] else { continue }
            let counters = ([name] + froms(of: plan)).map(literal).joined(separator: ", ")
            try database.execute("""
                INSERT INTO "strata_keys" ("entity", "last") VALUES (\(literal(name)), max(
                  coalesce((SELECT max("last") FROM "strata_keys" WHERE "entity" IN (\(counters))), 0),
                  coalesce((SELECT max("_pk") FROM \(quoted(name))), 0)))
                ON CONFLICT ("entity") DO UPDATE SET "last" = excluded."last"
                """)
        }
        let gone = source.tables.keys.filter { destination.tables[$0] == nil }.sorted()
        if !gone.isEmpty {
            try database.execute("DELETE FROM \"strata_keys\" WHERE \"entity\" IN (\(gone.map(literal).joined(separator: ", ")))")
        }
    }

    // MARK: - Required values

    /// Attributes that become required with a default take it where they hold nil (and their
    /// shadow column its key); those without one, and required to-ones that were optional or
    /// not stored so, are checked after didMigrate (``checkRequiredValues()``).
    mutating func fillDefaults() throws(StrataError) {
        for name in destination.entities.keys.sorted() {
            let layout = destination.entities[name]!
            let table = layout.table
            guard let plan = plans[table.name] else { continue }
            if case .create = plan { continue }
            for attribute in layout.entity.attributes where !attribute.isOptional && !attribute.isTransient && layout.entity.declares(attribute.name) {
                let wasRequired = hadEverywhere(attribute.name, of: name) { old in
                    if case .attribute(let old) = old { !old.isOptional && !old.isTransient && old.type.keepsValues(as: attribute.type) } else { false }
                }
                guard !wasRequired else { continue }
                guard let value = attribute.defaultValue else {
                    requiredChecks.append((name, attribute.name))
                    continue
                }
                // An added column got the default already (ADD COLUMN … DEFAULT, or the
                // rebuild's constant): no scan of the table for nils that cannot be there.
                if let column = table.column(attribute.name), froms(of: plan).allSatisfy({ from in
                    if case .value = columnSource(column, of: table, from: source.tables[from]!) { return true }
                    return false
                }) { continue }
                var assignments = ["\(quoted(attribute.name)) = \(Self.sqlLiteral(ValueCodec.encode(value)))"]
                for shadow in [ComparisonKey.stringColumn(attribute.name), ComparisonKey.decimalColumn(attribute.name)] where table.column(shadow) != nil {
                    assignments.append("\(quoted(shadow)) = \(Self.sqlLiteral(ComparisonKey.shadowValue(of: value)))")
                }
                var sql = "UPDATE \(quoted(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \(quoted(attribute.name)) IS NULL"
                if table.hasEntityColumn { sql += " AND \"_entity\" IN (\(Self.family(name, in: destination)))" }
                try database.execute(sql)
            }
            for relationship in layout.entity.relationships where !relationship.isToMany && !relationship.isOptional && layout.entity.declares(relationship.name) {
                // A required to-one that stays one keeps its value, unless objects it may refer
                // to were removed (a removed subentity's): those references are cleared.
                if hadEverywhere(relationship.name, of: name, { old in
                    if case .relationship(let old) = old {
                        !old.isToMany && !old.isOptional && source.schema.entityAndDescendants(of: old.destination).allSatisfy { destinationEntity($0.name) != nil }
                    } else { false }
                }) { continue }
                requiredChecks.append((name, relationship.name))
            }
        }
    }

    /// In a table several entities share, a column carried over also holds values in the rows
    /// of entities that did not have the attribute (an `ADD COLUMN … DEFAULT` gives every row
    /// the default), and an added column takes the default of one of the entities that have
    /// it. The rows of every entity that gains the attribute (it moved up to a common parent,
    /// or a sibling has one of the same name) take its own default value or nil, as added
    /// attributes do.
    func resetGainedAttributes() throws(StrataError) {
        for name in destination.tables.keys.sorted() {
            let table = destination.tables[name]!
            guard table.hasEntityColumn, let plan = plans[name], !froms(of: plan).isEmpty else { continue }
            for column in table.columns {
                guard case .attribute(let type) = column.role else { continue }
                let carried = isCarried(column, of: table, plan: plan)
                let given = defaultValue(column.name, of: table)
                var gained: [String: (value: AttributeValue?, entities: [String])] = [:]
                for entity in table.entityNames {
                    guard let attribute = destination.schema.entity(named: entity)?.attribute(named: column.name), !attribute.isTransient,
                          let from = sourceEntity(entity), source.entities[from] != nil else { continue }
                    if case .attribute(let old)? = sourceProperty(column.name, of: entity), !old.isTransient, old.type.keepsValues(as: type) { continue }
                    // Not carried: every row got `given` already.
                    if !carried && attribute.defaultValue == given { continue }
                    let key = attribute.defaultValue.map { "\(ValueCodec.encode($0))" } ?? ""
                    gained[key, default: (attribute.defaultValue, [])].entities.append(entity)
                }
                for key in gained.keys.sorted() {
                    let (value, entities) = gained[key]!
                    var assignments = ["\(quoted(column.name)) = \(value.map { Self.sqlLiteral(ValueCodec.encode($0)) } ?? "NULL")"]
                    for shadow in [ComparisonKey.stringColumn(column.name), ComparisonKey.decimalColumn(column.name)] where table.column(shadow) != nil {
                        assignments.append("\(quoted(shadow)) = \(Self.sqlLiteral(ComparisonKey.shadowValue(of: value)))")
                    }
                    try database.execute("UPDATE \(quoted(name)) SET \(assignments.joined(separator: ", ")) WHERE \"_entity\" IN (\(entities.map(literal).joined(separator: ", ")))")
                }
            }
        }
    }

    /// Whether the rows of destination entity `entity` and of its subentities all come from
    /// source entities whose matched property `name` meets `condition` (an entity that had
    /// no such property — say one that gained a parent declaring it — does not). New
    /// entities have no rows.
    private func hadEverywhere(_ name: String, of entity: String, _ condition: (PropertyDescription) -> Bool) -> Bool {
        destination.schema.entityAndDescendants(of: entity).allSatisfy { member in
            guard let from = sourceEntity(member.name), source.entities[from] != nil else { return true }
            return sourceProperty(name, of: member.name).map(condition) ?? false
        }
    }

    /// Refuses required values that are still nil, naming the objects.
    func checkRequiredValues() throws(StrataError) {
        for (entity, property) in requiredChecks {
            let table = destination.entities[entity]!.table
            var condition = "\(quoted(property)) IS NULL"
            if table.hasEntityColumn { condition += " AND \"_entity\" IN (\(Self.family(entity, in: destination)))" }
            guard case .integer(let count)? = try database.scalar("SELECT count(*) FROM \(quoted(table.name)) WHERE \(condition)"), count > 0 else { continue }
            let objects = try database.rows("SELECT \"_pk\", \(table.hasEntityColumn ? "\"_entity\"" : literal(table.name)) FROM \(quoted(table.name)) WHERE \(condition) ORDER BY \"_pk\" LIMIT \(MigrationStep.listedObjects)", []) {
                (entity: $0.text(1), key: $0.int64(0))
            }
            let isAttribute = destination.schema.entity(named: entity)?.attribute(named: property) != nil
            let fix = isAttribute
                ? "give the attribute a default value in the new model, or set it in a custom stage (didMigrate)"
                : "make the relationship optional, or set it in a custom stage (didMigrate)"
            throw refused("\(entity).\(property) is required in \(SchemaVersions.label(step.destination)) but \(count) object(s) have no value: \(Self.objectList(objects, total: Int(count))); \(fix)")
        }
    }

    // MARK: - Entities and destinations

    /// Refuses rows of an entity that becomes abstract (they would have no entity), naming
    /// them, as the record migration does.
    func checkAbstractEntities() throws(StrataError) {
        for name in destination.entities.keys.sorted() {
            let layout = destination.entities[name]!
            guard layout.entity.isAbstract, let from = sourceEntity(name), source.schema.entity(named: from)?.isAbstract == false,
                  let plan = plans[layout.table.name], !froms(of: plan).isEmpty else { continue }
            let table = layout.table
            let condition = table.hasEntityColumn ? "WHERE \"_entity\" = \(literal(name))" : ""
            guard case .integer(let count)? = try database.scalar("SELECT count(*) FROM \(quoted(table.name)) \(condition)"), count > 0 else { continue }
            let keys = try database.rows("SELECT \"_pk\" FROM \(quoted(table.name)) \(condition) ORDER BY \"_pk\" LIMIT \(MigrationStep.listedObjects)", []) { $0.int64(0) }
            throw refused("\(name) becomes abstract, but the store holds \(count) object(s) of it: \(Self.objectList(keys.map { (name, $0) }, total: Int(count))) (delete them, or move their data to a subentity, in a custom stage's willMigrate)")
        }
    }

    /// Refuses references that a relationship whose destination became a subentity of the old
    /// one can no longer hold (the diff's condition: every object it refers to is of that
    /// subentity), naming the objects that hold them.
    func checkNarrowedDestinations() throws(StrataError) {
        let tables = try database.tableNames()
        for name in destination.entities.keys.sorted() {
            let layout = destination.entities[name]!
            for relationship in layout.entity.relationships where layout.entity.declares(relationship.name) {
                guard case .relationship(let old)? = sourceProperty(relationship.name, of: name),
                      let was = destinationEntity(old.destination), was != relationship.destination,
                      destination.schema.entity(named: relationship.destination)?.ancestorNames.contains(was) == true,
                      let target = destination.entities[relationship.destination], target.table.hasEntityColumn,
                      let pairs = sideQuery(name, relationship.name, destination: tables) else { continue }
                let misfits = "SELECT DISTINCT s.o FROM (\(pairs)) AS s JOIN \(quoted(target.table.name)) AS t ON t.\"_pk\" = s.m WHERE t.\"_entity\" NOT IN (\(Self.family(relationship.destination, in: destination)))"
                guard case .integer(let count)? = try database.scalar("SELECT count(*) FROM (\(misfits))"), count > 0 else { continue }
                let keys = try database.rows("\(misfits) ORDER BY s.o LIMIT \(MigrationStep.listedObjects)", []) { $0.int64(0) }
                throw refused("\(name).\(relationship.name) now refers to \(relationship.destination) objects only, but \(count) object(s) refer to others: \(Self.objectList(keys.map { (name, $0) }, total: Int(count))) (change or clear them in a custom stage's willMigrate)")
            }
        }
    }

    // MARK: - Indexes

    /// Makes the file's indexes exactly the destination's: drops the ones whose name or SQL no
    /// longer matches, creates the missing. Untouched indexes stay (no rebuild).
    mutating func reconcileIndexes(deferringDuplicates: Bool) throws(StrataError) {
        let changes = try destination.indexChanges(database)
        if !changes.create.isEmpty { progress("creating \(changes.create.count) index(es)", nil) }
        for name in changes.drop { try database.execute("DROP INDEX \(quoted(name))") }
        for index in changes.create {
            if index.sql.hasPrefix("CREATE UNIQUE") {
                try createUniqueIndex(index, deferring: deferringDuplicates)
            } else {
                try database.execute(index.sql)
            }
        }
    }

    /// Creates a uniqueness constraint's index; when the data has duplicates, refuses naming
    /// them, or (before a custom stage's didMigrate, which may remove them) tries again after it.
    mutating func createUniqueIndex(_ index: (name: String, table: String, sql: String), deferring: Bool) throws(StrataError) {
        database.clearLastError()
        do {
            try database.execute(index.sql)
        } catch {
            guard database.lastErrorCode == Database.constraintUnique else { throw error }
            if deferring {
                deferredUniqueIndexes.append(index)
                return
            }
            throw try duplicates(index)
        }
    }

    /// The refusal for a uniqueness constraint the data violates, naming the duplicates.
    private func duplicates(_ index: (name: String, table: String, sql: String)) throws(StrataError) -> StrataError {
        // `CREATE UNIQUE INDEX "name" ON "table" (terms)[ WHERE condition]`
        let head = "ON \(quoted(index.table)) ("
        var rest = String(index.sql[index.sql.range(of: head)!.upperBound...])
        var condition: String?
        if let range = rest.range(of: ") WHERE ", options: .backwards) {
            condition = String(rest[range.upperBound...])
            rest = String(rest[..<range.lowerBound])
        } else {
            rest.removeLast()
        }
        let terms = rest
        let table = destination.tables[index.table]!
        let notNull = Self.splitTerms(terms).map { "(\($0)) IS NOT NULL" }
        let filter = ([condition].compactMap { $0 } + notNull).joined(separator: " AND ")
        let entity = table.hasEntityColumn ? "\"_entity\"" : literal(table.name)
        var groups: [[(entity: String, key: Int64)]] = []
        try database.each("SELECT json_group_array(\"_pk\"), json_group_array(\(entity)) FROM \(quoted(index.table)) WHERE \(filter) GROUP BY \(terms) HAVING count(*) > 1 ORDER BY min(\"_pk\")", []) { row in
            let keys = (try? JSONSerialization.jsonObject(with: Data(row.text(0).utf8))) as? [NSNumber] ?? []
            let names = (try? JSONSerialization.jsonObject(with: Data(row.text(1).utf8))) as? [String] ?? []
            groups.append(zip(names, keys).map { ($0, $1.int64Value) }.sorted { $0.key < $1.key })
        }
        let constraint = index.name.split(separator: ".").dropFirst()
        let objects = groups.flatMap { $0 }
        let shown = groups.prefix(10).map { group in group.map { "\($0.entity) \($0.key)" }.joined(separator: " and ") }.joined(separator: "; ")
        return refused("the uniqueness constraint on \(constraint.first ?? "")(\(constraint.dropFirst().joined(separator: ", "))) is violated by \(objects.count) objects in \(groups.count) group(s) with equal values: \(shown)\(groups.count > 10 ? "; and \(groups.count - 10) more group(s)" : ""). Remove or change the duplicates (a custom stage can), or drop the constraint")
    }

    /// Splits an index's terms at top-level commas.
    static func splitTerms(_ terms: String) -> [String] {
        var result: [String] = [], depth = 0, current = ""
        for character in terms {
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
            if character == ",", depth == 0 {
                result.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        result.append(current.trimmingCharacters(in: .whitespaces))
        return result.map { $0.hasSuffix(" DESC") ? String($0.dropLast(5)) : $0 }
    }
}
