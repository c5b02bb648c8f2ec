internal import Foundation
internal import Strata
internal import StrataSQL

/// Where every entity, attribute and relationship of a model lives in the store's PostgreSQL
/// schema: the SQLite store's layout, with PostgreSQL's types.
///
/// - One table per inheritance root, named after the root entity: `"_pk" bigint PRIMARY KEY`,
///   `"_entity" text COLLATE "C"` (the concrete entity, only where the hierarchy has
///   subentities; ordered by code points, as the evaluator orders entity names),
///   `"_version" bigint` (optimistic locking), one column per stored attribute of the
///   hierarchy (types in ``PostgresValueCoding``), one `bigint` column per to-one relationship
///   (with `"_<name>_entity"` beside it when the destination has subentities).
/// - A to-many relationship whose inverse is to-one lives in that inverse's column (plus
///   `"_<inverse>_order"` in the destination table when it is ordered); any other to-many
///   relationship has a join table `"<Entity>.<relationship>"` (`"source"`, `"destination"`,
///   and `"source_order"`/`"destination_order"` for ordered sides), named after the side
///   whose (entity, name) sorts first.
/// - `strata_metadata` (key, value: the SQLite store's keys, the schema JSON among them),
///   `strata_keys` (entity, last primary key handed out) and `strata_history` (one row per
///   save: the objects it inserted, updated and deleted, for other processes' contexts).
/// - Uniqueness constraints are exclusion constraints (`EXCLUDE USING btree (… WITH =)`) on
///   their columns, strings in NFC, checked at the end of each save (deferred), so two objects
///   may swap values in one save.
struct PostgresLayout: Sendable {
    let schema: Schema
    /// Tables by root entity name.
    let tables: [String: Table]
    /// Every entity this store holds, by name.
    let entities: [String: Entity]
    let joinTables: [JoinTableLayout]
    /// What of the model this layout cannot store; empty when it can store all of it.
    let problems: [String]

    struct Column: Sendable, Hashable {
        let name: String
        let type: String
        /// The attribute type, for an attribute's column.
        var attribute: AttributeType? = nil
    }

    struct Table: Sendable {
        let name: String
        let entityNames: [String]
        let hasEntityColumn: Bool
        var columns: [Column]
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
        let toMany: [String: ToManyStorage]
    }

    init(schema: Schema, configurationName: String?) {
        self.schema = schema
        let plan = TablePlan(schema: schema, configurationName: configurationName, confinement: "a PostgreSQL store keeps relationships inside one schema")
        var problems = plan.problems
        var tables: [String: Table] = [:]
        for table in plan.tables {
            let columns = table.columns.map { column in
                switch column.role {
                case .attribute(let type): Column(name: column.name, type: PostgresValueCoding.columnType(type), attribute: type)
                case .toOne, .order: Column(name: column.name, type: "bigint")
                case .toOneEntity: Column(name: column.name, type: "text")
                }
            }
            tables[table.root] = Table(name: table.root, entityNames: table.entityNames, hasEntityColumn: table.entityNames.count > 1, columns: columns)
        }
        let joinTables = plan.toMany.joinTables
        let toMany = plan.toMany.storage
        for name in Array(tables.keys) + joinTables.map(\.name) + tables.values.flatMap({ $0.columns.map(\.name) }) where name.utf8.count > 63 {
            problems.append("the name '\(name)' is longer than PostgreSQL's 63 bytes; shorten it")
        }
        for name in tables.keys where name.hasPrefix("strata_") {
            problems.append("the entity '\(name)' has the name of one of Strata's own tables; rename it")
        }

        var entities: [String: Entity] = [:]
        for entity in plan.stored {
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

    /// The `"_<name>_entity"` column beside a to-one's key in `table`, when it has one.
    func entityColumn(of column: String, in table: String) -> String? {
        let name = "_\(column)_entity"
        return tables[table]?.columns.contains { $0.name == name } == true ? name : nil
    }

    /// The order column of a join table's other side, when that side is ordered.
    func otherOrderColumn(of table: String, other: String) -> String? {
        guard let join = joinTables.first(where: { $0.name == table }) else { return nil }
        return other == "source" ? (join.hasSourceOrder ? "source_order" : nil) : (join.hasDestinationOrder ? "destination_order" : nil)
    }

    /// The statements that create every table and constraint that does not exist yet.
    var creationStatements: [String] {
        var statements = [
            "CREATE TABLE IF NOT EXISTS \"strata_metadata\" (\"key\" text PRIMARY KEY, \"value\" text NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \"strata_keys\" (\"entity\" text PRIMARY KEY, \"last\" bigint NOT NULL)",
            // One row per save: what it changed, as "Entity/key" (PostgresChangeObserver).
            """
            CREATE TABLE IF NOT EXISTS "strata_history" ("id" bigserial PRIMARY KEY, "origin" text NOT NULL, \
            "committed" timestamptz NOT NULL DEFAULT now(), "inserted" text[] NOT NULL, "updated" text[] NOT NULL, "deleted" text[] NOT NULL)
            """,
        ]
        for root in tables.keys.sorted() {
            let table = tables[root]!
            var columns = ["\"_pk\" bigint PRIMARY KEY"]
            if table.hasEntityColumn { columns.append("\"_entity\" text COLLATE \"C\" NOT NULL") }
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
                // Strings are equal when canonically equivalent, as in every store: compared in
                // NFC. The server must decide this, not only the coordinator's check before the
                // save, or two processes saving "é" and "e\u{301}" at once would both succeed.
                // An exclusion constraint, since a UNIQUE one takes no expressions; nil is equal
                // to nothing, as in a UNIQUE one.
                let elements = constraint.map { column in
                    entity.attributes.first { $0.name == column }?.type == .string ? "(normalize(\(quoted(column)), NFC)) WITH =" : "\(quoted(column)) WITH ="
                }
                // A subentity's: over its own rows and its descendants' only.
                let kinds = entity.table == name ? [] : schema.entityAndDescendants(of: name).map { "'\($0.name.replacingOccurrences(of: "'", with: "''"))'" }
                // Deferred to the end of the save, so that two objects may swap their values.
                statements.append("""
                    DO $$ BEGIN ALTER TABLE \(quoted(entity.table)) ADD CONSTRAINT \(index) EXCLUDE USING btree (\(elements.joined(separator: ", ")))\
                    \(kinds.isEmpty ? "" : " WHERE (\"_entity\" IN (\(kinds.joined(separator: ", "))))") DEFERRABLE INITIALLY DEFERRED; \
                    EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$
                    """)
            }
        }
        return statements
    }
}

extension PostgresLayout: SQLQueryLayout {
    func queryTable(forRoot root: String) -> (any SQLQueryTable)? { tables[root] }

    func toManyStorage(of entity: String, _ relationship: String) -> ToManyStorage? {
        entities[entity]?.toMany[relationship]
    }
}

extension PostgresLayout.Table: SQLQueryTable {
    func attributeType(_ name: String) -> AttributeType? {
        columns.first { $0.name == name }?.attribute
    }

    /// None: PostgreSQL keeps no comparison keys, so strings, URIs and decimals are compared by
    /// the evaluator.
    func comparisonKey(_ attribute: String, alias: String?) -> String? { nil }

    var recordColumns: [String] { columns.map(\.name) }
}

/// An SQL identifier in double quotes (a quote inside doubled).
func quoted(_ name: String) -> String {
    quotedIdentifier(name)
}
