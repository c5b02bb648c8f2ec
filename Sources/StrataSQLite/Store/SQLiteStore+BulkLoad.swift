package import Strata

extension SQLiteStore: BulkLoadingStore {
    /// Runs a bulk load (``BulkLoadSession``) in one write transaction, when no table of the
    /// store holds a row. The store's indexes are dropped first and made again by
    /// ``BulkLoadSession/finish()``: building an index once from the whole table costs a
    /// fraction of keeping it up to date row by row, and a UNIQUE index that cannot be built
    /// is a uniqueness constraint the data breaks. Everything happens inside a savepoint, so a
    /// load given up — by `body` or by a broken constraint — leaves the store exactly as it was,
    /// indexes included; so does any error. Other processes see the store as it was until the
    /// commit, and wait to write (the write lock) while the load runs.
    package func bulkLoad(_ body: (any BulkLoadSession) throws(StrataError) -> Bool) throws(StrataError) -> Bool {
        try checkWritable()
        return try pool.write { (database) throws(StrataError) -> Bool in
            database.clearLastError()
            return try writeTransaction(database) { () throws(StrataError) -> Bool in
                guard try holdsNoRow(database) else { return false }
                try database.execute("SAVEPOINT \"strata_bulk_load\"")
                let session = BulkLoad(store: self, database: database)
                var committed = false
                defer {
                    session.close()
                    if !committed, database.isInTransaction {
                        database.rollback(toSavepoint: "strata_bulk_load")
                    }
                }
                try session.dropIndexes()
                try session.prepare()
                guard try body(session), try session.finish() else { return false }
                try database.execute("RELEASE \"strata_bulk_load\"")
                committed = true
                return true
            }
        }
    }

    /// Whether no table or join table of this store's layout has a row.
    private func holdsNoRow(_ database: Database) throws(StrataError) -> Bool {
        for name in layout.tables.keys.sorted() + layout.joinTables.map(\.name) {
            if try database.scalar("SELECT 1 FROM \(quoted(name)) LIMIT 1") != nil { return false }
        }
        return true
    }

    /// One bulk load's statements and what it has written.
    final class BulkLoad: BulkLoadSession {
        let store: SQLiteStore
        let database: Database
        /// By entity index: its layout and insert statement (nil for entities the store does
        /// not hold), all made before the first row: the writer thread reads them.
        private var entities: [Entity?]
        /// Writes the rows while the reader reads on (nil once drained).
        private var writer: BulkRowWriter?
        /// The indexes dropped, to build again once every row is written.
        private var indexes: [(name: String, sql: String)] = []
        /// Set when a UNIQUE index cannot be built or a write breaks one: the load is given up.
        private var isUniquenessBroken = false
        /// By entity index: the highest key inserted.
        private var highestKeys: [Int64]
        private var statements: [String: Statement] = [:]

        struct Entity {
            let layout: EntityLayout
            let insert: Statement
            /// By ``EntityLayout/writtenValues`` index: the relationship position of a
            /// `toOneKey` (nil for other values).
            let toOnePositions: [Int?]
            /// By relationship position: how it is written.
            let plans: [Plan?]
        }

        /// How one relationship is written.
        enum Plan {
            /// A to-one's own columns: `?1` the row, `?2` the destination key, `?3` its entity.
            case toOne(BulkRelationshipPlan, update: Statement?, hasEntityColumn: Bool)
            /// The members' rows (`?1`) point to the owner (`?2`, its entity `?3`), at
            /// position `?4`.
            case foreignKey(update: Statement, hasEntityColumn: Bool)
            /// Rows of a join table: `?1` the owner, `?2` the member, `?3` the position.
            case joinTable(insert: Statement, isOrdered: Bool)
            case byInverse
        }

        init(store: SQLiteStore, database: Database) {
            self.store = store
            self.database = database
            entities = Array(repeating: nil, count: store.layout.schema.entities.count)
            highestKeys = Array(repeating: 0, count: entities.count)
        }

        private var schema: Schema { store.layout.schema }

        /// Prepares every entity's statements and starts the writer thread.
        func prepare() throws(StrataError) {
            for index in entities.indices {
                let description = schema.entities[index]
                guard let layout = store.layout.entities[description.name] else { continue }
                let toOnePositions = layout.writtenValues.map { written -> Int? in
                    guard case .toOneKey(let name) = written else { return nil }
                    return description.relationshipPosition(of: name)
                }
                entities[index] = Entity(
                    layout: layout, insert: try statement(layout.insertSQL), toOnePositions: toOnePositions,
                    plans: try description.relationships.map { (relationship) throws(StrataError) in try plan(of: relationship, in: layout) })
            }
            writer = BulkRowWriter { [unowned self] (batch) throws(StrataError) in
                var members: [(entity: Int, key: Int64)] = []
                for operation in batch.operations {
                    switch operation {
                    case .insert(let entity, let key, let values, let keys):
                        try write(entity: entity, key: key, values: values) { position in
                            let key = batch.keys[keys.lowerBound + position]
                            return key == 0 ? nil : key
                        }
                    case .relate(let entity, let key, let relationship, let keys):
                        members.removeAll(keepingCapacity: true)
                        for index in keys { members.append((batch.entities[index], batch.keys[index])) }
                        try write(entity: entity, key: key, relationship: relationship, members: members)
                    case .completeRows:
                        try buildIndexes()
                    }
                }
            }
        }

        /// Waits for every row to be written; rethrows the writer's error.
        private func drain() throws(StrataError) {
            guard let writer else { return }
            self.writer = nil
            try writer.drain()
        }

        func close() {
            try? drain()
            statements = [:]
            entities = []
        }

        private func statement(_ sql: String) throws(StrataError) -> Statement {
            if let made = statements[sql] { return made }
            let made = try database.statement(sql)
            statements[sql] = made
            return made
        }

        func dropIndexes() throws(StrataError) {
            let existing = Set(try database.rows("SELECT \"name\" FROM sqlite_master WHERE \"type\" = 'index'") { $0.text(0) })
            for definition in store.layout.indexDefinitions where existing.contains(definition.name) {
                try database.execute("DROP INDEX \(quoted(definition.name))")
                indexes.append((definition.name, definition.sql))
            }
        }

        private func entity(_ index: Int) -> Entity? {
            index < entities.count ? entities[index] : nil
        }

        /// How a relationship is written, with its statement prepared (statements are made
        /// before the first row: the writer thread only runs them).
        private func plan(of relationship: RelationshipDescription, in layout: EntityLayout) throws(StrataError) -> Plan? {
            let table = quoted(layout.rootName)
            guard relationship.isToMany else {
                guard let toOne = layout.toOnes.first(where: { $0.name == relationship.name }) else { return nil }
                // An ordered to-many inverse kept by this key writes it with the position.
                if let inverse = relationship.inverse, let destination = store.layout.entities[relationship.destination],
                   case .foreignKey(_, _, _?, _)? = destination.toMany[inverse] {
                    return .toOne(.byInverse, update: nil, hasEntityColumn: false)
                }
                let column = quoted(relationship.name)
                let hasEntityColumn = toOne.entityColumn != nil
                let entityAssignment = hasEntityColumn ? ", \(quoted("_\(relationship.name)_entity")) = ?3" : ""
                // A destination's entity is known once every row is read: written after them.
                return .toOne(hasEntityColumn ? .afterRows : .withRow,
                              update: try statement("UPDATE \(table) SET \(column) = ?2\(entityAssignment) WHERE \"_pk\" = ?1"), hasEntityColumn: hasEntityColumn)
            }
            switch layout.toMany[relationship.name] {
            case .foreignKey(let memberTable, let column, let orderColumn, _)?:
                guard let orderColumn else { return .byInverse }
                let entityColumn = store.layout.tables[memberTable]?.column("_\(column)_entity")?.name
                var assignments = ["\(quoted(column)) = ?2"]
                if let entityColumn { assignments.append("\(quoted(entityColumn)) = ?3") }
                assignments.append("\(quoted(orderColumn)) = ?4")
                return .foreignKey(
                    update: try statement("UPDATE \(quoted(memberTable)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = ?1"),
                    hasEntityColumn: entityColumn != nil)
            case .joinTable(let joinTable, let own, let other, let orderColumn, _)?:
                // Each pair is in the lists of both sides: the owning side writes it, and an
                // ordered side its own position.
                if own != "source" && orderColumn == nil { return .byInverse }
                let insert = if let orderColumn {
                    "INSERT INTO \(quoted(joinTable)) (\(quoted(own)), \(quoted(other)), \(quoted(orderColumn))) VALUES (?1, ?2, ?3) ON CONFLICT (\"source\", \"destination\") DO UPDATE SET \(quoted(orderColumn)) = excluded.\(quoted(orderColumn))"
                } else {
                    "INSERT INTO \(quoted(joinTable)) (\(quoted(own)), \(quoted(other))) VALUES (?1, ?2) ON CONFLICT (\"source\", \"destination\") DO NOTHING"
                }
                return .joinTable(insert: try statement(insert), isOrdered: orderColumn != nil)
            case nil:
                return nil
            }
        }

        func plan(entity index: Int, relationship: Int) -> BulkRelationshipPlan? {
            guard let entity = entity(index), let plan = entity.plans[relationship] else { return nil }
            switch plan {
            case .toOne(let plan, _, _): return plan
            case .foreignKey: return .afterMemberRows
            case .joinTable: return .afterRows
            case .byInverse: return .byInverse
            }
        }

        func insert(entity index: Int, key: Int64, values: AttributeValues, toOneKeys: [Int64?]) throws(StrataError) {
            if let writer {
                writer.insert(entity: index, key: key, values: values, toOneKeys: toOneKeys)
            } else {
                try write(entity: index, key: key, values: values) { toOneKeys[$0] }
            }
        }

        /// Inserts one row (on the writer thread while there is one).
        private func write(entity index: Int, key: Int64, values: AttributeValues, toOneKey: (Int) -> Int64?) throws(StrataError) {
            guard let entity = entity(index) else {
                throw StrataError(.unknownEntity, "this SQLite store holds no entity '\(schema.entities[index].name)'", file: store.url?.path)
            }
            let layout = entity.layout
            let insert = entity.insert
            try insert.prepareForBinding()
            var parameter = try layout.bindKey(key, to: insert, withEntityAt: 2)
            try insert.bindInteger(1, at: parameter)
            parameter += 1
            var binder = AttributeBinder(attributes: values)
            for (offset, written) in layout.writtenValues.enumerated() {
                switch written {
                case .toOneKey:
                    if let position = entity.toOnePositions[offset], let destination = toOneKey(position) {
                        try insert.bindInteger(destination, at: parameter)
                    } else {
                        try insert.bind(.null, at: parameter)
                    }
                case .toOneEntity:
                    try insert.bind(.null, at: parameter)
                default:
                    try binder.bind(written, to: insert, at: parameter)
                }
                parameter += 1
            }
            for _ in layout.insertedOrders {
                try insert.bind(.null, at: parameter)
                parameter += 1
            }
            do {
                try insert.stepToEnd()
            } catch {
                if database.lastErrorCode == Database.constraintPrimaryKey {
                    throw StrataError(.validationFailed, "an object with primary key \(key) already exists in the '\(layout.rootName)' hierarchy", file: store.url?.path)
                }
                throw error
            }
            if key > highestKeys[index] { highestKeys[index] = key }
        }

        func relate(entity index: Int, key: Int64, relationship: Int, members: [(entity: Int, key: Int64)]) throws(StrataError) {
            if let writer {
                writer.relate(entity: index, key: key, relationship: relationship, members: members)
            } else {
                try write(entity: index, key: key, relationship: relationship, members: members)
            }
        }

        /// Writes one relationship (on the writer thread while there is one). Once the indexes
        /// are built, a write may break a UNIQUE one (a constraint over a to-one): the load is
        /// given up, to be reported by the ordinary one.
        private func write(entity index: Int, key: Int64, relationship: Int, members: [(entity: Int, key: Int64)]) throws(StrataError) {
            guard !isUniquenessBroken else { return }
            do {
                try writeNow(entity: index, key: key, relationship: relationship, members: members)
            } catch {
                guard isConstraintError else { throw error }
                isUniquenessBroken = true
            }
        }

        private func writeNow(entity index: Int, key: Int64, relationship: Int, members: [(entity: Int, key: Int64)]) throws(StrataError) {
            guard let entity = entity(index), let plan = entity.plans[relationship] else { return }
            switch plan {
            case .byInverse, .toOne(.byInverse, _, _):
                return
            case .toOne(_, let statement?, let hasEntityColumn):
                try statement.prepareForBinding()
                try statement.bindInteger(key, at: 1)
                if let member = members.first {
                    try statement.bindInteger(member.key, at: 2)
                    if hasEntityColumn {
                        guard member.entity >= 0 else { throw StrataError(.invalidData, "a to-one's destination entity is unknown", file: store.url?.path) }
                        try statement.bindText(schema.entities[member.entity].name, at: 3)
                    }
                } else {
                    try statement.bind(.null, at: 2)
                    if hasEntityColumn { try statement.bind(.null, at: 3) }
                }
                try statement.runBound()
            case .toOne(_, nil, _):
                return
            case .foreignKey(let statement, let hasEntityColumn):
                for (position, member) in members.enumerated() {
                    try statement.prepareForBinding()
                    try statement.bindInteger(member.key, at: 1)
                    try statement.bindInteger(key, at: 2)
                    if hasEntityColumn { try statement.bindText(schema.entities[index].name, at: 3) }
                    try statement.bindInteger(Int64(position), at: 4)
                    try statement.runBound()
                }
            case .joinTable(let statement, let isOrdered):
                for (position, member) in members.enumerated() {
                    try statement.prepareForBinding()
                    try statement.bindInteger(key, at: 1)
                    try statement.bindInteger(member.key, at: 2)
                    if isOrdered { try statement.bindInteger(Int64(position), at: 3) }
                    try statement.runBound()
                }
            }
        }

        func rowsComplete() throws(StrataError) {
            if let writer {
                writer.completeRows()
            } else {
                try buildIndexes()
            }
        }

        /// Builds the indexes dropped at the start (once).
        private func buildIndexes() throws(StrataError) {
            let indexes = self.indexes
            self.indexes = []
            for index in indexes where !isUniquenessBroken {
                do {
                    try database.execute(index.sql)
                } catch {
                    // Rows that break a uniqueness constraint: the ordinary load reports them.
                    guard isConstraintError else { throw error }
                    isUniquenessBroken = true
                }
            }
        }

        private var isConstraintError: Bool { database.lastErrorCode & 0xFF == Database.constraintUnique & 0xFF }

        func finish() throws(StrataError) -> Bool {
            if let finished { return finished }
            let result = try completeLoad()
            finished = result
            return result
        }

        /// What ``finish()`` answered, once it has.
        private var finished: Bool?

        private func completeLoad() throws(StrataError) -> Bool {
            try drain()
            statements = [:]
            entities = []
            try buildIndexes()
            guard !isUniquenessBroken else { return false }
            // Every key a row has is at most its hierarchy's key counter, as after a save.
            var byRoot: [String: Int64] = [:]
            for (index, key) in highestKeys.enumerated() where key > 0 {
                let root = schema.entities[index].rootName
                byRoot[root] = max(byRoot[root] ?? 0, key)
            }
            for (root, key) in byRoot.sorted(by: { $0.key < $1.key }) {
                try database.run(
                    "INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES (?2, ?1) ON CONFLICT (\"entity\") DO UPDATE SET \"last\" = max(\"last\", excluded.\"last\")",
                    [.integer(key), .text(root)])
            }
            return true
        }
    }
}
