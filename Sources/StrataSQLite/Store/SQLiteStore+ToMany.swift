internal import Strata

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

    /// The records a save inserts and updates, found by table and primary key (two integers
    /// hashed, where an `ObjectID` compares entity names) without copying them.
    struct SavedRecords {
        private let records: [SavedRecord]
        /// Positions in `records` by root table and key; an updated record wins over an
        /// inserted one.
        private var positions: [String: [Int64: Int]] = [:]

        init(_ records: [SavedRecord]) {
            self.records = records
            for inserted in [true, false] {
                for (position, saved) in records.enumerated() where saved.inserted == inserted {
                    positions[saved.target.entity.rootName, default: [:]][saved.target.key] = position
                }
            }
        }

        /// The records of one table.
        func table(_ root: String) -> Table { Table(records: records, positions: positions[root] ?? [:]) }

        struct Table {
            let records: [SavedRecord]
            let positions: [Int64: Int]

            private func position(_ id: ObjectID, _ key: Int64) -> Int? {
                guard let position = positions[key], records[position].record.objectID == id else { return nil }
                return position
            }

            /// The destination of a to-one relationship of a record (`key` its primary key) this
            /// save writes; nil when the save does not write the record or the record has none.
            func toOne(of id: ObjectID, _ key: Int64, _ relationship: String) -> ObjectID? {
                position(id, key).flatMap { records[$0].record.toOne[relationship] }
            }

            /// Whether this save writes `relationship` of the record `id` (`key`) with `member`
            /// in it: every member of an inserted record, and of an updated one whose
            /// relationship is loaded and changed (or not known unchanged). Short lists only:
            /// the members are searched.
            func writes(_ id: ObjectID, _ key: Int64, _ relationship: String, with member: ObjectID) -> Bool {
                guard let position = position(id, key) else { return false }
                if let changed = records[position].changed, !changed.contains(relationship) { return false }
                guard !records[position].record.lazyToMany.contains(relationship), let members = records[position].record.toMany[relationship],
                      members.count <= 64 else { return false }
                return members.contains(member)
            }
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
            let destinations = others.table(write.destinationRoot)
            switch write.storage {
            case .foreignKey(let column, let hasEntityColumn, let isOrdered, let previousMembers, let clear, let set):
                var previous: Set<Int64> = []
                if !inserted {
                    previous = Set(try previousMembers.rows([.integer(owner)]) { $0.int64(0) })
                    let kept = Set(memberIDs.compactMap(\.primaryKey))
                    for key in previous.sorted() where !kept.contains(key) { try clear.run([.integer(key), .integer(owner)]) }
                }
                for (position, member) in memberIDs.enumerated() {
                    guard let key = member.primaryKey else { continue }
                    if !isOrdered {
                        if previous.contains(key) { continue }
                        // The member's own row, written in this save, already points here.
                        if destinations.toOne(of: member, key, column) == record.objectID { continue }
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
                var position: Int64 = -1
                for member in memberIDs {
                    guard let key = member.primaryKey else { continue }
                    position += 1
                    if !isOrdered {
                        if previous.contains(key) { continue }
                        // The other side owns the table and writes the row itself in this save
                        // (the owning side never skips, so each row is written once).
                        if !owning, let inverse = write.inverse, destinations.writes(member, key, inverse, with: record.objectID) { continue }
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
