package import Strata

/// Where the members of a to-many relationship are kept in an SQL store's tables (the same in
/// every dialect).
package enum ToManyStorage: Sendable, Hashable {
    /// In the inverse to-one's foreign-key column of the destination table (`entityFilter`: the
    /// concrete entities that relationship belongs to, when other entities of the table have a
    /// property of that name).
    case foreignKey(table: String, column: String, orderColumn: String?, entityFilter: [String]?)
    /// In a join table: rows whose `ownColumn` is the owner's key.
    case joinTable(table: String, ownColumn: String, otherColumn: String, orderColumn: String?, otherRoot: String)
}

/// A join table of to-many relationships: `"source"`, `"destination"`, and an order column per
/// ordered side.
package struct JoinTableLayout: Sendable, Hashable {
    package let name: String
    package let sourceRoot: String
    package let destinationRoot: String
    package let hasSourceOrder: Bool
    package let hasDestinationOrder: Bool

    package init(name: String, sourceRoot: String, destinationRoot: String, hasSourceOrder: Bool, hasDestinationOrder: Bool) {
        self.name = name
        self.sourceRoot = sourceRoot
        self.destinationRoot = destinationRoot
        self.hasSourceOrder = hasSourceOrder
        self.hasDestinationOrder = hasDestinationOrder
    }
}

/// How an SQL store keeps the to-many relationships of the entities it holds, whatever its
/// dialect (the SQLite and PostgreSQL stores share it, so that their tables are alike):
///
/// - A to-many relationship whose inverse is to-one lives in that inverse's foreign-key column,
///   plus `"_<inverse>_order"` in the destination's table when it is ordered.
/// - Any other (many-to-many, or without inverse) has a join table `"<Entity>.<relationship>"`
///   named after the side whose (declaring entity, name) sorts first.
package struct ToManyPlan: Sendable {
    /// By entity, by relationship name.
    package let storage: [String: [String: ToManyStorage]]
    package let joinTables: [JoinTableLayout]
    /// The order columns the destination tables need, in the order they were found: the root
    /// of the table, the column, and the to-one relationship whose position it keeps.
    package let orderColumns: [(root: String, column: String, inverse: String)]

    /// Plans the to-many relationships of `stored` (the entities a store holds).
    package init(schema: Schema, stored: [EntityDescription]) {
        var joinTables: [JoinTableLayout] = []
        var storage: [String: [String: ToManyStorage]] = [:]
        var orderColumns: [(root: String, column: String, inverse: String)] = []
        for entity in stored {
            for relationship in entity.relationships where relationship.isToMany {
                guard let destination = schema.entity(named: relationship.destination) else { continue }
                let inverse = relationship.inverse.flatMap { destination.relationship(named: $0) }
                let declaring = Self.declaringEntity(of: relationship.name, in: entity, schema)
                if let inverse, !inverse.isToMany {
                    var orderColumn: String?
                    if relationship.isOrdered {
                        let column = "_\(inverse.name)_order"
                        orderColumn = column
                        if !orderColumns.contains(where: { $0.root == destination.rootName && $0.column == column }) {
                            orderColumns.append((destination.rootName, column, inverse.name))
                        }
                    }
                    let members = schema.entityAndDescendants(of: destination.name).map(\.name)
                    let others = schema.entityAndDescendants(of: destination.rootName).filter { other in
                        !members.contains(other.name) && other.property(named: inverse.name) != nil
                    }
                    storage[entity.name, default: [:]][relationship.name] = .foreignKey(
                        table: destination.rootName, column: inverse.name, orderColumn: orderColumn,
                        entityFilter: others.isEmpty ? nil : members)
                    continue
                }
                // A join table, named after the side whose (entity, relationship) sorts first.
                var ownsTable = true
                var inverseDeclaring: String?
                if let inverse, !(inverse.name == relationship.name && destination.rootName == entity.rootName) {
                    let other = Self.declaringEntity(of: inverse.name, in: destination, schema)
                    inverseDeclaring = other
                    ownsTable = (declaring, relationship.name) < (other, inverse.name)
                }
                let name = ownsTable ? Self.joinTableName(declaring, relationship.name) : Self.joinTableName(inverseDeclaring!, inverse!.name)
                if !joinTables.contains(where: { $0.name == name }) {
                    let sourceRoot = ownsTable ? entity.rootName : destination.rootName
                    let destinationRoot = ownsTable ? destination.rootName : entity.rootName
                    let sourceOrdered = ownsTable ? relationship.isOrdered : (inverse?.isOrdered ?? false)
                    let destinationOrdered = inverseDeclaring == nil ? false : (ownsTable ? (inverse?.isOrdered ?? false) : relationship.isOrdered)
                    joinTables.append(JoinTableLayout(
                        name: name, sourceRoot: sourceRoot, destinationRoot: destinationRoot,
                        hasSourceOrder: sourceOrdered, hasDestinationOrder: destinationOrdered))
                }
                storage[entity.name, default: [:]][relationship.name] = .joinTable(
                    table: name, ownColumn: ownsTable ? "source" : "destination",
                    otherColumn: ownsTable ? "destination" : "source",
                    orderColumn: relationship.isOrdered ? (ownsTable ? "source_order" : "destination_order") : nil,
                    otherRoot: destination.rootName)
            }
        }
        self.storage = storage
        self.joinTables = joinTables
        self.orderColumns = orderColumns
    }

    /// The entity of `entity`'s lineage that declares `property` (itself or an ancestor).
    package static func declaringEntity(of property: String, in entity: EntityDescription, _ schema: Schema) -> String {
        for name in [entity.name] + entity.ancestorNames {
            if let candidate = schema.entity(named: name), candidate.declares(property) {
                if let parent = candidate.parentName, schema.entity(named: parent)?.property(named: property) != nil { continue }
                return name
            }
        }
        return entity.name
    }

    /// The join table of `relationship` declared by `entity`: `"<Entity>.<relationship>"`. Model
    /// names hold letters, digits and `_` only, so the dot makes the name unique.
    package static func joinTableName(_ entity: String, _ relationship: String) -> String {
        "\(entity).\(relationship)"
    }
}
