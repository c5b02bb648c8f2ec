internal import Foundation
internal import Strata

/// Where every entity, attribute and relationship of a model lives in the store's PostgreSQL
/// schema: the SQLite store's layout, with PostgreSQL's types.
///
/// - One table per inheritance root, named after the root entity: `"_pk" bigint PRIMARY KEY`,
///   `"_entity" text` (the concrete entity, only where the hierarchy has subentities),
///   `"_version" bigint` (optimistic locking), one column per stored attribute of the
///   hierarchy (types in ``PostgresValueCoding``), one `bigint` column per to-one relationship
///   (with `"_<name>_entity"` beside it when the destination has subentities).
/// - A to-many relationship whose inverse is to-one lives in that inverse's column (plus
///   `"_<inverse>_order"` in the destination table when it is ordered); any other to-many
///   relationship has a join table `"<Entity>.<relationship>"` (`"source"`, `"destination"`,
///   and `"source_order"`/`"destination_order"` for ordered sides), named after the side
///   whose (entity, name) sorts first.
/// - `strata_metadata` (key, value: the SQLite store's keys, the schema JSON among them) and
///   `strata_keys` (entity, last primary key handed out).
/// - Uniqueness constraints are `UNIQUE` constraints on their columns, checked at the end of
///   each save (deferred), so two objects may swap values in one save.
struct PostgresLayout: Sendable {
    let schema: Schema
    /// Tables by root entity name.
    let tables: [String: Table]
    /// Every entity this store holds, by name.
    let entities: [String: Entity]
    let joinTables: [JoinTable]
    /// What of the model this layout cannot store; empty when it can store all of it.
    let problems: [String]

    struct Column: Sendable, Hashable {
        let name: String
        let type: String
    }

    struct Table: Sendable {
        let name: String
        let entityNames: [String]
        let hasEntityColumn: Bool
        var columns: [Column]
    }

    struct JoinTable: Sendable, Hashable {
        let name: String
        let sourceRoot: String
        let destinationRoot: String
        let hasSourceOrder: Bool
        let hasDestinationOrder: Bool
    }

    /// Where the members of a to-many relationship are kept.
    enum ToMany: Sendable, Hashable {
        /// In the inverse to-one's column of the destination table (`entities`: the concrete
        /// entities that relationship belongs to, when others of the table share the name).
        case foreignKey(table: String, column: String, entityColumn: String?, orderColumn: String?, entities: [String]?)
        /// In a join table: rows whose `own` column is the owner's key.
        case joinTable(table: String, own: String, other: String, orderColumn: String?, otherOrderColumn: String?, otherRoot: String)
    }

    struct ToOne: Sendable, Hashable {
        let name: String
        let destination: String
        /// `"_<name>_entity"`, when the destination has subentities.
        let entityColumn: String?
    }

    /// How the objects of one entity are read and written.
    struct Entity: Sendable {
        let description: EntityDescription
        let table: String
        let hasEntityColumn: Bool
        let attributes: [(name: String, type: AttributeType)]
        let toOnes: [ToOne]
        let toMany: [String: ToMany]
    }

    init(schema: Schema, configurationName: String?) {
        self.schema = schema
        var problems: [String] = []
        let configured = configurationName.flatMap { schema.configuration(named: $0) }.map { Set($0.entityNames) }
        let stored = schema.entities.filter { entity in
            guard let configured else { return true }
            return configured.contains(entity.name) || entity.ancestorNames.contains(where: configured.contains)
        }
        let storedNames = Set(stored.map(\.name))
        var roots: [String] = []
        for entity in stored where !roots.contains(entity.rootName) { roots.append(entity.rootName) }

        var tables: [String: Table] = [:]
        for root in roots {
            let hierarchy = schema.entityAndDescendants(of: root)
            var columns: [Column] = []
            func add(_ column: Column) {
                if let existing = columns.first(where: { $0.name == column.name }) {
                    if existing != column {
                        problems.append("two entities of the '\(root)' hierarchy have a property '\(column.name)', stored differently (\(existing.type) and \(column.type)); rename one")
                    }
                    return
                }
                columns.append(column)
            }
            for entity in hierarchy {
                for attribute in entity.attributes where !attribute.isTransient {
                    add(Column(name: attribute.name, type: PostgresValueCoding.columnType(attribute.type)))
                }
            }
            for entity in hierarchy {
                for relationship in entity.relationships where !relationship.isToMany {
                    add(Column(name: relationship.name, type: "bigint"))
                    if schema.entityAndDescendants(of: relationship.destination).count > 1 {
                        add(Column(name: "_\(relationship.name)_entity", type: "text"))
                    }
                }
            }
            tables[root] = Table(name: root, entityNames: hierarchy.map(\.name), hasEntityColumn: hierarchy.count > 1, columns: columns)
        }

        var joinTables: [JoinTable] = []
        var toMany: [String: [String: ToMany]] = [:]
        for entity in stored {
            for relationship in entity.relationships where relationship.isToMany {
                guard let destination = schema.entity(named: relationship.destination) else { continue }
                let inverse = relationship.inverse.flatMap { destination.relationship(named: $0) }
                if let inverse, !inverse.isToMany {
                    let orderColumn = relationship.isOrdered ? "_\(inverse.name)_order" : nil
                    if let orderColumn, var table = tables[destination.rootName], !table.columns.contains(where: { $0.name == orderColumn }) {
                        table.columns.append(Column(name: orderColumn, type: "bigint"))
                        tables[destination.rootName] = table
                    }
                    let members = schema.entityAndDescendants(of: destination.name).map(\.name)
                    let others = schema.entityAndDescendants(of: destination.rootName).filter { !members.contains($0.name) && $0.property(named: inverse.name) != nil }
                    let entityColumn = schema.entityAndDescendants(of: inverse.destination).count > 1 ? "_\(inverse.name)_entity" : nil
                    toMany[entity.name, default: [:]][relationship.name] = .foreignKey(
                        table: destination.rootName, column: inverse.name, entityColumn: entityColumn, orderColumn: orderColumn,
                        entities: others.isEmpty ? nil : members)
                    continue
                }
                let declaring = Self.declaringEntity(of: relationship.name, in: entity, schema)
                var owns = true
                var inverseDeclaring: String?
                if let inverse, !(inverse.name == relationship.name && destination.rootName == entity.rootName) {
                    let other = Self.declaringEntity(of: inverse.name, in: destination, schema)
                    inverseDeclaring = other
                    owns = (declaring, relationship.name) < (other, inverse.name)
                }
                let name = owns ? "\(declaring).\(relationship.name)" : "\(inverseDeclaring!).\(inverse!.name)"
                let sourceOrdered = owns ? relationship.isOrdered : (inverse?.isOrdered ?? false)
                let destinationOrdered = inverseDeclaring == nil ? false : (owns ? (inverse?.isOrdered ?? false) : relationship.isOrdered)
                if !joinTables.contains(where: { $0.name == name }) {
                    joinTables.append(JoinTable(
                        name: name, sourceRoot: owns ? entity.rootName : destination.rootName,
                        destinationRoot: owns ? destination.rootName : entity.rootName,
                        hasSourceOrder: sourceOrdered, hasDestinationOrder: destinationOrdered))
                }
                let ownOrdered = owns ? sourceOrdered : destinationOrdered
                let otherOrdered = owns ? destinationOrdered : sourceOrdered
                toMany[entity.name, default: [:]][relationship.name] = .joinTable(
                    table: name, own: owns ? "source" : "destination", other: owns ? "destination" : "source",
                    orderColumn: ownOrdered ? (owns ? "source_order" : "destination_order") : nil,
                    otherOrderColumn: otherOrdered ? (owns ? "destination_order" : "source_order") : nil,
                    otherRoot: destination.rootName)
            }
        }

        for entity in stored {
            for relationship in entity.relationships where !storedNames.contains(relationship.destination) {
                problems.append("\(entity.name).\(relationship.name) leads to '\(relationship.destination)', which this store's configuration does not hold; a PostgreSQL store keeps relationships inside one schema")
            }
        }
        for name in Array(tables.keys) + joinTables.map(\.name) + tables.values.flatMap({ $0.columns.map(\.name) }) where name.utf8.count > 63 {
            problems.append("the name '\(name)' is longer than PostgreSQL's 63 bytes; shorten it")
        }
        for name in tables.keys where name.hasPrefix("strata_") {
            problems.append("the entity '\(name)' has the name of one of Strata's own tables; rename it")
        }

        var entities: [String: Entity] = [:]
        for entity in stored {
            guard let table = tables[entity.rootName] else { continue }
            entities[entity.name] = Entity(
                description: entity, table: table.name, hasEntityColumn: table.hasEntityColumn,
                attributes: entity.attributes.filter { !$0.isTransient }.map { ($0.name, $0.type) },
                toOnes: entity.relationships.filter { !$0.isToMany }.map { relationship in
                    ToOne(name: relationship.name, destination: relationship.destination,
                          entityColumn: schema.entityAndDescendants(of: relationship.destination).count > 1 ? "_\(relationship.name)_entity" : nil)
                },
                toMany: toMany[entity.name] ?? [:])
        }
        self.tables = tables
        self.entities = entities
        self.joinTables = joinTables
        self.problems = problems
    }

    /// The entity of `entity`'s lineage that declares `property` (itself or an ancestor).
    static func declaringEntity(of property: String, in entity: EntityDescription, _ schema: Schema) -> String {
        for name in [entity.name] + entity.ancestorNames {
            if let candidate = schema.entity(named: name), candidate.declares(property) {
                if let parent = candidate.parentName, schema.entity(named: parent)?.property(named: property) != nil { continue }
                return name
            }
        }
        return entity.name
    }

    /// The statements that create every table and constraint that does not exist yet.
    var creationStatements: [String] {
        var statements = [
            "CREATE TABLE IF NOT EXISTS \"strata_metadata\" (\"key\" text PRIMARY KEY, \"value\" text NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \"strata_keys\" (\"entity\" text PRIMARY KEY, \"last\" bigint NOT NULL)",
        ]
        for root in tables.keys.sorted() {
            let table = tables[root]!
            var columns = ["\"_pk\" bigint PRIMARY KEY"]
            if table.hasEntityColumn { columns.append("\"_entity\" text NOT NULL") }
            columns.append("\"_version\" bigint NOT NULL")
            columns += table.columns.map { "\(quoted($0.name)) \($0.type)" }
            statements.append("CREATE TABLE IF NOT EXISTS \(quoted(root)) (\(columns.joined(separator: ", ")))")
            if table.hasEntityColumn {
                statements.append("CREATE INDEX IF NOT EXISTS \(quoted("index.\(root)._entity")) ON \(quoted(root)) (\"_entity\")")
            }
        }
        for join in joinTables {
            var columns = ["\"source\" bigint NOT NULL", "\"destination\" bigint NOT NULL"]
            if join.hasSourceOrder { columns.append("\"source_order\" bigint") }
            if join.hasDestinationOrder { columns.append("\"destination_order\" bigint") }
            columns.append("PRIMARY KEY (\"source\", \"destination\")")
            statements.append("CREATE TABLE IF NOT EXISTS \(quoted(join.name)) (\(columns.joined(separator: ", ")))")
            statements.append("CREATE INDEX IF NOT EXISTS \(quoted("index.\(join.name).destination")) ON \(quoted(join.name)) (\"destination\")")
        }
        for name in entities.keys.sorted() {
            let entity = entities[name]!
            // PostgreSQL truncates names past 63 bytes, the same way each time.
            for relationship in entity.toOnes where entity.description.declares(relationship.name) {
                statements.append("CREATE INDEX IF NOT EXISTS \(quoted("index.\(entity.table).\(relationship.name)")) ON \(quoted(entity.table)) (\(quoted(relationship.name)))")
            }
            for attribute in entity.description.attributes where attribute.isIndexed && !attribute.isTransient && entity.description.declares(attribute.name) {
                statements.append("CREATE INDEX IF NOT EXISTS \(quoted("index.\(entity.table).\(attribute.name)")) ON \(quoted(entity.table)) (\(quoted(attribute.name)))")
            }
            for constraint in entity.description.uniquenessConstraints {
                let index = quoted("unique.\(name).\(constraint.joined(separator: "."))")
                let columns = constraint.map(quoted).joined(separator: ", ")
                if entity.table == name {
                    // Deferred to the end of the save, so that two objects may swap their values.
                    statements.append("""
                        DO $$ BEGIN ALTER TABLE \(quoted(entity.table)) ADD CONSTRAINT \(index) UNIQUE (\(columns)) DEFERRABLE INITIALLY DEFERRED; \
                        EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$
                        """)
                } else {
                    // A subentity's: over its own rows and its descendants' only.
                    let kinds = schema.entityAndDescendants(of: name).map { "'\($0.name.replacingOccurrences(of: "'", with: "''"))'" }
                    statements.append("CREATE UNIQUE INDEX IF NOT EXISTS \(index) ON \(quoted(entity.table)) (\(columns)) WHERE \"_entity\" IN (\(kinds.joined(separator: ", ")))")
                }
            }
        }
        return statements
    }
}

/// An SQL identifier in double quotes (a quote inside doubled).
func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
