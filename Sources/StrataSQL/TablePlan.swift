package import Strata

/// The tables of an SQL store, whatever its dialect: which entities a store holds, one table per
/// inheritance root with a column per stored property of the whole hierarchy, and the to-many
/// relationships (``ToManyPlan``). The SQLite and PostgreSQL stores build their layouts from it,
/// so that their tables are alike.
package struct TablePlan: Sendable {
    /// What a column of an entity table holds (besides `_pk`, `_entity` and `_version`).
    package enum Role: Sendable, Hashable {
        case attribute(AttributeType)
        /// A to-one foreign key, with the relationship's destination entity.
        case toOne(String)
        /// The concrete entity of a to-one relationship's destination.
        case toOneEntity(String)
        /// The position of the row in an ordered to-many relationship kept by this foreign key.
        case order(String)
    }

    package struct Column: Sendable, Hashable {
        package let name: String
        package let role: Role
    }

    package struct Table: Sendable {
        package let root: String
        package let entityNames: [String]
        package var columns: [Column]
    }

    /// The entities the store holds (those of its configuration, with their descendants).
    package let stored: [EntityDescription]
    /// The tables, in the order their roots were first met.
    package let tables: [Table]
    package let toMany: ToManyPlan
    /// Properties of one hierarchy that would share a column but are stored differently.
    package let problems: [String]

    /// - Parameter confinement: how the store keeps relationships together, for the problem of
    ///   a relationship that leaves the configuration ("a SQLite store keeps relationships
    ///   inside one file").
    package init(schema: Schema, configurationName: String?, confinement: String) {
        var problems: [String] = []
        let configured = configurationName.flatMap { schema.configuration(named: $0) }.map { Set($0.entityNames) }
        let stored = schema.entities.filter { entity in
            guard let configured else { return true }
            return configured.contains(entity.name) || entity.ancestorNames.contains(where: configured.contains)
        }
        var roots: [String] = []
        for entity in stored where !roots.contains(entity.rootName) { roots.append(entity.rootName) }

        // One table per root, columns for every stored property of the whole hierarchy.
        var tables: [Table] = []
        for root in roots {
            let hierarchy = schema.entityAndDescendants(of: root)
            var columns: [Column] = []
            var owners: [String: (String, String)] = [:]  // column name → (signature, entity)
            func add(_ column: Column, signature: String, entity: String) {
                if let (existing, other) = owners[column.name] {
                    if existing != signature {
                        problems.append("entities '\(other)' and '\(entity)' share the table '\(root)' and both have a property '\(column.name)', stored differently (\(existing) and \(signature)); rename one")
                    }
                    return
                }
                owners[column.name] = (signature, entity)
                columns.append(column)
            }
            for entity in hierarchy {
                for attribute in entity.attributes where !attribute.isTransient {
                    add(Column(name: attribute.name, role: .attribute(attribute.type)), signature: "attribute of type \(attribute.type)", entity: entity.name)
                }
            }
            for entity in hierarchy {
                for relationship in entity.relationships where !relationship.isToMany {
                    let destinationRoot = schema.entity(named: relationship.destination)?.rootName ?? relationship.destination
                    add(Column(name: relationship.name, role: .toOne(relationship.destination)),
                        signature: "to-one relationship to the '\(destinationRoot)' hierarchy", entity: entity.name)
                    if schema.entityAndDescendants(of: relationship.destination).count > 1 {
                        add(Column(name: "_\(relationship.name)_entity", role: .toOneEntity(relationship.name)),
                            signature: "entity of \(relationship.name)", entity: entity.name)
                    }
                }
            }
            tables.append(Table(root: root, entityNames: hierarchy.map(\.name), columns: columns))
        }

        // To-many relationships, and the order columns they need in their destinations' tables.
        let toMany = ToManyPlan(schema: schema, stored: stored)
        for order in toMany.orderColumns {
            if let index = tables.firstIndex(where: { $0.root == order.root }), !tables[index].columns.contains(where: { $0.name == order.column }) {
                tables[index].columns.append(Column(name: order.column, role: .order(order.inverse)))
            }
        }
        let storedNames = Set(stored.map(\.name))
        for entity in stored {
            for relationship in entity.relationships where !storedNames.contains(relationship.destination) {
                problems.append("\(entity.name).\(relationship.name) leads to '\(relationship.destination)', which this store's configuration does not hold; \(confinement)")
            }
        }
        self.stored = stored
        self.tables = tables
        self.toMany = toMany
        self.problems = problems
    }
}
