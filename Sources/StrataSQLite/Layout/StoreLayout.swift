internal import Foundation
internal import Strata
internal import StrataSQL

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
///   `"<Entity>.<relationship>"` after the side whose (entity, name) sorts first, with columns
///   `"source"`, `"destination"` and, for ordered sides, `"source_order"`/`"destination_order"`.
///   The dot cannot occur in a model name, so two relationships never share a join table
///   (`A.b_c` and `A_b.c` are `"A.b_c"` and `"A_b.c"`) and no join table is an entity's.
/// - Shadow columns, at the end of the table, make strings, URIs and decimals comparable with
///   SQLite's built-in BINARY collation (see ``ComparisonKey``): `"_<attribute>_nfc"` beside a
///   string or URI attribute holds its NFC form when that differs from the value (else NULL),
///   and `"_<attribute>_key"` beside a decimal holds an order-preserving text key. Every save
///   writes them; they are never attributes. Indexes and uniqueness constraints index
///   `coalesce("_x_nfc", "x")` and `"_x_key"`, so the schema names no collation or function
///   of Strata's, and the `sqlite3` shell can check, vacuum, reindex and edit the file. A row
///   edited by hand should set `"_x_nfc"` to NULL (right for any NFC text) and `"_x_key"` to
///   the key of the new decimal, or keep the old values away from comparisons; `strata check`
///   reports stale ones, and ``SQLiteStore/refreshComparisonKeys()`` rewrites them.
/// - Indexes: `"index.<table>.<column>"` on a column (`_entity`, a foreign key, an indexed
///   attribute, a join table's `destination`), `"named.<Entity>.<index>"` for the model's
///   indexes, `"unique.<Entity>.<property>…"` for uniqueness constraints (properties joined by
///   dots). Their dots and keywords keep them apart from each other and from every table.
/// - `strata_metadata` (key, value) and `strata_keys` (entity, last primary key handed out).
///
/// Every column name starting with `_` is Strata's, so it never clashes with a property
/// (lower-case first). SQLite compares names without case, so a model whose names differ only
/// in case, an entity named like Strata's tables (`Strata_metadata`) or SQLite's (`sqlite_…`),
/// or a hierarchy of more than ``maximumColumns`` columns is reported in ``problems``.
struct StoreLayout: Sendable {
    let schema: Schema
    /// Tables by root entity name.
    let tables: [String: TableLayout]
    /// Every entity this store holds, by name.
    let entities: [String: EntityLayout]
    let joinTables: [JoinTableLayout]
    /// What of the model this layout cannot store; empty when it can store all of it.
    private(set) var problems: [String]

    init(schema: Schema, configurationName: String?) {
        self.schema = schema
        let plan = TablePlan(schema: schema, configurationName: configurationName, confinement: "a SQLite store keeps relationships inside one file")
        let problems = plan.problems
        let stored = plan.stored
        let roots = plan.tables.map(\.root)
        var tables: [String: TableLayout] = [:]
        for table in plan.tables {
            let columns = table.columns.map { column in
                switch column.role {
                case .attribute(let type): ColumnLayout(name: column.name, declaredType: ValueKind.columnType(type), role: .attribute(type))
                case .toOne(let destination): ColumnLayout(name: column.name, declaredType: "INTEGER", role: .toOne(destination))
                case .toOneEntity(let relationship): ColumnLayout(name: column.name, declaredType: "TEXT", role: .toOneEntity(relationship))
                case .order(let relationship): ColumnLayout(name: column.name, declaredType: "INTEGER", role: .order(relationship))
                }
            }
            tables[table.root] = TableLayout(
                name: table.root, entityNames: table.entityNames, hasEntityColumn: table.entityNames.count > 1, columns: columns)
        }
        let joinTables = plan.toMany.joinTables
        let toMany = plan.toMany.storage

        // Shadow columns last, so that a store upgraded in place (ALTER TABLE … ADD COLUMN) has
        // the columns of a new one, in the same order.
        for root in roots {
            guard var table = tables[root] else { continue }
            for column in table.columns {
                guard case .attribute(let type) = column.role else { continue }
                switch type {
                case .string, .uri:
                    table.append(ColumnLayout(name: ComparisonKey.stringColumn(column.name), declaredType: "TEXT", role: .stringKey(column.name)))
                case .decimal:
                    table.append(ColumnLayout(name: ComparisonKey.decimalColumn(column.name), declaredType: "TEXT", role: .decimalKey(column.name)))
                default:
                    break
                }
            }
            tables[root] = table
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
        self.problems += nameProblems()
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
        /// The NFC form of a string or URI attribute, when it differs (``ComparisonKey``).
        case stringKey(String)
        /// The order-preserving key of a decimal attribute (``ComparisonKey``).
        case decimalKey(String)
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
    private(set) var columns: [ColumnLayout]
    /// Positions in ``columns`` by name: a hierarchy may have thousands of columns, and every
    /// entity of it looks up each of its own.
    private var positions: [String: Int]

    init(name: String, entityNames: [String], hasEntityColumn: Bool, columns: [ColumnLayout]) {
        self.name = name
        self.entityNames = entityNames
        self.hasEntityColumn = hasEntityColumn
        self.columns = columns
        positions = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    mutating func append(_ column: ColumnLayout) {
        if positions[column.name] == nil { positions[column.name] = columns.count }
        columns.append(column)
    }

    func column(_ name: String) -> ColumnLayout? { positions[name].map { columns[$0] } }

    /// The position of a column in ``columns``.
    func position(of name: String) -> Int? { positions[name] }

    /// The SQL that compares an attribute's values in Swift's order with the BINARY collation
    /// (its shadow column's expression, see ``ComparisonKey``), or nil when the column itself
    /// does (numbers, dates, UUIDs, binary) or is not an attribute.
    func comparisonKey(_ attribute: String, alias: String?) -> String? {
        guard let column = column(attribute), case .attribute(let type) = column.role else { return nil }
        switch type {
        case .string, .uri: return ComparisonKey.stringExpression(attribute, alias: alias)
        case .decimal: return (alias.map { "\($0)." } ?? "") + quoted(ComparisonKey.decimalColumn(attribute))
        default: return nil
        }
    }

    /// The SQL for the entity name of a row of this table under `alias`, and arguments.
    func entityExpression(alias: String) -> String? {
        hasEntityColumn ? "\(alias).\"_entity\"" : nil
    }
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
    /// The property (attribute or to-one relationship) each of ``writtenColumns`` stores.
    let writtenProperties: [String]

    enum WrittenValue: Sendable {
        /// The attribute at this position of the entity's ``AttributeValues/Layout``.
        case attribute(position: Int)
        /// The primary key of a to-one relationship's destination.
        case toOneKey(String)
        /// The entity name of a to-one relationship's destination.
        case toOneEntity(String)
        /// The `"_x_nfc"` shadow column of the string or URI attribute at this position.
        case stringKey(position: Int)
        /// The `"_x_key"` shadow column of the decimal attribute at this position.
        case decimalKey(position: Int)
    }
    /// `INSERT` of a row: `_pk`, `_entity` (if any), `_version`, ``writtenColumns``, then the
    /// order columns of ``insertedOrders``.
    let insertSQL: String
    /// To-one relationships whose inverse is an ordered to-many kept by their foreign key: an
    /// insert writes the row's position too (`"_<name>_order"`), when the save knows it. `key`
    /// names the relationship as ``SQLiteStore/InsertedOrders`` does: `"<table>.<name>"`.
    let insertedOrders: [(name: String, key: String)]
    /// This entity's ordered to-many relationships kept by the destination's foreign key, with
    /// the `"<table>.<inverse>"` key of the inverse's ``insertedOrders``.
    let orderedForeignKeys: [(name: String, key: String)]
    private let updateSQLs: [String]
    private let deleteSQLs: [String]

    init(entity: EntityDescription, table: TableLayout, toMany: [String: ToManyStorage], schema: Schema) {
        self.entity = entity
        self.table = table
        rootName = table.name
        self.toMany = toMany
        lazyToMany = Set(entity.relationships.filter(\.isToMany).map(\.name))
        let base: Int32 = table.hasEntityColumn ? 3 : 2
        func position(_ name: String) -> Int32 {
            base + Int32(table.position(of: name)!)
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
        var properties: [String] = []
        for attribute in attributes {
            written.append(table.column(attribute.name)!)
            writes.append(.attribute(position: attribute.position))
            properties.append(attribute.name)
        }
        for attribute in attributes {
            if let column = table.column(ComparisonKey.stringColumn(attribute.name)), case .stringKey = column.role {
                written.append(column)
                writes.append(.stringKey(position: attribute.position))
                properties.append(attribute.name)
            } else if let column = table.column(ComparisonKey.decimalColumn(attribute.name)), case .decimalKey = column.role {
                written.append(column)
                writes.append(.decimalKey(position: attribute.position))
                properties.append(attribute.name)
            }
        }
        for relationship in entity.relationships where !relationship.isToMany {
            written.append(table.column(relationship.name)!)
            writes.append(.toOneKey(relationship.name))
            properties.append(relationship.name)
            if let column = table.column("_\(relationship.name)_entity") {
                written.append(column)
                writes.append(.toOneEntity(relationship.name))
                properties.append(relationship.name)
            }
        }
        writtenColumns = written
        writtenValues = writes
        writtenProperties = properties
        var names = ["\"_pk\""]
        if table.hasEntityColumn { names.append("\"_entity\"") }
        names.append("\"_version\"")
        names += written.map { quoted($0.name) }
        var orders: [(name: String, key: String)] = []
        for relationship in entity.relationships where !relationship.isToMany {
            let name = "_\(relationship.name)_order"
            guard let column = table.column(name), column.role == .order(relationship.name) else { continue }
            orders.append((relationship.name, "\(table.name).\(relationship.name)"))
            names.append(quoted(name))
        }
        insertedOrders = orders
        orderedForeignKeys = entity.relationships.compactMap { relationship in
            guard case .foreignKey(let table, let column, _?, _)? = toMany[relationship.name] else { return nil }
            return (relationship.name, "\(table).\(column)")
        }
        insertSQL = "INSERT INTO \(quoted(table.name)) (\(names.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        let update = Self.updateSQL(table, written)
        updateSQLs = [update + " RETURNING \"_version\"", update + " AND \"_version\" = ?"]
        let delete = "DELETE FROM \(quoted(table.name)) WHERE \(Self.rowCondition(table))"
        deleteSQLs = [delete, delete + " AND \"_version\" = ?"]
    }

    /// `UPDATE` of a row: ``writtenColumns``, then the row (``bindKey(_:to:at:)``), then the
    /// version read when `checkingVersion`. Not checking, it returns the new version, or no row
    /// when the row is gone; checking, it changes no row when the row is gone or changed, and
    /// else sets the version to the one read plus 1 (no `RETURNING`: SQLite makes a temporary
    /// table for the returned rows of every run of such a statement, which cost as much as the
    /// update itself).
    func updateSQL(checkingVersion: Bool) -> String { updateSQLs[checkingVersion ? 1 : 0] }

    /// The version-checking `UPDATE` of only the columns of `properties` (attributes and to-one
    /// relationships; others are ignored), as ``updateSQL(checkingVersion:)`` with `true` binds
    /// it, and what each of its columns holds.
    func partialUpdate(_ properties: Set<String>) -> PartialUpdate {
        var columns: [ColumnLayout] = []
        var values: [WrittenValue] = []
        for (index, property) in writtenProperties.enumerated() where properties.contains(property) {
            columns.append(writtenColumns[index])
            values.append(writtenValues[index])
        }
        return PartialUpdate(sql: Self.updateSQL(table, columns) + " AND \"_version\" = ?", values: values)
    }

    /// An `UPDATE` of some of an entity's columns: only the changed properties of a row whose
    /// version is checked.
    struct PartialUpdate {
        let sql: String
        let values: [WrittenValue]
    }

    /// `UPDATE` of `columns` and the version (incremented) of the row with a key.
    private static func updateSQL(_ table: TableLayout, _ columns: [ColumnLayout]) -> String {
        let assignments = columns.map { "\(quoted($0.name)) = ?" } + ["\"_version\" = \"_version\" + 1"]
        return "UPDATE \(quoted(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \(rowCondition(table))"
    }

    /// The condition on a row's key (and entity, in a hierarchy), bound by ``bindKey(_:to:at:)``.
    private static func rowCondition(_ table: TableLayout) -> String {
        "\"_pk\" = ?" + (table.hasEntityColumn ? " AND \"_entity\" = ?" : "")
    }

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

    /// The table's name, kept apart: reading it through ``table`` would copy the table's layout.
    let rootName: String
}

extension StoreLayout: SQLQueryLayout {
    func queryTable(forRoot root: String) -> (any SQLQueryTable)? { tables[root] }

    func toManyStorage(of entity: String, _ relationship: String) -> ToManyStorage? {
        entities[entity]?.toMany[relationship]
    }
}

extension TableLayout: SQLQueryTable {
    func attributeType(_ name: String) -> AttributeType? {
        guard let column = column(name), case .attribute(let type) = column.role else { return nil }
        return type
    }

    /// Every column but the shadow comparison columns, which come last and which reading never
    /// needs (selecting them cost a third more time to fetch every row of a table with three
    /// strings).
    var recordColumns: [String] {
        var names: [String] = []
        for column in columns {
            switch column.role {
            case .stringKey, .decimalKey: continue
            default: names.append(column.name)
            }
        }
        return names
    }
}

extension PredicateCompiler {
    /// A compiler of SQLite's SQL for a store of this layout.
    init(layout: StoreLayout) {
        self.init(layout: layout, dialect: SQLiteDialect())
    }
}
