internal import Foundation
internal import Strata

extension SQLiteMigration {
    /// A destination relationship storage filled from pairs, and how.
    struct PairFill {
        var unit: PairUnit
        /// The destination (entity, relationship) that owns the storage: a to-one's entity, or
        /// the join table's `source` side.
        var entity: String
        var relationship: String
        /// Whether the pairs' container is the to-many side of the foreign key (the rows of
        /// `entity` are then the members).
        var containerIsToMany: Bool
        /// `SELECT container, member, position …` over the source tables.
        var query: String
    }

    /// The entity names of `entity` and its subentities, as SQL literals.
    static func family(_ entity: String, in layout: StoreLayout) -> String {
        layout.schema.entityAndDescendants(of: entity).map { literal($0.name) }.joined(separator: ", ")
    }

    /// `SELECT owner, member, position` of source entity `entity`'s relationship `name`, from
    /// wherever the source layout keeps it; nil when its table is not in the file. With
    /// `destination` and the file's `tables`, of destination entity `entity` once the tables
    /// changed.
    func sideQuery(_ entity: String, _ name: String, destination tables: Set<String>? = nil) -> String? {
        let model = tables == nil ? source : destination
        let existing = tables ?? existing
        guard let layout = model.entities[entity], case .relationship(let relationship)? = layout.entity.property(named: name) else { return nil }
        if !relationship.isToMany {
            let table = layout.table
            guard existing.contains(table.name) else { return nil }
            var sql = "SELECT \"_pk\" AS o, \(quoted(name)) AS m, NULL AS p FROM \(quoted(table.name)) WHERE \(quoted(name)) IS NOT NULL"
            if table.hasEntityColumn { sql += " AND \"_entity\" IN (\(Self.family(entity, in: model)))" }
            return sql
        }
        switch layout.toMany[name] {
        case .foreignKey(let table, let column, let order, let filter)?:
            guard existing.contains(table) else { return nil }
            var sql = "SELECT \(quoted(column)) AS o, \"_pk\" AS m, \(order.map(quoted) ?? "NULL") AS p FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL"
            if let filter { sql += " AND \"_entity\" IN (\(filter.map(literal).joined(separator: ", ")))" }
            return sql
        case .joinTable(let table, let own, let other, let order, _)?:
            guard existing.contains(table) else { return nil }
            return "SELECT \(quoted(own)) AS o, \(quoted(other)) AS m, \(order.map(quoted) ?? "NULL") AS p FROM \(quoted(table))"
        case nil:
            return nil
        }
    }

    /// The pairs of destination relationship (entity, name) seen from `entity`'s side, read
    /// from the matched source relationship, else from the matched source inverse, reversed.
    func pairsQuery(_ entity: String, _ name: String) -> String? {
        if let sourceName = sourceEntity(entity), case .relationship(let old)? = sourceProperty(name, of: entity),
           let sql = sideQuery(sourceName, old.name) {
            return sql
        }
        guard let relationship = destination.schema.entity(named: entity)?.relationship(named: name), let inverse = relationship.inverse,
              let sourceName = sourceEntity(relationship.destination),
              case .relationship(let old)? = sourceProperty(inverse, of: relationship.destination),
              let sql = sideQuery(sourceName, old.name) else { return nil }
        return "SELECT m AS o, o AS m, NULL AS p FROM (\(sql))"
    }

    /// The destination storages whose pairs move: every to-one foreign key that is not
    /// carried over in its column, and every join table that is not carried over.
    func pairFills() -> [PairFill] {
        var fills: [PairFill] = []
        for name in destination.entities.keys.sorted() {
            let layout = destination.entities[name]!
            let table = layout.table
            guard let plan = plans[table.name], !froms(of: plan).isEmpty else { continue }
            for relationship in layout.entity.relationships where !relationship.isToMany && layout.entity.declares(relationship.name) {
                guard !isCarried(table.column(relationship.name)!, of: table, plan: plan) else { continue }
                let inverse = relationship.inverse.flatMap { destination.schema.entity(named: relationship.destination)?.relationship(named: $0) }
                let unit = PairUnit(table: table.name, column: relationship.name)
                if let inverse, inverse.isToMany, let sql = pairsQuery(relationship.destination, inverse.name) {
                    fills.append(PairFill(unit: unit, entity: name, relationship: relationship.name, containerIsToMany: true, query: sql))
                } else if let sql = pairsQuery(name, relationship.name) {
                    fills.append(PairFill(unit: unit, entity: name, relationship: relationship.name, containerIsToMany: false, query: sql))
                }
            }
        }
        for join in destination.joinTables where carriedJoins[join.name] == nil && hasRoots(join) {
            guard let (entity, relationship) = owner(of: join), let sql = pairsQuery(entity, relationship) else { continue }
            fills.append(PairFill(unit: PairUnit(table: join.name, column: nil), entity: entity, relationship: relationship, containerIsToMany: false, query: sql))
        }
        return fills
    }

    /// Reads the pairs of every storage that changes into temporary tables, before the
    /// source tables change.
    mutating func readPairs() throws(StrataError) {
        // Join tables carried over are decided first (they are not filled from pairs).
        carriedJoins = [:]
        for join in destination.joinTables {
            guard let (entity, relationship) = owner(of: join),
                  case .relationship(let old)? = sourceProperty(relationship, of: entity), old.isToMany,
                  let sourceName = sourceEntity(entity), let layout = source.entities[sourceName],
                  case .joinTable(let table, "source", _, _, _)? = layout.toMany[old.name], existing.contains(table),
                  !carriedJoins.values.contains(where: { $0.name == table }),
                  let from = source.joinTables.first(where: { $0.name == table }) else { continue }
            carriedJoins[join.name] = from
        }
        for (number, fill) in pairFills().enumerated() {
            let table = "strata pairs \(number)"
            try database.execute("CREATE TEMP TABLE \(quoted(table)) (\"container\" INTEGER, \"member\" INTEGER, \"position\" INTEGER)")
            try database.execute("INSERT INTO temp.\(quoted(table)) SELECT * FROM (\(fill.query))")
            pairs[fill.unit] = table
            pendingFills.append(fill)
        }
    }

    /// Writes the pairs into their destination storages, refusing a to-one that would hold
    /// more than one object; then numbers the members of ordered relationships whose order
    /// is new (by primary key).
    mutating func writePairs() throws(StrataError) {
        for fill in pendingFills {
            let pairsTable = "temp.\(quoted(pairs[fill.unit]!))"
            guard let column = fill.unit.column else {
                let join = destination.joinTables.first { $0.name == fill.unit.table }!
                let order = join.hasSourceOrder ? ", \"source_order\"" : ""
                try database.execute("INSERT OR IGNORE INTO \(quoted(join.name)) (\"source\", \"destination\"\(order)) SELECT \"container\", \"member\"\(order.isEmpty ? "" : ", \"position\"") FROM \(pairsTable)")
                continue
            }
            let table = destination.tables[fill.unit.table]!
            let rows = fill.containerIsToMany ? "member" : "container"
            let value = fill.containerIsToMany ? "container" : "member"
            // A to-one holds one object: an object with more is refused by name.
            let duplicates = try database.rows("SELECT \(quoted(rows)) FROM \(pairsTable) GROUP BY \(quoted(rows)) HAVING count(*) > 1 ORDER BY \(quoted(rows))", []) { $0.int64(0) }
            if !duplicates.isEmpty {
                throw refused("\(fill.entity).\(fill.relationship) becomes a to-one relationship, but \(duplicates.count) object(s) have more than one: \(Self.objectList(duplicates.map { (fill.entity, $0) }, total: duplicates.count)). Leave each at most one (a custom stage's willMigrate can), or keep the relationship to-many")
            }
            let relationship = destination.schema.entity(named: fill.entity)!.relationship(named: column)!
            var assignments = ["\(quoted(column)) = p.\(quoted(value))"]
            if table.column("_\(column)_entity") != nil, let target = destination.entities[relationship.destination] {
                let targetTable = target.table
                assignments.append("\(quoted("_\(column)_entity")) = " + (targetTable.hasEntityColumn
                    ? "(SELECT \"_entity\" FROM \(quoted(targetTable.name)) WHERE \"_pk\" = p.\(quoted(value)))"
                    : literal(targetTable.name)))
            }
            if fill.containerIsToMany, table.column("_\(column)_order") != nil {
                assignments.append("\(quoted("_\(column)_order")) = p.\"position\"")
            }
            var sql = "UPDATE \(quoted(table.name)) AS t SET \(assignments.joined(separator: ", ")) FROM \(pairsTable) AS p WHERE t.\"_pk\" = p.\(quoted(rows))"
            if table.hasEntityColumn { sql += " AND t.\"_entity\" IN (\(Self.family(fill.entity, in: destination)))" }
            try database.execute(sql)
        }
        try numberNewOrders()
    }

    /// References to the rows of removed entities (a removed subentity's rows leave a table
    /// that stays) are cleared: foreign keys become nil, join rows go. Only hierarchies that
    /// lost rows are looked at.
    func clearReferencesToRemovedObjects() throws(StrataError) {
        var lost: Set<String> = []
        for (name, plan) in plans {
            for from in froms(of: plan) where source.tables[from]!.entityNames.contains(where: { destinationEntity($0) == nil }) {
                lost.insert(name)
            }
        }
        guard !lost.isEmpty else { return }
        for name in destination.tables.keys.sorted() where plans[name] != nil {
            let table = destination.tables[name]!
            for column in table.columns {
                guard case .toOne(let target) = column.role, let root = destination.entities[target]?.rootName, lost.contains(root) else { continue }
                let cleared = [column.name, "_\(column.name)_entity", "_\(column.name)_order"].filter { table.column($0) != nil }
                try database.execute("UPDATE \(quoted(name)) AS t SET \(cleared.map { "\(quoted($0)) = NULL" }.joined(separator: ", ")) WHERE t.\(quoted(column.name)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(quoted(root)) WHERE \"_pk\" = t.\(quoted(column.name)))")
            }
        }
        for join in destination.joinTables where hasRoots(join) {
            for (column, root) in [("source", join.sourceRoot), ("destination", join.destinationRoot)] where lost.contains(root) {
                try database.execute("DELETE FROM \(quoted(join.name)) WHERE NOT EXISTS (SELECT 1 FROM \(quoted(root)) WHERE \"_pk\" = \(quoted(join.name)).\(quoted(column)))")
            }
        }
    }

    /// Gives the members of ordered relationships that had no order (or lost it with their
    /// storage) positions by primary key, as Core Data orders them when a relationship becomes
    /// ordered.
    private func numberNewOrders() throws(StrataError) {
        for name in destination.tables.keys.sorted() {
            let table = destination.tables[name]!
            guard let plan = plans[name], !froms(of: plan).isEmpty else { continue }
            for column in table.columns {
                guard case .order(let key) = column.role, !isCarried(column, of: table, plan: plan) else { continue }
                try database.execute("UPDATE \(quoted(name)) AS t SET \(quoted(column.name)) = (SELECT count(*) FROM \(quoted(name)) AS k WHERE k.\(quoted(key)) = t.\(quoted(key)) AND k.\"_pk\" < t.\"_pk\") WHERE t.\(quoted(key)) IS NOT NULL AND t.\(quoted(column.name)) IS NULL")
            }
        }
        for join in destination.joinTables where carriedJoins[join.name] == nil && hasRoots(join) {
            for (column, own, other, has) in [("source_order", "source", "destination", join.hasSourceOrder), ("destination_order", "destination", "source", join.hasDestinationOrder)] where has {
                try database.execute("UPDATE \(quoted(join.name)) AS j SET \(quoted(column)) = (SELECT count(*) FROM \(quoted(join.name)) AS k WHERE k.\(quoted(own)) = j.\(quoted(own)) AND k.\(quoted(other)) < j.\(quoted(other))) WHERE j.\(quoted(column)) IS NULL")
            }
        }
    }
}
