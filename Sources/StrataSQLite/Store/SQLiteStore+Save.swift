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
    /// ``SQLiteStore/init(url:schema:configurationName:options:)``); a file replaced by another
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
                    try beforeCommit()
                    return versions
                }
            }
        }
        return StoreSaveResult(versions: versions)
    }

    private struct Target {
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

        var updates: [(record: StoreRecord, target: Target, changed: Set<String>?)] = []
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
                    updates.append((record, target, changed))
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
                updates.append((record, target, nil))
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
        // To-many relationships are written once every row exists, and need the inserted records
        // (their own to-one sides); a model without to-many relationships keeps none.
        let keepsInserts = layout.entities.values.contains { !$0.toMany.isEmpty }
        var inserts: [(StoreRecord, Target)] = []
        var lastEntity: EntityLayout?
        var highest: Int64 = 0
        // Consecutive records are usually of one entity: its layout and statement are looked up
        // once per run of them, not once per row.
        var insertEntity: EntityLayout?
        var insert: Statement?
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
                _ = try bindValues(target.entity.writtenValues, of: record, target.entity, to: insert, from: index)
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
            if keepsInserts { inserts.append((record, target)) }
        }
        if let last = lastEntity { highestKeys[last.rootName] = max(highestKeys[last.rootName] ?? 0, highest) }

        let hasToMany = inserts.contains { !$0.1.entity.toMany.isEmpty } || updates.contains { !$0.target.entity.toMany.isEmpty }
        if hasToMany {
            var saved: [ObjectID: StoreRecord] = [:]
            for (record, _) in inserts { saved[record.objectID] = record }
            for update in updates { saved[update.record.objectID] = update.record }
            for (record, target) in inserts { try writeToMany(record, target, inserted: true, changed: nil, saved, database) }
            for update in updates { try writeToMany(update.record, update.target, inserted: false, changed: update.changed, saved, database) }
        }

        // Inside the transaction: every key a row has is at most its hierarchy's key counter,
        // whoever chose the key (explicit keys of `load` included), even without a counter row.
        for (root, key) in highestKeys {
            try database.run(
                "INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES (?2, ?1) ON CONFLICT (\"entity\") DO UPDATE SET \"last\" = max(\"last\", excluded.\"last\")",
                [.integer(key), .text(root)])
        }
        return versions
    }

    private static func deletedSinceRead(_ id: ObjectID) -> ValidationFailure {
        ValidationFailure(code: .conflict, objectID: id, key: nil, message: "the object was deleted from the store since it was read")
    }

    /// Binds `values` (``EntityLayout/writtenValues`` or some of them) of a record from
    /// parameter `first` on; returns the next parameter.
    private func bindValues(_ values: [EntityLayout.WrittenValue], of record: StoreRecord, _ entity: EntityLayout, to statement: Statement, from first: Int32) throws(StrataError) -> Int32 {
        var index = first
        let attributes = record.attributes.laidOut(by: entity.entity.attributeLayout)
        for written in values {
            switch written {
            case .attribute(let position):
                try ValueCodec.bind(attributes[position: position], to: statement, at: index)
            case .toOneKey(let relationship):
                try statement.bind(record.toOne[relationship]?.primaryKey.map { .integer($0) } ?? .null, at: index)
            case .toOneEntity(let relationship):
                try statement.bind(record.toOne[relationship].map { .text($0.entityName) } ?? .null, at: index)
            case .stringKey(let position), .decimalKey(let position):
                try statement.bind(ComparisonKey.shadowValue(of: attributes[position: position]), at: index)
            }
            index += 1
        }
        return index
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

    /// Writes the members of every to-many relationship the record carries (not the lazy ones,
    /// nor, given `changed`, the unchanged ones), changing only the rows that differ from what
    /// is stored.
    private func writeToMany(_ record: StoreRecord, _ target: Target, inserted: Bool, changed: Set<String>?, _ saved: [ObjectID: StoreRecord], _ database: Database) throws(StrataError) {
        let owner = SQLValue.integer(target.key)
        for relationship in target.entity.entity.relationships where relationship.isToMany && !record.lazyToMany.contains(relationship.name) {
            if let changed, !changed.contains(relationship.name) { continue }
            guard let storage = target.entity.toMany[relationship.name] else { continue }
            let members = (record.toMany[relationship.name] ?? []).compactMap { $0.primaryKey }
            switch storage {
            case .foreignKey(let tableName, let column, let orderColumn, let filter):
                let table = layout.tables[tableName]!
                let entityColumn = table.column("_\(column)_entity")?.name
                var previous: Set<Int64> = []
                if !inserted {
                    var sql = "SELECT \"_pk\" FROM \(quoted(tableName)) WHERE \(quoted(column)) = ?1"
                    if let filter { sql += " AND \"_entity\" IN (\(filter.map(literal).joined(separator: ", ")))" }
                    previous = Set(try database.rows(sql, [owner]) { $0.int64(0) })
                    let kept = Set(members)
                    var clear = [column] + (entityColumn.map { [$0] } ?? [])
                    if let orderColumn { clear.append(orderColumn) }
                    let sql2 = "UPDATE \(quoted(tableName)) SET \(clear.map { "\(quoted($0)) = NULL" }.joined(separator: ", ")) WHERE \"_pk\" = ?1 AND \(quoted(column)) = ?2"
                    for key in previous.sorted() where !kept.contains(key) { try database.run(sql2, [.integer(key), owner]) }
                }
                var assignments = ["\(quoted(column)) = ?2"]
                if let entityColumn { assignments.append("\(quoted(entityColumn)) = ?3") }
                if let orderColumn { assignments.append("\(quoted(orderColumn)) = ?4") }
                let sql = "UPDATE \(quoted(tableName)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = ?1"
                let memberIDs = record.toMany[relationship.name] ?? []
                for (position, member) in memberIDs.enumerated() {
                    guard let key = member.primaryKey else { continue }
                    if orderColumn == nil {
                        if previous.contains(key) { continue }
                        // The member's own row, written in this save, already points here.
                        if let own = saved[member], own.toOne[column] == record.objectID { continue }
                    }
                    var arguments: [SQLValue] = [.integer(key), owner]
                    if entityColumn != nil { arguments.append(.text(record.objectID.entityName)) }
                    if orderColumn != nil {
                        if entityColumn == nil { arguments.append(.null) }
                        arguments.append(.integer(Int64(position)))
                    }
                    try database.run(sql, arguments)
                }
            case .joinTable(let tableName, let own, let other, let orderColumn, _):
                var previous: Set<Int64> = []
                if !inserted {
                    previous = Set(try database.rows("SELECT \(quoted(other)) FROM \(quoted(tableName)) WHERE \(quoted(own)) = ?1", [owner]) { $0.int64(0) })
                    let kept = Set(members)
                    for key in previous.sorted() where !kept.contains(key) {
                        try database.run("DELETE FROM \(quoted(tableName)) WHERE \(quoted(own)) = ?1 AND \(quoted(other)) = ?2", [owner, .integer(key)])
                    }
                }
                if let orderColumn {
                    let sql = "INSERT INTO \(quoted(tableName)) (\(quoted(own)), \(quoted(other)), \(quoted(orderColumn))) VALUES (?1, ?2, ?3) ON CONFLICT (\"source\", \"destination\") DO UPDATE SET \(quoted(orderColumn)) = excluded.\(quoted(orderColumn))"
                    for (position, key) in members.enumerated() { try database.run(sql, [owner, .integer(key), .integer(Int64(position))]) }
                } else {
                    let sql = "INSERT INTO \(quoted(tableName)) (\(quoted(own)), \(quoted(other))) VALUES (?1, ?2) ON CONFLICT (\"source\", \"destination\") DO NOTHING"
                    for key in members where !previous.contains(key) { try database.run(sql, [owner, .integer(key)]) }
                }
            }
        }
    }
}
