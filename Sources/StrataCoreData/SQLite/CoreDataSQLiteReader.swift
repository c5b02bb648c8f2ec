internal import Foundation
internal import Strata
internal import StrataSQLite

/// Reads every object of a Core Data SQLite store into records, with the layout the model was
/// matched to (``CoreDataSQLiteLayout``).
///
/// Values: dates are seconds since 2001-01-01 (Core Data's reference date); booleans are
/// integers; decimals are numbers or text; UUIDs are 16-byte blobs; URIs are text; binary and
/// transformable values are blobs (a transformable value is kept as the data its transformer
/// wrote). An attribute that allows external storage starts with a marker byte: 1, the data
/// follows; 2, the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA/` beside the store follows.
///
/// Relationships: a to-one is its foreign key; a to-many whose inverse is to-one is gathered from
/// those keys (in `Z_FOK_` order when ordered, else by key); a many-to-many comes from its join
/// table. A key that names no stored object is refused as a damaged store.
///
/// The keys and entities of every table are read first, so that each foreign key is resolved as
/// its row is read; rows are kept in arrays by position until every relationship is gathered.
struct CoreDataSQLiteReader {
    let layout: CoreDataSQLiteLayout
    let database: Database
    let storeIdentifier: String
    let url: URL

    private var schema: Schema { layout.schema }

    /// A member of a to-many relationship, with what orders it.
    private struct Member {
        var order: Int64
        var key: Int64
        var id: ObjectID
    }

    /// The rows of one root table, in key order: each row's key, entity and record, and the
    /// members of its to-many relationships as they are gathered.
    private struct Rows {
        /// `Z_PK` → position.
        var positions: [Int64: Int] = [:]
        var keys: [Int64] = []
        var entityNames: [String] = []
        var records: [StoreRecord] = []
        var members: [[String: [Member]]] = []
    }

    /// A to-one relationship of one entity, ready to read from a row.
    private struct ToOne {
        var name: String
        var column: Int32
        var orderColumn: Int32?
        var destination: String
        var destinationRoot: Int
        /// The inverse, when it is a to-many gathered from these keys.
        var toManyInverse: String?
    }

    func read() throws(StrataError) -> [String: [ObjectID: StoreRecord]] {
        let roots = Dictionary(layout.tables.enumerated().map { ($1.root, $0) }, uniquingKeysWith: { first, _ in first })
        var rows: [Rows] = []
        for table in layout.tables { rows.append(try readKeys(table)) }
        for (index, table) in layout.tables.enumerated() {
            try readTable(table, index, roots: roots, rows: &rows)
        }
        for join in layout.joinTables {
            try readJoinTable(join, roots: roots, rows: &rows)
        }
        var records: [String: [ObjectID: StoreRecord]] = [:]
        for table in rows {
            var counts: [String: Int] = [:]
            for name in table.entityNames { counts[name, default: 0] += 1 }
            for (name, count) in counts where records[name] == nil { records[name] = Dictionary(minimumCapacity: count) }
            for position in table.records.indices {
                var record = table.records[position]
                for (name, members) in table.members[position] {
                    var seen: Set<Int64> = []
                    let ordered = members.sorted { ($0.order, $0.key) < ($1.order, $1.key) }
                    record.toMany[name] = ordered.compactMap { seen.insert($0.key).inserted ? $0.id : nil }
                }
                records[record.objectID.entityName]![record.objectID] = record
            }
        }
        return records
    }

    // MARK: - Entity tables

    /// Every key of a table with its entity, checked: first, so that foreign keys read with the
    /// rows can be resolved at once.
    private func readKeys(_ table: CoreDataSQLiteLayout.Table) throws(StrataError) -> Rows {
        var rows = Rows()
        try database.each("SELECT Z_PK, Z_ENT FROM \(quoted(table.name)) ORDER BY Z_PK", []) { (row) throws(StrataError) in
            let key = row.int64(0)
            let place = "table \(table.name), the row with Z_PK \(key)"
            guard row.type(0) == 1, row.type(1) == 1 else {
                throw corrupt("\(place): Z_PK and Z_ENT must be integers")
            }
            let number = row.int64(1)
            guard let name = layout.entityNames[number], let entity = schema.entity(named: name), entity.rootName == table.root else {
                throw corrupt("\(place): its Z_ENT \(number) is no entity of the \(table.root) hierarchy")
            }
            guard !entity.isAbstract else {
                throw corrupt("\(place): its entity \(name) is abstract, so no object can be one")
            }
            guard rows.positions.updateValue(rows.keys.count, forKey: key) == nil else {
                throw corrupt("\(place): two rows have this Z_PK")
            }
            rows.keys.append(key)
            rows.entityNames.append(name)
        }
        rows.members = Array(repeating: [:], count: rows.keys.count)
        rows.records.reserveCapacity(rows.keys.count)
        return rows
    }

    private func readTable(_ table: CoreDataSQLiteLayout.Table, _ index: Int, roots: [String: Int], rows: inout [Rows]) throws(StrataError) {
        var columns = ["Z_PK", "Z_OPT"]
        var position: [String: Int32] = [:]
        func add(_ column: String) -> Int32 {
            if let known = position[column] { return known }
            position[column] = Int32(columns.count)
            columns.append(column)
            return Int32(columns.count - 1)
        }
        var attributes: [String: [(position: Int, column: Int32, attribute: AttributeDescription, name: String)]] = [:]
        for (entity, list) in table.attributes {
            attributes[entity] = list.map { ($0.position, add($0.column), $0.attribute, $0.column) }
        }
        var toOnes: [String: [ToOne]] = [:]
        for (entity, list) in table.toOnes {
            toOnes[entity] = list.map { toOne in
                let relationship = toOne.relationship
                let destination = schema.entity(named: relationship.destination)
                let inverse = relationship.inverse.flatMap { destination?.relationship(named: $0) }
                return ToOne(
                    name: relationship.name, column: add(toOne.column), orderColumn: toOne.orderColumn.map(add),
                    destination: relationship.destination, destinationRoot: roots[destination?.rootName ?? ""] ?? 0,
                    toManyInverse: inverse?.isToMany == true ? inverse?.name : nil)
            }
        }
        var layouts: [String: AttributeValues.Layout] = [:]
        for name in Set(rows[index].entityNames) { layouts[name] = schema.entity(named: name)!.attributeLayout }
        let sql = "SELECT \(columns.map(quoted).joined(separator: ", ")) FROM \(quoted(table.name)) ORDER BY Z_PK"
        var next = 0
        try database.each(sql, []) { (row) throws(StrataError) in
            let key = row.int64(0)
            let place = "table \(table.name), the row with Z_PK \(key)"
            guard next < rows[index].keys.count, rows[index].keys[next] == key else {
                throw corrupt("\(place): the table changed while it was read")
            }
            let name = rows[index].entityNames[next]
            let attributeLayout = layouts[name]!
            let id = ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: key)
            var values = [AttributeValue?](repeating: nil, count: attributeLayout.count)
            for attribute in attributes[name] ?? [] {
                do throws(ValueProblem) {
                    values[attribute.position] = try decode(row, attribute.column, attribute.attribute)
                } catch {
                    throw corrupt("\(place), column \(attribute.name) (\(name).\(attribute.attribute.name), \(attribute.attribute.type)): \(error.message)")
                }
            }
            var record = StoreRecord(objectID: id, attributes: AttributeValues(layout: attributeLayout, values: values), version: row.int64(1))
            for toOne in toOnes[name] ?? [] where !row.isNull(toOne.column) {
                guard row.type(toOne.column) == 1 else {
                    throw corrupt("\(place), column \(columns[Int(toOne.column)]) (\(name).\(toOne.name)): a foreign key must be an integer")
                }
                let foreignKey = row.int64(toOne.column)
                let (at, destination) = try locate(
                    foreignKey, of: toOne.destination, in: rows[toOne.destinationRoot],
                    from: "\(place), column \(columns[Int(toOne.column)])")
                record.toOne[toOne.name] = destination
                if let inverse = toOne.toManyInverse {
                    let order = toOne.orderColumn.flatMap { row.isNull($0) ? nil : row.int64($0) } ?? key
                    rows[toOne.destinationRoot].members[at][inverse, default: []].append(Member(order: order, key: key, id: id))
                }
            }
            rows[index].records.append(record)
            next += 1
        }
        guard next == rows[index].keys.count else {
            throw corrupt("table \(table.name) changed while it was read")
        }
    }

    // MARK: - Join tables

    private func readJoinTable(_ join: CoreDataSQLiteLayout.JoinTable, roots: [String: Int], rows: inout [Rows]) throws(StrataError) {
        var columns = [join.ownerColumn, join.memberColumn]
        if let order = join.orderColumn { columns.append(order) }
        if let order = join.inverseOrderColumn { columns.append(order) }
        let ownerRoot = roots[schema.entity(named: join.owner)?.rootName ?? ""] ?? 0
        let memberRoot = roots[schema.entity(named: join.relationship.destination)?.rootName ?? ""] ?? 0
        let sql = "SELECT \(columns.map(quoted).joined(separator: ", ")) FROM \(quoted(join.name))"
        try database.each(sql, []) { (row) throws(StrataError) in
            guard row.type(0) == 1, row.type(1) == 1 else {
                throw corrupt("join table \(join.name): \(join.ownerColumn) and \(join.memberColumn) must be integers")
            }
            let ownerKey = row.int64(0), memberKey = row.int64(1)
            let place = "join table \(join.name), the row (\(ownerKey), \(memberKey))"
            let (ownerAt, owner) = try locate(ownerKey, of: join.owner, in: rows[ownerRoot], from: "\(place), column \(join.ownerColumn)")
            let (memberAt, member) = try locate(memberKey, of: join.relationship.destination, in: rows[memberRoot], from: "\(place), column \(join.memberColumn)")
            let order = join.orderColumn == nil || row.isNull(2) ? memberKey : row.int64(2)
            let inverseColumn: Int32 = join.orderColumn == nil ? 2 : 3
            let inverseOrder = join.inverseOrderColumn == nil || row.isNull(inverseColumn) ? ownerKey : row.int64(inverseColumn)
            rows[ownerRoot].members[ownerAt][join.relationship.name, default: []].append(Member(order: order, key: memberKey, id: member))
            rows[memberRoot].members[memberAt][join.inverse.name, default: []].append(Member(order: inverseOrder, key: ownerKey, id: owner))
        }
    }

    /// The position and ID of the object a key of `entityName`'s hierarchy names; refused when
    /// no stored object of that entity (or a subentity) has it.
    private func locate(_ key: Int64, of entityName: String, in rows: Rows, from place: String) throws(StrataError) -> (Int, ObjectID) {
        guard let position = rows.positions[key],
              case let name = rows.entityNames[position],
              name == entityName || schema.entity(named: name)?.ancestorNames.contains(entityName) == true else {
            throw corrupt("\(place) refers to the \(entityName) with Z_PK \(key), which the store does not hold")
        }
        return (position, ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: key))
    }

    private func corrupt(_ message: String) -> StrataError {
        StrataError(.corruptStore, "the Core Data store holds a value the model cannot take: \(message)", file: url.path)
    }

    // MARK: - Values

    /// Why a stored value cannot be read as its attribute's type.
    struct ValueProblem: Error {
        var message: String
    }

    private func decode(_ row: Statement, _ index: Int32, _ attribute: AttributeDescription) throws(ValueProblem) -> AttributeValue? {
        let value = row.value(at: index)
        switch (attribute.type, value) {
        case (_, .null):
            return nil
        case (.string, .text(let text)):
            return .string(text)
        case (.int16, .integer(let number)), (.int32, .integer(let number)), (.int64, .integer(let number)):
            return .integer(number)
        case (.int16, .real(let number)), (.int32, .real(let number)), (.int64, .real(let number)):
            guard number.rounded() == number, let whole = Int64(exactly: number) else { break }
            return .integer(whole)
        case (.bool, .integer(let number)):
            return .bool(number != 0)
        case (.double, .integer(let number)):
            return .double(Double(number))
        case (.double, .real(let number)):
            return .double(number)
        case (.float, .integer(let number)):
            return .float(Float(number))
        case (.float, .real(let number)):
            return .float(Float(number))
        case (.decimal, .integer(let number)):
            return .decimal(Decimal(number))
        case (.decimal, .real(let number)):
            guard number.isFinite, let decimal = AttributeValue.parseDecimal("\(number)") else { break }
            return .decimal(decimal)
        case (.decimal, .text(let text)):
            guard let decimal = AttributeValue.parseDecimal(text) else { break }
            return .decimal(decimal)
        case (.date, .integer(let seconds)):
            return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.date, .real(let seconds)):
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.binary, .blob(let data)), (.transformable, .blob(let data)):
            return .binary(attribute.allowsExternalStorage ? try externalData(data) : data)
        case (.uuid, .blob(let data)):
            guard data.count == 16 else { break }
            let bytes = [UInt8](data)
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case (.uuid, .text(let text)):
            guard let uuid = Array(text.utf8).withUnsafeBytes({ UUIDText.uuid(ascii: $0) }) else { break }
            return .uuid(uuid)
        case (.uri, .text(let text)):
            guard let url = URL(string: text) else { break }
            return .uri(url)
        default:
            break
        }
        throw ValueProblem(message: "\(Self.describe(value)) cannot be read as a \(attribute.type) value")
    }

    /// The data of an attribute that allows external storage: its marker byte dropped, or the
    /// file it names read.
    private func externalData(_ stored: Data) throws(ValueProblem) -> Data {
        guard let marker = stored.first else { return stored }
        let rest = stored.dropFirst()
        switch marker {
        case 1:
            return Data(rest)
        case 2:
            let name = String(decoding: rest.prefix { $0 != 0 }, as: UTF8.self)
            let support = url.deletingLastPathComponent()
                .appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA/\(name)")
            guard !name.contains("/"), let data = FileManager.default.contents(atPath: support.path) else {
                throw ValueProblem(message: "the value is kept in the external file '\(support.path)', which cannot be read (copy the store with its .<name>_SUPPORT directory)")
            }
            return data
        default:
            throw ValueProblem(message: "a value stored for external storage starts with the byte \(marker), neither 1 (data follows) nor 2 (an external file's name follows)")
        }
    }

    private static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): "the integer \(number)"
        case .real(let number): "the real \(number)"
        case .text(let text): "the text \"\(text.count > 40 ? text.prefix(40) + "…" : Substring(text))\""
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }
}
