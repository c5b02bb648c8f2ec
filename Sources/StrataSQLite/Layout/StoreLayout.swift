internal import Foundation
internal import Strata

/// Where every entity, attribute and relationship of a model lives in the database file.
///
/// - One table per inheritance root, named after the root entity, with `"_pk" INTEGER PRIMARY
///   KEY`, `"_entity"` (the concrete entity name, only where the hierarchy has subentities),
///   `"_version"` (optimistic locking), then one column per stored attribute of every entity of
///   the hierarchy, named after it, and one foreign-key column per to-one relationship, named
///   after it (with `"_<name>_entity"` beside it when the destination has subentities).
/// - A to-many relationship whose inverse is to-one lives in that inverse's foreign-key column
///   (plus `"_<inverse>_order"` in the destination table when it is ordered).
/// - Any other to-many relationship (many-to-many, or without inverse) has a join table named
///   `"<Entity>_<relationship>"` after the side whose (entity, name) sorts first, with columns
///   `"source"`, `"destination"` and, for ordered sides, `"source_order"`/`"destination_order"`.
/// - `strata_metadata` (key, value) and `strata_keys` (entity, last primary key handed out).
///
/// Every name starting with `_` or a lower-case letter is Strata's, so it never clashes with a
/// property (lower-case first) or an entity (upper-case first).
struct StoreLayout: Sendable {
    let schema: Schema
    /// Tables by root entity name.
    let tables: [String: TableLayout]
    /// Every entity this store holds, by name.
    let entities: [String: EntityLayout]
    let joinTables: [JoinTableLayout]
    /// What of the model this layout cannot store; empty when it can store all of it.
    let problems: [String]

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

        // Tables: one per root, columns for every stored property of the whole hierarchy.
        var tables: [String: TableLayout] = [:]
        for root in roots {
            let hierarchy = schema.entityAndDescendants(of: root)
            var columns: [ColumnLayout] = []
            var owners: [String: (String, String)] = [:]  // column name → (signature, entity)
            func add(_ column: ColumnLayout, signature: String, entity: String) {
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
                    add(ColumnLayout(name: attribute.name, declaredType: ValueKind.columnType(attribute.type), role: .attribute(attribute.type)),
                        signature: "attribute of type \(attribute.type)", entity: entity.name)
                }
            }
            for entity in hierarchy {
                for relationship in entity.relationships where !relationship.isToMany {
                    let destinationRoot = schema.entity(named: relationship.destination)?.rootName ?? relationship.destination
                    add(ColumnLayout(name: relationship.name, declaredType: "INTEGER", role: .toOne(relationship.destination)),
                        signature: "to-one relationship to the '\(destinationRoot)' hierarchy", entity: entity.name)
                    if schema.entityAndDescendants(of: relationship.destination).count > 1 {
                        add(ColumnLayout(name: "_\(relationship.name)_entity", declaredType: "TEXT", role: .toOneEntity(relationship.name)),
                            signature: "entity of \(relationship.name)", entity: entity.name)
                    }
                }
            }
            tables[root] = TableLayout(
                name: root, entityNames: hierarchy.map(\.name), hasEntityColumn: hierarchy.count > 1, columns: columns)
        }

        // To-many relationships: a foreign key of the inverse, or a join table.
        var joinTables: [JoinTableLayout] = []
        var toMany: [String: [String: ToManyStorage]] = [:]
        for entity in stored {
            for relationship in entity.relationships where relationship.isToMany {
                guard let destination = schema.entity(named: relationship.destination) else { continue }
                let inverse = relationship.inverse.flatMap { destination.relationship(named: $0) }
                let declaring = Self.declaringEntity(of: relationship.name, in: entity, schema)
                if let inverse, !inverse.isToMany {
                    var orderColumn: String?
                    if relationship.isOrdered {
                        orderColumn = "_\(inverse.name)_order"
                        if var table = tables[destination.rootName], !table.columns.contains(where: { $0.name == orderColumn }) {
                            table.columns.append(ColumnLayout(name: orderColumn!, declaredType: "INTEGER", role: .order(inverse.name)))
                            tables[destination.rootName] = table
                        }
                    }
                    let members = schema.entityAndDescendants(of: destination.name).map(\.name)
                    let others = schema.entityAndDescendants(of: destination.rootName).filter { other in
                        !members.contains(other.name) && other.property(named: inverse.name) != nil
                    }
                    toMany[entity.name, default: [:]][relationship.name] = .foreignKey(
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
                let name = ownsTable ? "\(declaring)_\(relationship.name)" : "\(inverseDeclaring!)_\(inverse!.name)"
                if !joinTables.contains(where: { $0.name == name }) {
                    let sourceRoot = ownsTable ? entity.rootName : destination.rootName
                    let destinationRoot = ownsTable ? destination.rootName : entity.rootName
                    let sourceOrdered = ownsTable ? relationship.isOrdered : (inverse?.isOrdered ?? false)
                    let destinationOrdered = inverseDeclaring == nil ? false : (ownsTable ? (inverse?.isOrdered ?? false) : relationship.isOrdered)
                    joinTables.append(JoinTableLayout(
                        name: name, sourceRoot: sourceRoot, destinationRoot: destinationRoot,
                        hasSourceOrder: sourceOrdered, hasDestinationOrder: destinationOrdered))
                    if tables[name] != nil || schema.entity(named: name) != nil {
                        problems.append("the join table of \(declaring).\(relationship.name) would be named '\(name)', which is also an entity; rename the entity or the relationship")
                    }
                }
                toMany[entity.name, default: [:]][relationship.name] = .joinTable(
                    table: name, ownColumn: ownsTable ? "source" : "destination",
                    otherColumn: ownsTable ? "destination" : "source",
                    orderColumn: relationship.isOrdered ? (ownsTable ? "source_order" : "destination_order") : nil,
                    otherRoot: destination.rootName)
            }
        }

        for entity in stored {
            for relationship in entity.relationships where !storedNames.contains(relationship.destination) {
                problems.append("\(entity.name).\(relationship.name) leads to '\(relationship.destination)', which this store's configuration does not hold; a SQLite store keeps relationships inside one file")
            }
        }

        var entities: [String: EntityLayout] = [:]
        for entity in stored {
            guard let table = tables[entity.rootName] else { continue }
            entities[entity.name] = EntityLayout(entity: entity, table: table, toMany: toMany[entity.name] ?? [:], schema: schema)
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

    func entity(_ name: String) throws(StrataError) -> EntityLayout {
        guard let layout = entities[name] else {
            throw StrataError(.unknownEntity, "this SQLite store does not hold entity '\(name)'")
        }
        return layout
    }

    func table(forRoot root: String) -> TableLayout? { tables[root] }
}

/// One column of an entity table, besides `_pk`, `_entity` and `_version`.
struct ColumnLayout: Sendable, Hashable {
    enum Role: Sendable, Hashable {
        case attribute(AttributeType)
        /// A to-one foreign key, with the relationship's destination entity.
        case toOne(String)
        /// The concrete entity of a to-one relationship's destination.
        case toOneEntity(String)
        /// The position of the row in an ordered to-many relationship kept by this foreign key.
        case order(String)
    }

    let name: String
    let declaredType: String
    let role: Role
}

/// The table of one inheritance hierarchy.
struct TableLayout: Sendable {
    /// The table name: the root entity's name.
    let name: String
    let entityNames: [String]
    let hasEntityColumn: Bool
    var columns: [ColumnLayout]

    func column(_ name: String) -> ColumnLayout? { columns.first { $0.name == name } }

    /// The SQL for the entity name of a row of this table under `alias`, and arguments.
    func entityExpression(alias: String) -> String? {
        hasEntityColumn ? "\(alias).\"_entity\"" : nil
    }
}

/// A join table of to-many relationships.
struct JoinTableLayout: Sendable, Hashable {
    let name: String
    let sourceRoot: String
    let destinationRoot: String
    let hasSourceOrder: Bool
    let hasDestinationOrder: Bool
}

/// Where the members of a to-many relationship are kept.
enum ToManyStorage: Sendable, Hashable {
    /// In the inverse to-one's foreign-key column of the destination table.
    case foreignKey(table: String, column: String, orderColumn: String?, entityFilter: [String]?)
    /// In a join table: rows whose `ownColumn` is the owner's key.
    case joinTable(table: String, ownColumn: String, otherColumn: String, orderColumn: String?, otherRoot: String)
}

/// How the objects of one entity are read and written. A class: saves and reads pass it around
/// per row, and copying a struct of this size would retain every field.
final class EntityLayout: Sendable {
    let entity: EntityDescription
    let table: TableLayout
    /// For each position of the entity's ``AttributeValues/Layout``, where a row holds the
    /// attribute (nil for a transient one, which no row holds).
    let columnsByPosition: [(type: AttributeType, column: Int32)?]
    /// To-one relationships: foreign-key column position, entity column position, destination.
    let toOnes: [(name: String, destination: String, column: Int32, entityColumn: Int32?)]
    let toMany: [String: ToManyStorage]
    let lazyToMany: Set<String>
    /// The columns written by inserts and updates, in order (after `_pk`, `_entity`, `_version`).
    let writtenColumns: [ColumnLayout]
    /// What each of ``writtenColumns`` holds.
    let writtenValues: [WrittenValue]

    enum WrittenValue: Sendable {
        /// The attribute at this position of the entity's ``AttributeValues/Layout``.
        case attribute(position: Int)
        /// The primary key of a to-one relationship's destination.
        case toOneKey(String)
        /// The entity name of a to-one relationship's destination.
        case toOneEntity(String)
    }
    /// `INSERT` of a row: `_pk`, `_entity` (if any), `_version`, then ``writtenColumns``.
    let insertSQL: String
    private let updateSQLs: [String]
    private let deleteSQLs: [String]

    init(entity: EntityDescription, table: TableLayout, toMany: [String: ToManyStorage], schema: Schema) {
        self.entity = entity
        self.table = table
        self.toMany = toMany
        lazyToMany = Set(entity.relationships.filter(\.isToMany).map(\.name))
        let base: Int32 = table.hasEntityColumn ? 3 : 2
        func position(_ name: String) -> Int32 {
            base + Int32(table.columns.firstIndex { $0.name == name }!)
        }
        let values = entity.attributeLayout
        // Stored attributes with their column positions in ``selectList`` and their positions
        // in the entity's ``AttributeValues/Layout``.
        let attributes = entity.attributes.filter { !$0.isTransient }.map {
            (name: $0.name, type: $0.type, column: position($0.name), position: values.position(of: $0.name)!)
        }
        var byPosition: [(type: AttributeType, column: Int32)?] = Array(repeating: nil, count: values.count)
        for attribute in attributes { byPosition[attribute.position] = (attribute.type, attribute.column) }
        columnsByPosition = byPosition
        toOnes = entity.relationships.filter { !$0.isToMany }.map { relationship in
            let entityColumn = table.column("_\(relationship.name)_entity").map { position($0.name) }
            return (relationship.name, relationship.destination, position(relationship.name), entityColumn)
        }
        var written: [ColumnLayout] = []
        var writes: [WrittenValue] = []
        for attribute in attributes {
            written.append(table.column(attribute.name)!)
            writes.append(.attribute(position: attribute.position))
        }
        for relationship in entity.relationships where !relationship.isToMany {
            written.append(table.column(relationship.name)!)
            writes.append(.toOneKey(relationship.name))
            if let column = table.column("_\(relationship.name)_entity") {
                written.append(column)
                writes.append(.toOneEntity(relationship.name))
            }
        }
        writtenColumns = written
        writtenValues = writes
        var names = ["\"_pk\""]
        if table.hasEntityColumn { names.append("\"_entity\"") }
        names.append("\"_version\"")
        names += written.map { quoted($0.name) }
        insertSQL = "INSERT INTO \(quoted(table.name)) (\(names.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        let assignments = written.map { "\(quoted($0.name)) = ?" } + ["\"_version\" = \"_version\" + 1"]
        let row = "\"_pk\" = ?" + (table.hasEntityColumn ? " AND \"_entity\" = ?" : "")
        let update = "UPDATE \(quoted(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \(row)"
        updateSQLs = [update + " RETURNING \"_version\"", update + " AND \"_version\" = ? RETURNING \"_version\""]
        let delete = "DELETE FROM \(quoted(table.name)) WHERE \(row)"
        deleteSQLs = [delete, delete + " AND \"_version\" = ?"]
    }

    /// `UPDATE` of a row: ``writtenColumns``, then the row (``bindKey(_:to:at:)``), then the
    /// version read when `checkingVersion`; it returns the new version, or no row when the row
    /// is gone or (when checking) changed.
    func updateSQL(checkingVersion: Bool) -> String { updateSQLs[checkingVersion ? 1 : 0] }

    /// `DELETE` of a row: the row (``bindKey(_:to:at:)``), then the version when checking.
    func deleteSQL(checkingVersion: Bool) -> String { deleteSQLs[checkingVersion ? 1 : 0] }

    /// Binds a row's key (and entity name, in a hierarchy) at `index`; returns the next index.
    func bindKey(_ key: Int64, to statement: Statement, at index: Int32 = 1) throws(StrataError) -> Int32 {
        try statement.bind(.integer(key), at: index)
        guard table.hasEntityColumn else { return index + 1 }
        try statement.bind(.text(entity.name), at: index + 1)
        return index + 2
    }

    /// Binds the key at 1 and, in a hierarchy, the entity name at `entityIndex`, as an INSERT
    /// lists them; returns the next index.
    func bindKey(_ key: Int64, to statement: Statement, withEntityAt entityIndex: Int32) throws(StrataError) -> Int32 {
        try statement.bind(.integer(key), at: 1)
        guard table.hasEntityColumn else { return 2 }
        try statement.bind(.text(entity.name), at: entityIndex)
        return entityIndex + 1
    }

    var rootName: String { table.name }
}
