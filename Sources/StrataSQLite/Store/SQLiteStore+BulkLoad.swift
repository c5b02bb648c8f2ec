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
            return try writeTransaction(database, journalsInMemory: true) { () throws(StrataError) -> Bool in
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
                try recordChange(database, unlisted: Set(layout.entities.keys))
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

        struct Entity {
            let layout: EntityLayout
            let insert: Statement
            /// The insert of ``BulkLoad/rowsPerInsert`` rows at once (nil when that many rows
            /// would pass the connection's limit of parameters).
            let insertMany: Statement?
            /// The parameters of one row of the inserts.
            let parameters: Int32
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
            /// Rows of a join table: `?1` the owner, `?2` the member, `?3` the position; and the
            /// insert of ``BulkLoad/rowsPerInsert`` of them at once, numbered `buffer` among the
            /// join tables' buffers of rows waiting.
            case joinTable(insert: Statement, isOrdered: Bool, insertMany: Statement, buffer: Int)
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
                let parameters = Int32(layout.insertSQL.utf8.count(where: { $0 == UInt8(ascii: "?") }))
                entities[index] = Entity(
                    layout: layout, insert: try database.statement(layout.insertSQL),
                    insertMany: Int(parameters) * Self.rowsPerInsert > database.parameterLimit
                        ? nil : try database.statement(Self.repeated(layout.insertSQL, parameters: Int(parameters))),
                    parameters: parameters, toOnePositions: toOnePositions,
                    plans: try description.relationships.map { (relationship) throws(StrataError) in try plan(of: relationship, in: layout) })
            }
            writer = BulkRowWriter { [unowned self] (batch) throws(StrataError) in try write(batch) }
        }

        /// How many rows one statement inserts, for runs of rows of one entity and rows of
        /// one join table: a statement's own cost (its reset, its step, SQLite's checks around
        /// them) was about a third of each row's.
        static let rowsPerInsert = 32

        /// An `INSERT … VALUES (…)` of one row made an insert of ``rowsPerInsert`` rows.
        static func repeated(_ insert: String, parameters: Int) -> String {
            let row = "(" + Array(repeating: "?", count: parameters).joined(separator: ", ") + ")"
            return insert + String(repeating: ", " + row, count: rowsPerInsert - 1)
        }

        /// Rows of one join table waiting to be inserted together (`columns` values each).
        struct JoinBuffer {
            let columns: Int
            var values: [Int64] = []
        }

        private var joinBuffers: [JoinBuffer] = []

        /// Writes a batch in order — but a run of rows of one entity goes in inserts of many
        /// rows, and join tables' rows (which no other write reads) wait to go in inserts of
        /// many rows too, until the batch ends or the indexes are built.
        private func write(_ batch: BulkRowWriter.Batch) throws(StrataError) {
            var members: [(entity: Int, key: Int64)] = []
            var run: [Int] = []
            func flushRun() throws(StrataError) {
                guard !run.isEmpty else { return }
                try insert(run, of: batch)
                run.removeAll(keepingCapacity: true)
            }
            for (position, operation) in batch.operations.enumerated() {
                switch operation {
                case .insert(let entity, _, _, _):
                    if let first = run.first, case .insert(let runEntity, _, _, _) = batch.operations[first],
                       runEntity != entity || run.count == Self.rowsPerInsert {
                        try flushRun()
                    }
                    run.append(position)
                case .relate(let entity, let key, let relationship, let keys):
                    if let plan = self.entity(entity)?.plans[relationship], case .joinTable(_, let isOrdered, _, let buffer) = plan {
                        for (offset, index) in keys.enumerated() {
                            joinBuffers[buffer].values.append(key)
                            joinBuffers[buffer].values.append(batch.keys[index])
                            if isOrdered { joinBuffers[buffer].values.append(Int64(offset)) }
                        }
                        if joinBuffers[buffer].values.count >= Self.rowsPerInsert * joinBuffers[buffer].columns {
                            try flushJoins(plan, all: false)
                        }
                        continue
                    }
                    try flushRun()
                    members.removeAll(keepingCapacity: true)
                    for index in keys { members.append((batch.entities[index], batch.keys[index])) }
                    try write(entity: entity, key: key, relationship: relationship, members: members)
                case .completeRows:
                    try flushRun()
                    try flushAllJoins()
                    try buildIndexes()
                }
            }
            try flushRun()
            try flushAllJoins()
        }

        /// Inserts the rows of a run of one entity's inserts in `batch`.
        private func insert(_ run: [Int], of batch: BulkRowWriter.Batch) throws(StrataError) {
            guard case .insert(let index, _, _, _) = batch.operations[run[0]], let entity = entity(index) else {
                throw StrataError(.unknownEntity, "this SQLite store holds no entity", file: store.url?.path)
            }
            var start = 0
            while start < run.count {
                let many = run.count - start >= Self.rowsPerInsert && entity.insertMany != nil
                let statement = many ? entity.insertMany! : entity.insert
                let count = many ? Self.rowsPerInsert : 1
                try statement.prepareForBinding()
                for row in 0..<count {
                    guard case .insert(_, let key, let values, let keys) = batch.operations[run[start + row]] else { continue }
                    try bind(entity, key: key, values: values, to: statement, from: Int32(row) * entity.parameters) { position in
                        let key = batch.keys[keys.lowerBound + position]
                        return key == 0 ? nil : key
                    }
                    if key > highestKeys[index] { highestKeys[index] = key }
                }
                try step(statement, entity.layout)
                start += count
            }
        }

        /// Inserts the join rows waiting in a plan's buffer: as many whole inserts of many rows
        /// as they fill, and with `all`, the rest one by one.
        private func flushJoins(_ plan: Plan, all: Bool) throws(StrataError) {
            guard case .joinTable(let single, _, let many, let buffer) = plan else { return }
            let columns = joinBuffers[buffer].columns
            let values = joinBuffers[buffer].values
            var start = 0
            while values.count - start >= Self.rowsPerInsert * columns || (all && start < values.count) {
                let whole = values.count - start >= Self.rowsPerInsert * columns
                let statement = whole ? many : single
                let count = (whole ? Self.rowsPerInsert : 1) * columns
                try statement.prepareForBinding()
                for offset in 0..<count { try statement.bindInteger(values[start + offset], at: Int32(offset + 1)) }
                try statement.runBound()
                start += count
            }
            joinBuffers[buffer].values.removeFirst(start)
        }

        private func flushAllJoins() throws(StrataError) {
            guard joinBuffers.contains(where: { !$0.values.isEmpty }) else { return }
            for entity in entities.compactMap({ $0 }) {
                for case let plan? in entity.plans {
                    if case .joinTable(_, _, _, let buffer) = plan, !joinBuffers[buffer].values.isEmpty {
                        try flushJoins(plan, all: true)
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
            entities = []
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
                              update: try database.statement("UPDATE \(table) SET \(column) = ?2\(entityAssignment) WHERE \"_pk\" = ?1"), hasEntityColumn: hasEntityColumn)
            }
            switch layout.toMany[relationship.name] {
            case .foreignKey(let memberTable, let column, let orderColumn, _)?:
                guard let orderColumn else { return .byInverse }
                let entityColumn = store.layout.tables[memberTable]?.column("_\(column)_entity")?.name
                var assignments = ["\(quoted(column)) = ?2"]
                if let entityColumn { assignments.append("\(quoted(entityColumn)) = ?3") }
                assignments.append("\(quoted(orderColumn)) = ?4")
                return .foreignKey(
                    update: try database.statement("UPDATE \(quoted(memberTable)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = ?1"),
                    hasEntityColumn: entityColumn != nil)
            case .joinTable(let joinTable, let own, let other, let orderColumn, _)?:
                // Each pair is in the lists of both sides: the owning side writes it, and an
                // ordered side its own position.
                if own != "source" && orderColumn == nil { return .byInverse }
                let columns = [own, other] + (orderColumn.map { [$0] } ?? [])
                let conflict = if let orderColumn {
                    " ON CONFLICT (\"source\", \"destination\") DO UPDATE SET \(quoted(orderColumn)) = excluded.\(quoted(orderColumn))"
                } else {
                    " ON CONFLICT (\"source\", \"destination\") DO NOTHING"
                }
                let insert = "INSERT INTO \(quoted(joinTable)) (\(columns.map(quoted).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
                joinBuffers.append(JoinBuffer(columns: columns.count))
                return .joinTable(
                    insert: try database.statement(insert + conflict), isOrdered: orderColumn != nil,
                    insertMany: try database.statement(Self.repeated(insert, parameters: columns.count) + conflict), buffer: joinBuffers.count - 1)
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
            try entity.insert.prepareForBinding()
            try bind(entity, key: key, values: values, to: entity.insert, from: 0, toOneKey: toOneKey)
            try step(entity.insert, entity.layout)
            if key > highestKeys[index] { highestKeys[index] = key }
        }

        /// Binds one row of an insert, its parameters after `base`.
        private func bind(_ entity: Entity, key: Int64, values: AttributeValues, to insert: Statement, from base: Int32, toOneKey: (Int) -> Int64?) throws(StrataError) {
            try SQLiteStore.bindNewRow(key, values, entity.layout, to: insert, from: base) { offset in
                entity.toOnePositions[offset].flatMap(toOneKey)
            }
        }

        private func step(_ insert: Statement, _ layout: EntityLayout) throws(StrataError) {
            do {
                try insert.stepToEnd()
            } catch {
                if database.lastErrorCode == Database.constraintPrimaryKey {
                    throw StrataError(.validationFailed, "an object's primary key is taken already in the '\(layout.rootName)' hierarchy", file: store.url?.path)
                }
                throw error
            }
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
            case .joinTable(let statement, let isOrdered, _, _):
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
