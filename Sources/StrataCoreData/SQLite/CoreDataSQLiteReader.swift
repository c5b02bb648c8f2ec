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
struct CoreDataSQLiteReader {
    let layout: CoreDataSQLiteLayout
    let database: Database
    let storeIdentifier: String
    let url: URL

    private var schema: Schema { layout.schema }

    /// A to-one key read from a row, resolved once every table is read.
    private struct PendingToOne {
        var source: ObjectID
        var table: String
        var relationship: RelationshipDescription
        var column: String
        var key: Int64
        var order: Int64?
    }

    /// A member of a to-many relationship, with what orders it.
    private struct Member {
        var order: Int64
        var id: ObjectID
    }

    func read() throws(StrataError) -> [String: [ObjectID: StoreRecord]] {
        var records: [String: [ObjectID: StoreRecord]] = [:]
        var entityOfKey: [String: [Int64: String]] = [:]
        var pending: [PendingToOne] = []
        for table in layout.tables {
            try readTable(table, into: &records, entities: &entityOfKey[table.root, default: [:]], pending: &pending)
        }
        var members: [ObjectID: [String: [Member]]] = [:]
        for link in pending {
            let destination = try resolve(
                link.key, of: link.relationship.destination, entities: entityOfKey,
                from: "\(link.table).\(link.column) of the row with Z_PK \(link.source.primaryKey ?? 0)")
            records[link.source.entityName]![link.source]!.toOne[link.relationship.name] = destination
            if let inverse = link.relationship.inverse, schema.entity(named: destination.entityName)?.relationship(named: inverse)?.isToMany == true {
                members[destination, default: [:]][inverse, default: []].append(Member(order: link.order ?? link.key, id: link.source))
            }
        }
        for join in layout.joinTables {
            try readJoinTable(join, entities: entityOfKey, members: &members)
        }
        for (id, relationships) in members {
            for (name, list) in relationships {
                var seen: Set<ObjectID> = []
                let ordered = list.sorted { ($0.order, $0.id.primaryKey ?? 0) < ($1.order, $1.id.primaryKey ?? 0) }
                records[id.entityName]![id]!.toMany[name] = ordered.compactMap { seen.insert($0.id).inserted ? $0.id : nil }
            }
        }
        return records
    }

    // MARK: - Entity tables

    private func readTable(
        _ table: CoreDataSQLiteLayout.Table, into records: inout [String: [ObjectID: StoreRecord]],
        entities: inout [Int64: String], pending: inout [PendingToOne]
    ) throws(StrataError) {
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var position: [String: Int32] = [:]
        func add(_ column: String) {
            guard position[column] == nil else { return }
            position[column] = Int32(columns.count)
            columns.append(column)
        }
        for attributes in table.attributes.values { for attribute in attributes { add(attribute.column) } }
        for toOnes in table.toOnes.values {
            for toOne in toOnes {
                add(toOne.column)
                if let order = toOne.orderColumn { add(order) }
            }
        }
        let sql = "SELECT \(columns.map(quoted).joined(separator: ", ")) FROM \(quoted(table.name)) ORDER BY Z_PK"
        try database.each(sql, []) { (row) throws(StrataError) in
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
            guard entities.updateValue(name, forKey: key) == nil else {
                throw corrupt("\(place): two rows have this Z_PK")
            }
            let id = ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: key)
            var values = [AttributeValue?](repeating: nil, count: entity.attributeLayout.count)
            for attribute in table.attributes[name] ?? [] {
                do throws(ValueProblem) {
                    values[attribute.position] = try decode(row, position[attribute.column]!, attribute.attribute)
                } catch {
                    throw corrupt("\(place), column \(attribute.column) (\(name).\(attribute.attribute.name), \(attribute.attribute.type)): \(error.message)")
                }
            }
            var record = StoreRecord(objectID: id, attributes: AttributeValues(layout: entity.attributeLayout, values: values), version: row.int64(2))
            record.lazyToMany = []
            for toOne in table.toOnes[name] ?? [] {
                let index = position[toOne.column]!
                guard !row.isNull(index) else { continue }
                guard row.type(index) == 1 else {
                    throw corrupt("\(place), column \(toOne.column) (\(name).\(toOne.relationship.name)): a foreign key must be an integer")
                }
                let order = toOne.orderColumn.flatMap { row.isNull(position[$0]!) ? nil : row.int64(position[$0]!) }
                pending.append(PendingToOne(source: id, table: table.name, relationship: toOne.relationship, column: toOne.column, key: row.int64(index), order: order))
            }
            records[name, default: [:]][id] = record
        }
    }

    // MARK: - Join tables

    private func readJoinTable(
        _ join: CoreDataSQLiteLayout.JoinTable, entities: [String: [Int64: String]], members: inout [ObjectID: [String: [Member]]]
    ) throws(StrataError) {
        var columns = [join.ownerColumn, join.memberColumn]
        if let order = join.orderColumn { columns.append(order) }
        if let order = join.inverseOrderColumn { columns.append(order) }
        let sql = "SELECT \(columns.map(quoted).joined(separator: ", ")) FROM \(quoted(join.name))"
        try database.each(sql, []) { (row) throws(StrataError) in
            guard row.type(0) == 1, row.type(1) == 1 else {
                throw corrupt("join table \(join.name): \(join.ownerColumn) and \(join.memberColumn) must be integers")
            }
            let ownerKey = row.int64(0), memberKey = row.int64(1)
            let place = "join table \(join.name), the row (\(ownerKey), \(memberKey))"
            let owner = try resolve(ownerKey, of: join.owner, entities: entities, from: "\(place), column \(join.ownerColumn)")
            let member = try resolve(memberKey, of: join.relationship.destination, entities: entities, from: "\(place), column \(join.memberColumn)")
            let order = join.orderColumn == nil || row.isNull(2) ? memberKey : row.int64(2)
            let inverseColumn: Int32 = join.orderColumn == nil ? 2 : 3
            let inverseOrder = join.inverseOrderColumn == nil || row.isNull(inverseColumn) ? ownerKey : row.int64(inverseColumn)
            members[owner, default: [:]][join.relationship.name, default: []].append(Member(order: order, id: member))
            members[member, default: [:]][join.inverse.name, default: []].append(Member(order: inverseOrder, id: owner))
        }
    }

    /// The object a key of `entityName`'s hierarchy names; refused when no stored object of that
    /// entity (or a subentity) has it.
    private func resolve(_ key: Int64, of entityName: String, entities: [String: [Int64: String]], from place: String) throws(StrataError) -> ObjectID {
        guard let destination = schema.entity(named: entityName),
              let name = entities[destination.rootName]?[key],
              name == entityName || schema.entity(named: name)?.ancestorNames.contains(entityName) == true else {
            throw corrupt("\(place) refers to the \(entityName) with Z_PK \(key), which the store does not hold")
        }
        return ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: key)
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
