internal import Foundation
internal import Strata
internal import StrataSQLite

/// Where a model's entities, attributes and relationships live in a Core Data SQLite store, found
/// by matching the model against the store's tables, columns and `Z_PRIMARYKEY`.
///
/// Core Data's layout:
/// - `Z_PRIMARYKEY` numbers every entity (`Z_ENT`, with its parent's number `Z_SUPER`). An entity
///   is matched by name, or by its renaming identifier (Core Data keeps an entity's old name there
///   after a migration renamed it).
/// - one table per root entity, `Z<ROOT>` (upper case), holding the rows of the whole hierarchy:
///   `Z_PK` (the primary key), `Z_ENT` (the row's entity), `Z_OPT` (a version counter), and a
///   column `Z<NAME>` per stored attribute and per to-one relationship (the destination's `Z_PK`),
///   plus `Z<n>_<NAME>` (the destination's `Z_ENT`) when the destination has subentities. Two
///   properties of one hierarchy with the same upper-case name get `Z<NAME>`, `Z<NAME>1`, … (in
///   the order of their entities' numbers — a guess, refused when the columns do not fit).
/// - an ordered to-many relationship whose inverse is to-one keeps each member's position in
///   `Z_FOK_<INVERSE>` beside the member's foreign key.
/// - a many-to-many relationship `r` of entity A (number a) with inverse `s` of entity B (number b)
///   is a join table `Z_<a><R>` (or `Z_<b><S>`) with the columns `Z_<b><R>` (B's keys) and
///   `Z_<a><S>` (A's keys), and `Z_FOK_<b><R>` / `Z_FOK_<a><S>` for the order of an ordered side.
///
/// A model that does not fit the store is refused (`incompatibleModel`) naming the entity and the
/// table or column that differs; so is a store with an entity, column or join table the model
/// has no place for (its data would be dropped silently).
struct CoreDataSQLiteLayout {
    /// A stored attribute of an entity and the column it is read from.
    struct AttributeColumn {
        /// The attribute's position in the entity's ``EntityDescription/attributeLayout``.
        var position: Int
        var attribute: AttributeDescription
        var column: String
    }

    /// A to-one relationship and its foreign-key column.
    struct ToOneColumn {
        var relationship: RelationshipDescription
        var column: String
        /// `Z_FOK_<NAME>`: the position among the members of the inverse, when that is an
        /// ordered to-many relationship.
        var orderColumn: String?
    }

    /// One root entity's table.
    struct Table {
        var name: String
        var root: String
        /// Per entity of the hierarchy (abstract ones included): its stored attributes.
        var attributes: [String: [AttributeColumn]] = [:]
        /// Per entity of the hierarchy: its to-one relationships.
        var toOnes: [String: [ToOneColumn]] = [:]
    }

    /// A many-to-many relationship and its join table.
    struct JoinTable {
        var name: String
        /// The relationship read from `ownerColumn` to `memberColumn`, and the entity declaring it.
        var relationship: RelationshipDescription
        var owner: String
        /// The inverse, declared by the relationship's destination.
        var inverse: RelationshipDescription
        var ownerColumn: String
        var memberColumn: String
        var orderColumn: String?
        var inverseOrderColumn: String?
    }

    let schema: Schema
    /// Model entity name → `Z_ENT`.
    var numbers: [String: Int64] = [:]
    /// `Z_ENT` → model entity name.
    var entityNames: [Int64: String] = [:]
    var tables: [Table] = []
    var joinTables: [JoinTable] = []
    let file: String

    init(schema: Schema, summary: CoreDataStoreSummary, database: Database) throws(StrataError) {
        self.schema = schema
        file = database.path
        try matchEntities(summary)
        let storeTables = try database.tableNames()
        for root in schema.entities where root.parentName == nil {
            tables.append(try table(for: root, summary: summary, storeTables: storeTables, database: database))
        }
        try matchJoinTables(storeTables: storeTables, database: database)
    }

    func mismatch(_ message: String) -> StrataError {
        StrataError(.incompatibleModel, "the Core Data store does not match model '\(schema.name)': \(message). Open the store with the model version it was written with", file: file)
    }

    // MARK: - Entities

    /// Pairs every model entity with a row of `Z_PRIMARYKEY` and checks their parents agree.
    private mutating func matchEntities(_ summary: CoreDataStoreSummary) throws(StrataError) {
        let stored = summary.entities
        for entity in schema.entities {
            guard let row = stored.first(where: { $0.name == entity.name })
                ?? stored.first(where: { entity.renamingIdentifier != nil && $0.name == entity.renamingIdentifier }) else {
                throw mismatch("entity \(entity.name) is not in the store (Z_PRIMARYKEY lists \(stored.map(\.name).joined(separator: ", ")))")
            }
            if let other = entityNames[row.number] {
                throw mismatch("entities \(other) and \(entity.name) both match the store's entity \(row.name) (Z_ENT \(row.number))")
            }
            numbers[entity.name] = row.number
            entityNames[row.number] = entity.name
        }
        for row in stored where entityNames[row.number] == nil {
            throw mismatch("the store has entity \(row.name) (Z_ENT \(row.number)), which the model lacks")
        }
        for entity in schema.entities {
            let row = stored.first { $0.number == numbers[entity.name] }!
            let expected = entity.parentName.flatMap { numbers[$0] } ?? 0
            guard row.superNumber == expected else {
                let storedParent = row.superNumber == 0 ? "no parent" : "parent \(entityNames[row.superNumber] ?? "Z_ENT \(row.superNumber)")"
                throw mismatch("entity \(entity.name) has \(entity.parentName.map { "parent \($0)" } ?? "no parent") in the model but \(storedParent) in the store")
            }
        }
    }

    // MARK: - Tables and columns

    /// The column names and declared types of a table.
    private static func columns(of table: String, _ database: Database) throws(StrataError) -> [(name: String, type: String)] {
        try database.rows("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid", [.text(table)]) { row in
            (row.text(0), row.text(1).uppercased())
        }
    }

    /// Matches a root entity's hierarchy with its table's columns.
    private func table(for root: EntityDescription, summary: CoreDataStoreSummary, storeTables: Set<String>, database: Database) throws(StrataError) -> Table {
        let storedName = summary.entities.first { $0.number == numbers[root.name] }?.name ?? root.name
        let candidates = ["Z" + root.name.uppercased(), "Z" + storedName.uppercased()]
        guard let name = candidates.first(where: storeTables.contains) else {
            throw mismatch("entity \(root.name) has no table \(candidates[0]) in the store")
        }
        let columns = try Self.columns(of: name, database)
        let types = Dictionary(columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        for required in ["Z_PK", "Z_ENT", "Z_OPT"] where types[required] == nil {
            throw StrataError(.corruptStore, "the Core Data table \(name) has no \(required) column", file: file)
        }
        var table = Table(name: name, root: root.name)
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        // Each declared property gets its column, in the order of the entities' numbers.
        var columnOf: [String: [String: String]] = [:]
        let hierarchy = schema.entityAndDescendants(of: root.name).sorted { numbers[$0.name]! < numbers[$1.name]! }
        for entity in hierarchy {
            let declared = entity.declaredAttributes.filter { !$0.isTransient }.map(\.name)
                + entity.declaredRelationships.filter { !$0.isToMany }.map(\.name)
            for property in declared {
                let base = "Z" + property.uppercased()
                var column = base
                var suffix = 1
                while used.contains(column) {
                    column = base + String(suffix)
                    suffix += 1
                }
                guard types[column] != nil else {
                    throw mismatch("entity \(entity.name): \(property) has no column \(column) in table \(name)")
                }
                used.insert(column)
                columnOf[entity.name, default: [:]][property] = column
            }
        }
        func column(of property: String, in entity: EntityDescription) -> String {
            for owner in [entity.name] + entity.ancestorNames {
                if let column = columnOf[owner]?[property] { return column }
            }
            preconditionFailure("every stored property of \(entity.name) was given a column above")
        }
        for entity in hierarchy {
            var attributes: [AttributeColumn] = []
            for (position, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
                let name = column(of: attribute.name, in: entity)
                if let problem = Self.typeProblem(attribute.type, declared: types[name]!) {
                    throw mismatch("entity \(entity.name): attribute \(attribute.name) is \(attribute.type) in the model, but its column \(table.name).\(name) is \(problem)")
                }
                attributes.append(AttributeColumn(position: position, attribute: attribute, column: name))
            }
            var toOnes: [ToOneColumn] = []
            for relationship in entity.relationships where !relationship.isToMany {
                let name = column(of: relationship.name, in: entity)
                var orderColumn: String?
                if let inverse = relationship.inverse.flatMap({ schema.entity(named: relationship.destination)?.relationship(named: $0) }),
                   inverse.isToMany, inverse.isOrdered {
                    let order = "Z_FOK_" + name.dropFirst()
                    guard types[order] != nil else {
                        throw mismatch("\(relationship.destination).\(inverse.name) is ordered in the model, but table \(table.name) has no column \(order) for its order")
                    }
                    orderColumn = order
                    used.insert(order)
                }
                toOnes.append(ToOneColumn(relationship: relationship, column: name, orderColumn: orderColumn))
            }
            table.attributes[entity.name] = attributes
            table.toOnes[entity.name] = toOnes
        }
        // Destination entity columns (`Z<n>_<NAME>` beside `Z<NAME>`) need no reading: a key
        // finds its row, and the row its entity.
        for (column, _) in columns where !used.contains(column) {
            if let underscore = column.firstIndex(of: "_"), column.first == "Z",
               column[column.index(after: column.startIndex)..<underscore].allSatisfy(\.isNumber),
               underscore > column.index(after: column.startIndex),
               used.contains("Z" + column[column.index(after: underscore)...]) {
                continue
            }
            if column.hasPrefix("Z_FOK_") {
                throw mismatch("table \(table.name) keeps the order of a relationship in column \(column), but no ordered relationship of the model uses it")
            }
            throw mismatch("table \(table.name) has column \(column), which no stored attribute or to-one relationship of \(root.name) or its subentities maps to")
        }
        return table
    }

    /// Why a column's declared SQL type cannot hold values of an attribute type; nil when it can.
    static func typeProblem(_ type: AttributeType, declared: String) -> String? {
        guard !declared.isEmpty else { return nil }
        let accepted: [String]
        switch type {
        case .string: accepted = ["VARCHAR", "TEXT", "CHAR"]
        case .int16, .int32, .int64, .bool: accepted = ["INTEGER", "INT"]
        case .double, .float: accepted = ["FLOAT", "REAL", "DOUBLE"]
        case .decimal: accepted = ["DECIMAL", "NUMERIC", "FLOAT", "REAL"]
        case .date: accepted = ["TIMESTAMP", "REAL", "FLOAT", "DATE"]
        case .binary, .transformable: accepted = ["BLOB"]
        case .uuid: accepted = ["BLOB", "VARCHAR", "TEXT"]
        case .uri: accepted = ["VARCHAR", "TEXT", "BLOB"]
        }
        return accepted.contains(where: { declared.hasPrefix($0) }) ? nil : declared
    }

    // MARK: - Join tables

    /// The number of the entity that declares `relationship` (itself or an ancestor of `entity`).
    private func declaringEntity(of relationship: String, in entity: EntityDescription) -> EntityDescription {
        for name in [entity.name] + entity.ancestorNames {
            if let owner = schema.entity(named: name), owner.declaredRelationships.contains(where: { $0.name == relationship }) {
                return owner
            }
        }
        return entity
    }

    /// Finds the join table of every many-to-many relationship, and refuses tables that look
    /// like join tables (`Z_<n>…`) but belong to no relationship of the model.
    private mutating func matchJoinTables(storeTables: Set<String>, database: Database) throws(StrataError) {
        var claimed: Set<String> = []
        var done: Set<String> = []
        for entity in schema.entities {
            for relationship in entity.declaredRelationships where relationship.isToMany {
                guard let inverseName = relationship.inverse,
                      let destination = schema.entity(named: relationship.destination),
                      let inverse = destination.relationship(named: inverseName) else {
                    throw mismatch("\(entity.name).\(relationship.name) is a to-many relationship without an inverse, which Strata cannot read from a Core Data store; give it an inverse in the model")
                }
                guard inverse.isToMany else { continue }
                let owner = entity
                let member = declaringEntity(of: inverseName, in: destination)
                let key = "\(owner.name).\(relationship.name)", inverseKey = "\(member.name).\(inverseName)"
                guard !done.contains(key) else { continue }
                done.insert(key)
                done.insert(inverseKey)
                let a = numbers[owner.name]!, b = numbers[member.name]!
                let names = ["Z_\(a)\(relationship.name.uppercased())", "Z_\(b)\(inverseName.uppercased())"]
                guard let name = storeTables.first(where: { table in names.contains { Self.matches(table, base: $0) } }) else {
                    throw mismatch("the many-to-many relationship \(key) has no join table \(names[0]) (or \(names[1])) in the store")
                }
                claimed.insert(name)
                let columns = try Self.columns(of: name, database).map(\.name)
                let keys = columns.filter { !$0.hasPrefix("Z_FOK_") }
                let memberBase = "Z_\(b)\(relationship.name.uppercased())", ownerBase = "Z_\(a)\(inverseName.uppercased())"
                let memberColumn = keys.first { Self.matches($0, base: memberBase) }
                let ownerColumn = keys.first { Self.matches($0, base: ownerBase) && $0 != memberColumn }
                guard keys.count == 2, let memberColumn, let ownerColumn else {
                    throw mismatch("the join table \(name) of \(key) has columns \(columns.joined(separator: ", ")); expected \(ownerBase) and \(memberBase)")
                }
                var join = JoinTable(
                    name: name, relationship: relationship, owner: owner.name, inverse: inverse,
                    ownerColumn: ownerColumn, memberColumn: memberColumn)
                var orderColumns = Set(columns.filter { $0.hasPrefix("Z_FOK_") })
                if relationship.isOrdered {
                    join.orderColumn = "Z_FOK_" + memberColumn.dropFirst(2)
                }
                if inverse.isOrdered && !(owner.name == member.name && inverseName == relationship.name) {
                    join.inverseOrderColumn = "Z_FOK_" + ownerColumn.dropFirst(2)
                }
                for order in [join.orderColumn, join.inverseOrderColumn].compactMap({ $0 }) {
                    guard orderColumns.remove(order) != nil else {
                        throw mismatch("\(key) is ordered in the model, but its join table \(name) has no column \(order)")
                    }
                }
                if let extra = orderColumns.first {
                    throw mismatch("the join table \(name) keeps an order in column \(extra), but \(key) is not ordered in the model")
                }
                joinTables.append(join)
            }
        }
        for table in storeTables.sorted() where !claimed.contains(table) && Self.looksLikeJoinTable(table) {
            throw mismatch("the store has the join table \(table), which no many-to-many relationship of the model maps to")
        }
    }

    /// True for `base` and for `base` followed by digits (Core Data's suffix for names that
    /// would collide).
    static func matches(_ name: String, base: String) -> Bool {
        name.hasPrefix(base) && name.dropFirst(base.count).allSatisfy(\.isNumber)
    }

    /// `Z_<digits><NAME>`: the name Core Data gives join tables.
    static func looksLikeJoinTable(_ name: String) -> Bool {
        guard name.hasPrefix("Z_") else { return false }
        let rest = name.dropFirst(2)
        let digits = rest.prefix(while: \.isNumber)
        return !digits.isEmpty && digits.count < rest.count
    }
}
