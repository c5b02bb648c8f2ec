public import Strata

extension SQLiteStore {
    /// Saves a changeset in one transaction: all of it, or — on a merge conflict, a broken
    /// uniqueness constraint or an I/O error — nothing.
    ///
    /// Versions are checked first (optimistic locking): a deleted or updated object whose row
    /// changed since it was read fails with `mergeConflict` naming every such object, unless
    /// `overwritesConflicts`. Uniqueness is enforced by UNIQUE indexes; when one fires, the
    /// transaction is rolled back and the violations are listed by a dry run. (If the dry run
    /// finds none, the index fired on an intermediate state — two objects swapping values — and
    /// the save is redone with the constrained values cleared first.)
    ///
    /// `beforeCommit` runs inside the transaction, after every write, just before `COMMIT`.
    /// The transaction first checks that the file still holds this store (see
    /// ``SQLiteStore/init(url:schema:configurationName:options:logger:)``); a file replaced by another
    /// store fails with `storeIO` and nothing is written.
    public func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        guard !changes.isEmpty else {
            try beforeCommit()
            return StoreSaveResult(versions: [:])
        }
        try checkWritable()
        let versions = try pool.write { (database) throws(StrataError) -> [ObjectID: Int64] in
            database.clearLastError()
            // Whether the hook ran: an error after it (COMMIT) must not start the retry below,
            // which would run the hook twice.
            var committing = false
            do throws(StrataError) {
                return try writeTransaction(database) { () throws(StrataError) in
                    let versions = try apply(changes, database, clearingUniqueValues: false)
                    try recordChange(changes, database)
                    committing = true
                    try beforeCommit()
                    return versions
                }
            } catch {
                guard !committing, database.lastErrorCode == Database.constraintUnique else { throw error }
                let violations = try uniquenessViolations(changes, database)
                if !violations.isEmpty {
                    throw StrataError(.validationFailed, "the save would break a uniqueness constraint; nothing was written", failures: violations, file: url?.path)
                }
                return try writeTransaction(database) { () throws(StrataError) in
                    let versions = try apply(changes, database, clearingUniqueValues: true)
                    try recordChange(changes, database)
                    try beforeCommit()
                    return versions
                }
            }
        }
        return StoreSaveResult(versions: versions)
    }

    struct Target {
        var entity: EntityLayout
        var key: Int64
    }

    /// Where an object's row is; `last`, the entity of the previous object, saves looking the
    /// entity up for runs of objects of one entity.
    private func target(_ id: ObjectID, after last: EntityLayout? = nil) -> Target? {
        guard id.storeIdentifier == storeIdentifier, let key = id.primaryKey else { return nil }
        if let last, last.entity.name == id.entityName { return Target(entity: last, key: key) }
        guard let entity = layout.entities[id.entityName] else { return nil }
        return Target(entity: entity, key: key)
    }

    /// The statement of the last entity a run of rows used, prepared again only when the
    /// entity changes.
    private struct EntityStatement {
        var entity: EntityLayout?
        var statement: Statement?

        mutating func statement(for entity: EntityLayout, _ make: (EntityLayout) throws(StrataError) -> Statement) throws(StrataError) -> Statement {
            if let statement, self.entity === entity { return statement }
            let made = try make(entity)
            self.entity = entity
            statement = made
            return made
        }
    }

    /// The key of a partial update's statement: the entity and the properties it writes.
    private struct PartialKey: Hashable {
        let entity: ObjectIdentifier
        let properties: Set<String>
    }

    /// The stored version of an object; nil when no row of its entity has its key.
    private func storedVersion(_ target: Target, _ database: Database) throws(StrataError) -> Int64? {
        let table = target.entity.table
        let sql = "SELECT \"_version\"\(table.hasEntityColumn ? ", \"_entity\"" : "") FROM \(quoted(table.name)) WHERE \"_pk\" = ?"
        let rows = try database.rows(sql, [.integer(target.key)]) { row in
            (row.int64(0), table.hasEntityColumn ? row.text(1) : table.name)
        }
        guard let (version, entity) = rows.first, entity == target.entity.entity.name else { return nil }
        return version
    }

    private static func conflict(_ id: ObjectID, _ stored: Int64, _ read: Int64) -> ValidationFailure {
        ValidationFailure(
            code: .conflict, objectID: id, key: nil,
            message: "changed by another save since it was read (version \(read) read, \(stored) stored)")
    }

    /// Writes a changeset inside the open transaction. Versions are checked by the writes
    /// themselves (`WHERE "_version" = ?`): a write that finds no row is looked into after, and
    /// any conflict throws, which rolls the whole transaction back.
    private func apply(_ changes: StoreChangeset, _ database: Database, clearingUniqueValues: Bool) throws(StrataError) -> [ObjectID: Int64] {
        let checking = !changes.overwritesConflicts && !changes.restoresVersions
        var conflicts: [ValidationFailure] = []
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(changes.inserted.count + changes.updated.count)
        var statements: [String: Statement] = [:]
        func statement(_ sql: String) throws(StrataError) -> Statement {
            if let cached = statements[sql] { return cached }
            let made = try database.statement(sql)
            statements[sql] = made
            return made
        }

        var deletions: [Target] = []
        var delete = EntityStatement()
        for (id, version) in changes.deleted {
            guard let target = target(id, after: delete.entity) else { continue }
            let row = try delete.statement(for: target.entity) { (entity) throws(StrataError) in try statement(entity.deleteSQL(checkingVersion: checking)) }
            try row.prepareForBinding()
            let index = try target.entity.bindKey(target.key, to: row)
            if checking { try row.bind(.integer(version), at: index) }
            try row.stepToEnd()
            if database.changes == 0 {
                // Gone already (nothing to do), or changed since it was read.
                if let stored = try storedVersion(target, database) { conflicts.append(Self.conflict(id, stored, version)) }
                continue
            }
            deletions.append(target)
        }
        if !deletions.isEmpty {
            for join in layout.joinTables {
                let sources = try statement("DELETE FROM \(quoted(join.name)) WHERE \"source\" = ?")
                let destinations = try statement("DELETE FROM \(quoted(join.name)) WHERE \"destination\" = ?")
                for deletion in deletions {
                    let root = deletion.entity.rootName
                    if join.sourceRoot == root { try sources.run([.integer(deletion.key)]) }
                    if join.destinationRoot == root { try destinations.run([.integer(deletion.key)]) }
                }
            }
        }

        // To-many relationships are written once every row exists, and need the inserted and
        // updated records (their own to-one sides); a model without to-many relationships
        // keeps none.
        let keepsWritten = layout.entities.values.contains { !$0.toMany.isEmpty }
        var written: [SavedRecord] = []
        if keepsWritten { written.reserveCapacity(changes.inserted.count + changes.updated.count) }
        var updateTargets: [Target?] = []
        updateTargets.reserveCapacity(changes.updated.count)
        for record in changes.updated { updateTargets.append(target(record.objectID, after: updateTargets.last??.entity)) }
        if clearingUniqueValues {
            for target in updateTargets.compactMap({ $0 }) {
                let columns = uniqueColumns(of: target.entity).flatMap { name in
                    [name, ComparisonKey.stringColumn(name), ComparisonKey.decimalColumn(name)].filter { target.entity.table.column($0) != nil }
                }
                guard !columns.isEmpty else { continue }
                let sql = "UPDATE \(quoted(target.entity.rootName)) SET \(columns.map { "\(quoted($0)) = NULL" }.joined(separator: ", ")) WHERE \"_pk\" = ?"
                try statement(sql).run([.integer(target.key)])
            }
        }
        // Checking versions, a row found at the version read holds what the record was read
        // with: only the properties that changed since are written (all of them after the
        // constrained values were cleared above).
        let writesChanges = checking && !clearingUniqueValues && !changes.changedKeys.isEmpty
        var fullUpdate = EntityStatement()
        var partialUpdates: [PartialKey: (Statement, [EntityLayout.WrittenValue])] = [:]
        var lastPartial: (key: PartialKey, statement: Statement, values: [EntityLayout.WrittenValue])?
        for (position, record) in changes.updated.enumerated() {
            let id = record.objectID
            guard let target = updateTargets[position] else {
                conflicts.append(Self.deletedSinceRead(id))
                continue
            }
            let changed = writesChanges && position < changes.changedKeys.count ? changes.changedKeys[position] : nil
            let update: Statement
            let values: [EntityLayout.WrittenValue]
            if let changed {
                let key = PartialKey(entity: ObjectIdentifier(target.entity), properties: changed)
                if let lastPartial, lastPartial.key == key {
                    (update, values) = (lastPartial.statement, lastPartial.values)
                } else if let cached = partialUpdates[key] {
                    (update, values) = cached
                } else {
                    let partial = target.entity.partialUpdate(changed)
                    (update, values) = (try statement(partial.sql), partial.values)
                    partialUpdates[key] = (update, values)
                }
                lastPartial = (key, update, values)
            } else {
                update = try fullUpdate.statement(for: target.entity) { (entity) throws(StrataError) in try statement(entity.updateSQL(checkingVersion: checking)) }
                values = target.entity.writtenValues
            }
            try update.prepareForBinding()
            var index = try bindValues(values, of: record, target.entity, to: update, from: 1)
            index = try target.entity.bindKey(target.key, to: update, at: index)
            if checking {
                try update.bind(.integer(record.version), at: index)
                try update.stepToEnd()
                if database.changes == 1 {
                    versions[id] = record.version + 1
                    if keepsWritten { written.append(SavedRecord(record: record, target: target, changed: changed, inserted: false)) }
                } else if let stored = try storedVersion(target, database) {
                    conflicts.append(Self.conflict(id, stored, record.version))
                } else {
                    conflicts.append(Self.deletedSinceRead(id))
                }
            } else if try update.step() {
                versions[id] = update.int64(0)
                try update.stepToEnd()
                if changes.restoresVersions {
                    let sql = "UPDATE \(quoted(target.entity.rootName)) SET \"_version\" = ? WHERE \"_pk\" = ?"
                    try statement(sql).run([.integer(record.version), .integer(target.key)])
                    versions[id] = record.version
                }
                if keepsWritten { written.append(SavedRecord(record: record, target: target, changed: nil, inserted: false)) }
            } else if let stored = try storedVersion(target, database) {
                conflicts.append(Self.conflict(id, stored, record.version))
            } else {
                conflicts.append(Self.deletedSinceRead(id))
            }
        }
        updateTargets = []
        guard conflicts.isEmpty else {
            throw StrataError(.mergeConflict, "the save would overwrite changes another context saved since these objects were read", failures: conflicts, file: url?.path)
        }

        var highestKeys: [String: Int64] = [:]
        var lastEntity: EntityLayout?
        var highest: Int64 = 0
        // Consecutive records are usually of one entity: its layout and statement are looked up
        // once per run of them, not once per row.
        var insertEntity: EntityLayout?
        var insert: Statement?
        var orders = InsertedOrders()
        if keepsWritten && layout.entities.values.contains(where: { !$0.insertedOrders.isEmpty }) {
            for saved in written { orders.add(saved.record, saved.target.entity, changed: saved.changed) }
            var owner: EntityLayout?
            for record in changes.inserted {
                if owner?.entity.name != record.objectID.entityName { owner = layout.entities[record.objectID.entityName] }
                if let owner, !owner.orderedForeignKeys.isEmpty { orders.add(record, owner, changed: nil) }
            }
        }
        for record in changes.inserted {
            let id = record.objectID
            if insertEntity?.entity.name != id.entityName {
                insertEntity = layout.entities[id.entityName]
                insert = try insertEntity.map { (entity) throws(StrataError) in try statement(entity.insertSQL) }
            }
            guard let entity = insertEntity, let insert, id.storeIdentifier == storeIdentifier, let key = id.primaryKey else {
                throw StrataError(.invalidObjectID, "\(record.objectID) cannot be inserted into this SQLite store: it has another store's or a temporary ID, or an entity the store does not hold", file: url?.path)
            }
            let target = Target(entity: entity, key: key)
            do {
                try insert.prepareForBinding()
                var index = try target.entity.bindKey(target.key, to: insert, withEntityAt: 2)
                try insert.bind(.integer(changes.restoresVersions ? record.version : 1), at: index)
                index += 1
                index = try bindValues(target.entity.writtenValues, of: record, target.entity, to: insert, from: index)
                for order in target.entity.insertedOrders {
                    if !orders.isEmpty, let position = orders.position(of: record, target.key, order) {
                        try insert.bindInteger(position, at: index)
                    } else {
                        try insert.bind(.null, at: index)
                    }
                    index += 1
                }
                try insert.stepToEnd()
            } catch {
                database.forget(target.entity.insertSQL)
                statements[target.entity.insertSQL] = nil
                insertEntity = nil
                if database.lastErrorCode == Database.constraintPrimaryKey {
                    throw StrataError(.validationFailed, "an object with primary key \(target.key) already exists in the '\(target.entity.rootName)' hierarchy", file: url?.path)
                }
                throw error
            }
            versions[record.objectID] = changes.restoresVersions ? record.version : 1
            if let last = lastEntity, last.rootName != target.entity.rootName {
                highestKeys[last.rootName] = max(highestKeys[last.rootName] ?? 0, highest)
                highest = 0
            }
            lastEntity = target.entity
            highest = max(highest, target.key)
            if keepsWritten { written.append(SavedRecord(record: record, target: target, changed: nil, inserted: true)) }
        }
        if let last = lastEntity { highestKeys[last.rootName] = max(highestKeys[last.rootName] ?? 0, highest) }

        if written.contains(where: { !$0.target.entity.toMany.isEmpty }) {
            let saved = SavedRecords(written, ordersWritten: orders.written)
            var writers = ToManyWriters()
            // Inserted records first, then updated ones.
            for inserted in [true, false] {
                for record in written where record.inserted == inserted && !record.target.entity.toMany.isEmpty {
                    try writeToMany(record, try writers.writes(of: record.target.entity, self, statement), saved)
                }
            }
        }

        // Every reference written must find its row: another save may have deleted the object
        // since it was read.
        let dangling = try missingTargets(of: changes.writtenReferences(storeIdentifier: storeIdentifier), database)
        if !dangling.isEmpty { throw StrataError.danglingReferences(dangling, in: url?.path) }
        let stillReferred = try references(toDeleted: deletions, database)
        if !stillReferred.isEmpty { throw StrataError.referencesToDeleted(stillReferred, in: url?.path) }

        // Inside the transaction: every key a row has is at most its hierarchy's key counter,
        // whoever chose the key (explicit keys of `load` included), even without a counter row.
        for (root, key) in highestKeys {
            try database.run(
                "INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES (?2, ?1) ON CONFLICT (\"entity\") DO UPDATE SET \"last\" = max(\"last\", excluded.\"last\")",
                [.integer(key), .text(root)])
        }
        return versions
    }

    /// The references whose object has no row (of its own entity) in the store, looked up a
    /// few hundred keys per statement.
    private func missingTargets(of references: [StoreChangeset.WrittenReference], _ database: Database) throws(StrataError) -> [StoreChangeset.WrittenReference] {
        guard !references.isEmpty else { return [] }
        var byTable: [String: [StoreChangeset.WrittenReference]] = [:]
        var missing: [StoreChangeset.WrittenReference] = []
        for reference in references {
            guard let entity = layout.entities[reference.target.entityName], reference.target.primaryKey != nil else {
                missing.append(reference)
                continue
            }
            byTable[entity.table.name, default: []].append(reference)
        }
        for (name, references) in byTable.sorted(by: { $0.key < $1.key }) {
            guard let table = layout.tables[name] else { continue }
            var found: Set<ObjectID> = []
            try Self.forEachKeyBatch(references.map { $0.target.primaryKey! }) { (placeholders, arguments) throws(StrataError) in
                let sql = "SELECT \"_pk\"\(table.hasEntityColumn ? ", \"_entity\"" : "") FROM \(quoted(name)) WHERE \"_pk\" IN (\(placeholders))"
                for (key, entity) in try database.rows(sql, arguments, { row in (row.int64(0), table.hasEntityColumn ? row.text(1) : name) }) {
                    found.insert(ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key))
                }
            }
            missing += references.filter { !found.contains($0.target) }
        }
        return missing
    }

    /// Rows that still refer to deleted objects through to-one relationships without an inverse
    /// (saved by another save since the deleting context looked for them); join rows to them
    /// went with the deletion.
    private func references(toDeleted deletions: [Target], _ database: Database) throws(StrataError) -> [StoreChangeset.WrittenReference] {
        guard !deletions.isEmpty, !layout.schema.oneWayRelationships.isEmpty else { return [] }
        let relationships = layout.schema.oneWayRelationships(into: Set(deletions.map(\.entity.entity.name))).filter { !$0.relationship.isToMany }
        var found: [StoreChangeset.WrittenReference] = []
        for oneWay in relationships {
            let (entity, relationship) = (oneWay.entity, oneWay.relationship)
            guard let source = layout.entities[entity] else { continue }
            let targets = deletions.filter { $0.entity.entity.isKind(of: relationship.destination) }
            var byKey: [Int64: Target] = [:]
            for target in targets { byKey[target.key] = target }
            try Self.forEachKeyBatch(targets.map(\.key)) { (placeholders, arguments) throws(StrataError) in
                let sql = "SELECT \"_pk\", \(quoted(relationship.name))\(source.table.hasEntityColumn ? ", \"_entity\"" : "") FROM \(quoted(source.table.name)) WHERE \(quoted(relationship.name)) IN (\(placeholders))"
                let rows = try database.rows(sql, arguments) { row in
                    (row.int64(0), row.int64(1), source.table.hasEntityColumn ? row.text(2) : source.table.name)
                }
                for (key, targetKey, sourceEntity) in rows {
                    guard let target = byKey[targetKey] else { continue }
                    found.append(StoreChangeset.WrittenReference(
                        source: ObjectID(entityName: sourceEntity, storeIdentifier: storeIdentifier, primaryKey: key), key: relationship.name,
                        target: ObjectID(entityName: target.entity.entity.name, storeIdentifier: storeIdentifier, primaryKey: target.key)))
                }
            }
        }
        return found
    }

    private static func deletedSinceRead(_ id: ObjectID) -> ValidationFailure {
        ValidationFailure(code: .conflict, objectID: id, key: nil, message: "the object was deleted from the store since it was read")
    }

    /// Binds `values` (``EntityLayout/writtenValues`` or some of them) of a record from
    /// parameter `first` on; returns the next parameter.
    func bindValues(_ values: [EntityLayout.WrittenValue], of record: StoreRecord, _ entity: EntityLayout, to statement: Statement, from first: Int32) throws(StrataError) -> Int32 {
        var index = first
        var binder = AttributeBinder(attributes: record.attributes.laidOut(by: entity.entity.attributeLayout))
        for written in values {
            switch written {
            case .toOneKey(let relationship):
                try statement.bind(record.toOne[relationship]?.primaryKey.map { .integer($0) } ?? .null, at: index)
            case .toOneEntity(let relationship):
                try statement.bind(record.toOne[relationship].map { .text($0.entityName) } ?? .null, at: index)
            default:
                try binder.bind(written, to: statement, at: index)
            }
            index += 1
        }
        return index
    }

    /// Binds the attribute columns of one row (``EntityLayout/WrittenValue/attribute(position:)``
    /// and its shadow columns) from values laid out by the entity's attribute layout.
    struct AttributeBinder {
        let attributes: AttributeValues
        /// The stored text of each decimal bound, which its shadow column's key is made from.
        private var decimalTexts: [(position: Int, text: String)] = []

        init(attributes: AttributeValues) {
            self.attributes = attributes
        }

        /// Binds `written`, which must be an attribute or a shadow column.
        mutating func bind(_ written: EntityLayout.WrittenValue, to statement: Statement, at index: Int32) throws(StrataError) {
            switch written {
            case .attribute(let position):
                let value = attributes[position: position]
                if case .decimal(let decimal)? = value, !decimal.isNaN {
                    let text = ValueCodec.decimalText(decimal)
                    try statement.bindText(text, at: index)
                    decimalTexts.append((position, text))
                } else {
                    try ValueCodec.bind(value, to: statement, at: index)
                }
            case .decimalKey(let position):
                if let text = decimalTexts.first(where: { $0.position == position })?.text {
                    try statement.bindText(ComparisonKey.decimal(description: text), at: index)
                } else {
                    try statement.bind(ComparisonKey.shadowValue(of: attributes[position: position]), at: index)
                }
            case .stringKey(let position):
                try statement.bind(ComparisonKey.shadowValue(of: attributes[position: position]), at: index)
            case .toOneKey, .toOneEntity:
                preconditionFailure("a relationship's column is not an attribute's")
            }
        }
    }

    /// The columns of an entity's uniqueness constraints (its own and its ancestors').
    private func uniqueColumns(of entity: EntityLayout) -> [String] {
        var columns: [String] = []
        for name in [entity.entity.name] + entity.entity.ancestorNames {
            for constraint in layout.schema.entity(named: name)?.uniquenessConstraints ?? [] {
                for column in constraint where !columns.contains(column) { columns.append(column) }
            }
        }
        return columns
    }
}
