internal import Strata
internal import StrataSQL

extension SQLiteStore {
    /// How a save writes one to-many relationship of an entity: the relationship, its inverse,
    /// and the statements of its storage, prepared once per save and entity (not built per
    /// row: a library of 48,000 objects spent more time making and hashing this SQL than
    /// running it).
    struct ToManyWrite {
        let relationship: String
        let inverse: String?
        /// The table of the members.
        let destinationRoot: String
        let storage: Storage

        enum Storage {
            /// Members keep the owner's key in `column` (with its entity name beside it when
            /// `hasEntityColumn`, their position when `isOrdered`). `previous` selects the
            /// members' keys (`?1` the owner); `clear` (`?1` the member, `?2` the owner) and
            /// `set` (`?1` the member, `?2` the owner, `?3` its entity, `?4` the position).
            case foreignKey(column: String, hasEntityColumn: Bool, isOrdered: Bool, previous: Statement, clear: Statement, set: Statement)
            /// Rows of a join table; `owning` when this side's column is `source`. `previous`
            /// selects the other keys (`?1` the owner); `delete` and `insert` take `?1` the
            /// owner, `?2` the member (and `?3` the position when `isOrdered`).
            case joinTable(owning: Bool, isOrdered: Bool, previous: Statement, delete: Statement, insert: Statement)
        }
    }

    /// The to-many writes of each entity a save meets, made on first use.
    struct ToManyWriters {
        private var writes: [ObjectIdentifier: [ToManyWrite]] = [:]

        mutating func writes(of entity: EntityLayout, _ store: SQLiteStore, _ statement: (String) throws(StrataError) -> Statement) throws(StrataError) -> [ToManyWrite] {
            if let known = writes[ObjectIdentifier(entity)] { return known }
            var made: [ToManyWrite] = []
            for relationship in entity.entity.relationships where relationship.isToMany {
                guard let storage = entity.toMany[relationship.name] else { continue }
                let root: String
                switch storage {
                case .foreignKey(let table, _, _, _): root = table
                case .joinTable(_, _, _, _, let otherRoot): root = otherRoot
                }
                made.append(ToManyWrite(
                    relationship: relationship.name, inverse: relationship.inverse, destinationRoot: root,
                    storage: try store.writeStorage(storage, statement)))
            }
            writes[ObjectIdentifier(entity)] = made
            return made
        }
    }

    private func writeStorage(_ storage: ToManyStorage, _ statement: (String) throws(StrataError) -> Statement) throws(StrataError) -> ToManyWrite.Storage {
        switch storage {
        case .foreignKey(let tableName, let column, let orderColumn, let filter):
            let entityColumn = layout.tables[tableName]?.column("_\(column)_entity")?.name
            var previous = "SELECT \"_pk\" FROM \(quoted(tableName)) WHERE \(quoted(column)) = ?1"
            if let filter { previous += " AND \"_entity\" IN (\(filter.map(literal).joined(separator: ", ")))" }
            let cleared = [column] + (entityColumn.map { [$0] } ?? []) + (orderColumn.map { [$0] } ?? [])
            let clear = "UPDATE \(quoted(tableName)) SET \(cleared.map { "\(quoted($0)) = NULL" }.joined(separator: ", ")) WHERE \"_pk\" = ?1 AND \(quoted(column)) = ?2"
            var assignments = ["\(quoted(column)) = ?2"]
            if let entityColumn { assignments.append("\(quoted(entityColumn)) = ?3") }
            if let orderColumn { assignments.append("\(quoted(orderColumn)) = ?4") }
            let set = "UPDATE \(quoted(tableName)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = ?1"
            return .foreignKey(
                column: column, hasEntityColumn: entityColumn != nil, isOrdered: orderColumn != nil,
                previous: try statement(previous), clear: try statement(clear), set: try statement(set))
        case .joinTable(let tableName, let own, let other, let orderColumn, _):
            let previous = "SELECT \(quoted(other)) FROM \(quoted(tableName)) WHERE \(quoted(own)) = ?1"
            let delete = "DELETE FROM \(quoted(tableName)) WHERE \(quoted(own)) = ?1 AND \(quoted(other)) = ?2"
            let insert = if let orderColumn {
                "INSERT INTO \(quoted(tableName)) (\(quoted(own)), \(quoted(other)), \(quoted(orderColumn))) VALUES (?1, ?2, ?3) ON CONFLICT (\"source\", \"destination\") DO UPDATE SET \(quoted(orderColumn)) = excluded.\(quoted(orderColumn))"
            } else {
                "INSERT INTO \(quoted(tableName)) (\(quoted(own)), \(quoted(other))) VALUES (?1, ?2) ON CONFLICT (\"source\", \"destination\") DO NOTHING"
            }
            return .joinTable(
                owning: own == "source", isOrdered: orderColumn != nil,
                previous: try statement(previous), delete: try statement(delete), insert: try statement(insert))
        }
    }

    /// A record a save inserted or updated, kept to write its to-many relationships once
    /// every row exists; `changed`, the properties an update changed (nil: any).
    struct SavedRecord {
        let record: StoreRecord
        let target: Target
        let changed: Set<String>?
        let inserted: Bool
    }

    /// What the records a save inserts and updates hold, gathered once per table and
    /// relationship in one pass over them, so that checking a member costs one lookup of its
    /// primary key (an `ObjectID` hashes alike across entities and compares entity names, and
    /// a record's relationships are found by name).
    final class SavedRecords {
        private let records: [SavedRecord]
        /// ``InsertedOrders/written``: members whose position their insert wrote.
        let ordersWritten: [String: Set<Int64>]
        private var toOnes: [String: [Int64: ObjectID]] = [:]
        private var memberships: [String: Set<Membership>] = [:]

        /// A member (by key) of a to-many relationship of a record (by key).
        struct Membership: Hashable {
            let owner: Int64
            let member: Int64
        }

        init(_ records: [SavedRecord], ordersWritten: [String: Set<Int64>]) {
            self.records = records
            self.ordersWritten = ordersWritten
        }

        /// Positions in `records` of the records of a table, in the order a save writes them:
        /// inserted ones, then updated ones (which win).
        private func positions(in root: String) -> [Int] {
            var positions: [Int] = []
            for inserted in [true, false] {
                positions += records.indices.filter { records[$0].inserted == inserted && records[$0].target.entity.rootName == root }
            }
            return positions
        }

        /// For each record of table `root` this save writes, by key, the destination of its
        /// to-one `relationship` (none for records without one).
        func toOnes(in root: String, _ relationship: String) -> [Int64: ObjectID] {
            let name = root + "." + relationship
            if let known = toOnes[name] { return known }
            var found: [Int64: ObjectID] = [:]
            for position in positions(in: root) { found[records[position].target.key] = records[position].record.toOne[relationship] }
            toOnes[name] = found
            return found
        }

        /// The members this save writes of the to-many `relationship` of the records of table
        /// `root`: every member of an inserted record's, and of an updated one's that is
        /// loaded and changed (or not known unchanged).
        func memberships(in root: String, _ relationship: String) -> Set<Membership> {
            let name = root + "." + relationship
            if let known = memberships[name] { return known }
            var found: Set<Membership> = []
            for position in positions(in: root) {
                if let changed = records[position].changed, !changed.contains(relationship) { continue }
                guard !records[position].record.lazyToMany.contains(relationship) else { continue }
                let owner = records[position].target.key
                for member in records[position].record.toMany[relationship] ?? [] {
                    if let key = member.primaryKey { found.insert(Membership(owner: owner, member: key)) }
                }
            }
            memberships[name] = found
            return found
        }
    }

    /// Positions in ordered to-many relationships kept by foreign keys (`Book.chapters` in
    /// `Chapter."_book_order"`), written with the rows of members inserted in the same save
    /// instead of by an `UPDATE` of each afterwards.
    struct InsertedOrders {
        /// By ``EntityLayout/insertedOrders`` key: the owner listing each member (by key) and
        /// its position; no position for a member listed more than once, whose rows the
        /// owners' updates write as before.
        private var positions: [String: [Int64: (owner: ObjectID, position: Int64?)]] = [:]
        /// By the same key: the members whose inserts wrote their position.
        private(set) var written: [String: Set<Int64>] = [:]

        var isEmpty: Bool { positions.isEmpty }

        /// Notes the members of a record's ordered foreign-key relationships that its save writes.
        mutating func add(_ record: StoreRecord, _ entity: EntityLayout, changed: Set<String>?) {
            for ordered in entity.orderedForeignKeys where !record.lazyToMany.contains(ordered.name) {
                if let changed, !changed.contains(ordered.name) { continue }
                for (position, member) in (record.toMany[ordered.name] ?? []).enumerated() {
                    guard let key = member.primaryKey else { continue }
                    if positions[ordered.key]?[key] != nil {
                        positions[ordered.key]![key]!.position = nil
                    } else {
                        positions[ordered.key, default: [:]][key] = (record.objectID, Int64(position))
                    }
                }
            }
        }

        /// The position an inserted record (`key`) has in the relationship whose inverse is its
        /// to-one `order`, when that names the owner that lists it; remembered as written.
        mutating func position(of record: StoreRecord, _ key: Int64, _ order: (name: String, key: String)) -> Int64? {
            guard let entry = positions[order.key]?[key], let position = entry.position, record.toOne[order.name] == entry.owner else { return nil }
            written[order.key, default: []].insert(key)
            return position
        }
    }

    /// Writes the members of every to-many relationship the record carries (not the lazy ones,
    /// nor, given `changed`, the unchanged ones), changing only the rows that differ from what
    /// is stored.
    func writeToMany(_ saved: SavedRecord, _ writes: [ToManyWrite], _ others: SavedRecords) throws(StrataError) {
        let record = saved.record, inserted = saved.inserted, changed = saved.changed
        let owner = saved.target.key
        for write in writes where !record.lazyToMany.contains(write.relationship) {
            if let changed, !changed.contains(write.relationship) { continue }
            let memberIDs = record.toMany[write.relationship] ?? []
            switch write.storage {
            case .foreignKey(let column, let hasEntityColumn, let isOrdered, let previousMembers, let clear, let set):
                var previous: Set<Int64> = []
                if !inserted {
                    previous = Set(try previousMembers.rows([.integer(owner)]) { $0.int64(0) })
                    let kept = Set(memberIDs.compactMap(\.primaryKey))
                    for key in previous.sorted() where !kept.contains(key) { try clear.run([.integer(key), .integer(owner)]) }
                }
                let pointers = isOrdered ? [:] : others.toOnes(in: write.destinationRoot, column)
                let inserted = isOrdered ? others.ordersWritten[write.destinationRoot + "." + column] : nil
                for (position, member) in memberIDs.enumerated() {
                    guard let key = member.primaryKey else { continue }
                    // Inserted in this save with this position and owner.
                    if let inserted, inserted.contains(key) { continue }
                    if !isOrdered {
                        if previous.contains(key) { continue }
                        // The member's own row, written in this save, already points here.
                        if pointers[key] == record.objectID { continue }
                    }
                    try set.prepareForBinding()
                    try set.bindInteger(key, at: 1)
                    try set.bindInteger(owner, at: 2)
                    if hasEntityColumn { try set.bindText(record.objectID.entityName, at: 3) }
                    if isOrdered { try set.bindInteger(Int64(position), at: 4) }
                    try set.runBound()
                }
            case .joinTable(let owning, let isOrdered, let previousMembers, let delete, let insert):
                let members = memberIDs.compactMap(\.primaryKey)
                var previous: Set<Int64> = []
                if !inserted {
                    previous = Set(try previousMembers.rows([.integer(owner)]) { $0.int64(0) })
                    let kept = Set(members)
                    for key in previous.sorted() where !kept.contains(key) { try delete.run([.integer(owner), .integer(key)]) }
                }
                // The rows the other side, owning the table, writes itself in this save (the
                // owning side never skips, so each row is written once).
                let written = !isOrdered && !owning ? write.inverse.map { others.memberships(in: write.destinationRoot, $0) } : nil
                var position: Int64 = -1
                for member in memberIDs {
                    guard let key = member.primaryKey else { continue }
                    position += 1
                    if !isOrdered {
                        if previous.contains(key) { continue }
                        if let written, written.contains(SavedRecords.Membership(owner: key, member: owner)) { continue }
                    }
                    try insert.prepareForBinding()
                    try insert.bindInteger(owner, at: 1)
                    try insert.bindInteger(key, at: 2)
                    if isOrdered { try insert.bindInteger(position, at: 3) }
                    try insert.runBound()
                }
            }
        }
    }
}
