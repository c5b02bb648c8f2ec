public import Strata
internal import Foundation
internal import StrataSQL

extension PostgresStore {
    /// Saves a changeset in one transaction: all of it, or — on a merge conflict, a broken
    /// uniqueness constraint, a reference to an object another save deleted, or a server error —
    /// nothing.
    ///
    /// The transaction runs at `READ COMMITTED`, which is what optimistic locking needs here:
    /// every update and delete names the version it read (`WHERE "_version" = $n`), and
    /// PostgreSQL re-checks that condition against the latest committed row after waiting for
    /// a concurrent writer of the same row, so of two saves of one object read at one version
    /// exactly one finds its row; the other fails with `mergeConflict`, as on SQLite. Rows the
    /// saved references point to are locked (`FOR KEY SHARE`) while they are checked, so a
    /// concurrent save cannot delete them before this one commits. `SERIALIZABLE` would add
    /// nothing the version checks do not give, and abort whole saves for reads that do not
    /// matter. A deadlock between two saves (the server aborts one) is retried, at most three
    /// times, as long as `beforeCommit` has not run.
    ///
    /// Uniqueness constraints are checked at the end of the save (deferred constraints), before
    /// `beforeCommit`; a violation fails with `validationFailed` listing the objects.
    ///
    /// A connection that breaks during `COMMIT` is never retried: the server is asked what
    /// became of the transaction (`txid_status`), and when it cannot say, the save fails with
    /// `commitOutcomeUnknown`.
    public func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        guard !changes.isEmpty else {
            try beforeCommit()
            return StoreSaveResult(versions: [:])
        }
        return try pool.write { (connection) throws(StrataError) -> StoreSaveResult in
            var attempt = 1
            while true {
                var committing = false
                do throws(StrataError) {
                    try connection.run("BEGIN ISOLATION LEVEL READ COMMITTED")
                    let (versions, history) = try apply(changes, connection)
                    do throws(PGError) {
                        try connection.query("SET CONSTRAINTS ALL IMMEDIATE")
                    } catch {
                        guard error.state == PGError.exclusionViolation || error.state == PGError.uniqueViolation else { throw error.strataError(location: location.description) }
                        throw uniquenessError(changes, connection)
                    }
                    let transaction = try recordHistory(history, connection)
                    committing = true
                    try beforeCommit()
                    try commit(connection, transaction: transaction)
                    return StoreSaveResult(versions: versions)
                } catch {
                    if connection.isInTransaction { _ = try? connection.query("ROLLBACK") }
                    if !committing, attempt < 3, error.message.contains("SQLSTATE \(PGError.deadlock)") {
                        attempt += 1
                        continue
                    }
                    throw error
                }
            }
        }
    }

    /// Commits the save's transaction. When the connection breaks during `COMMIT` (the server
    /// restarted, the network failed, an operator ended the session) the client cannot tell
    /// whether the server committed, and saving the changeset again could apply it twice; so
    /// the server is asked, on a new connection, what became of the transaction
    /// (`txid_status`): committed, the save succeeded; rolled back, it failed and nothing was
    /// saved; and when the server cannot say (it cannot be reached), the error says the outcome
    /// is unknown (`commitOutcomeUnknown`). Nothing is retried.
    private func commit(_ connection: PGConnection, transaction: Int64?) throws(StrataError) {
        do throws(PGError) {
            try connection.query("COMMIT")
        } catch {
            guard !connection.isHealthy else { throw error.strataError(location: location.description) }
            let broke = "the connection to PostgreSQL broke during COMMIT (\(error.message))"
            switch transaction.flatMap(outcome(of:)) {
            case "committed":
                return
            case "aborted":
                throw StrataError(.storeIO, "\(broke); the server rolled the save back: nothing was saved", file: location.description)
            default:
                throw StrataError(
                    .commitOutcomeUnknown,
                    "\(broke), and the server could not be asked since: whether the save was committed is unknown, and it was not retried. Fetch the objects again before saving them again",
                    file: location.description)
            }
        }
    }

    /// What became of a transaction, from a new connection: `committed`, `aborted`, or nil when
    /// the server cannot be reached or still has it in progress after a few seconds (a
    /// `COMMIT` under way when the connection broke ends soon).
    func outcome(of transaction: Int64) -> String? {
        guard let connection = try? pool.connect() else { return nil }
        for _ in 0..<50 {
            guard let status = try? connection.run("SELECT txid_status($1::bigint)", [String(transaction)]).text(0, 0) else { return nil }
            if status != "in progress" { return status }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// The error of a save a uniqueness constraint refused, listing the objects (read after
    /// the failed transaction is rolled back).
    private func uniquenessError(_ changes: StoreChangeset, _ connection: PGConnection) -> StrataError {
        if connection.isInTransaction { _ = try? connection.query("ROLLBACK") }
        return StrataError(
            .validationFailed, "the save would break a uniqueness constraint; nothing was written",
            failures: uniquenessViolations(changes), file: location.description)
    }

    /// What a save changed, as its `strata_history` row keeps it (`Entity/key`).
    struct History {
        var inserted: [String] = []
        var updated: [String] = []
        var deleted: [String] = []
    }

    /// Writes a changeset inside the open transaction and returns the new versions and what
    /// the save changed (for ``recordHistory(_:_:)``); throws on the first problem (the caller
    /// rolls back).
    func apply(_ changes: StoreChangeset, _ connection: PGConnection) throws(StrataError) -> (versions: [ObjectID: Int64], history: History) {
        try checkIdentity(connection)
        let checking = !changes.overwritesConflicts && !changes.restoresVersions
        var conflicts: [ValidationFailure] = []
        var versions: [ObjectID: Int64] = [:]

        // Deletions.
        var deleted: [(entity: PostgresLayout.Entity, key: Int64)] = []
        for (id, version) in changes.deleted {
            guard let (entity, key) = target(id) else { continue }
            var sql = "DELETE FROM \(quoted(entity.table)) WHERE \"_pk\" = $1::bigint"
            var parameters: [String?] = [String(key)]
            if checking {
                sql += " AND \"_version\" = $2::bigint"
                parameters.append(String(version))
            }
            if try connection.run(sql, parameters).affectedRows == 0 {
                if let stored = try storedVersion(entity, key, connection) { conflicts.append(Self.conflict(id, stored, version)) }
                continue
            }
            deleted.append((entity, key))
        }
        for join in layout.joinTables {
            for (entity, key) in deleted {
                if join.sourceRoot == entity.table { try connection.run("DELETE FROM \(quoted(join.name)) WHERE \"source\" = $1::bigint", [String(key)]) }
                if join.destinationRoot == entity.table { try connection.run("DELETE FROM \(quoted(join.name)) WHERE \"destination\" = $1::bigint", [String(key)]) }
            }
        }

        // Updates: every column, at the version read.
        var written: [(record: StoreRecord, entity: PostgresLayout.Entity, key: Int64)] = []
        for record in changes.updated {
            let id = record.objectID
            guard let (entity, key) = target(id) else {
                conflicts.append(Self.deletedSinceRead(id))
                continue
            }
            let columns = try columnValues(of: record, entity)
            let assignments = columns.enumerated().map { "\(quoted($1.column)) = $\($0 + 2)::\($1.type)" }
            var parameters: [String?] = [String(key)] + columns.map(\.value)
            let newVersion = changes.restoresVersions ? "$\(parameters.count + 1)::bigint" : "\"_version\" + 1"
            if changes.restoresVersions { parameters.append(String(record.version)) }
            var sql = "UPDATE \(quoted(entity.table)) SET \"_version\" = \(newVersion)\(assignments.isEmpty ? "" : ", ")\(assignments.joined(separator: ", ")) WHERE \"_pk\" = $1::bigint"
            if entity.hasEntityColumn {
                sql += " AND \"_entity\" = $\(parameters.count + 1)"
                parameters.append(entity.description.name)
            }
            if checking {
                sql += " AND \"_version\" = $\(parameters.count + 1)::bigint"
                parameters.append(String(record.version))
            }
            let result = try connection.run(sql + " RETURNING \"_version\"", parameters)
            if let version = result.count == 1 ? result.int64(0, 0) : nil {
                versions[id] = version
                written.append((record, entity, key))
            } else if let stored = try storedVersion(entity, key, connection) {
                conflicts.append(Self.conflict(id, stored, record.version))
            } else {
                conflicts.append(Self.deletedSinceRead(id))
            }
        }
        guard conflicts.isEmpty else {
            throw StrataError(.mergeConflict, "the save would overwrite changes another context saved since these objects were read", failures: conflicts, file: location.description)
        }

        // Inserts.
        var inserted: [(record: StoreRecord, entity: PostgresLayout.Entity, key: Int64)] = []
        var highestKeys: [String: Int64] = [:]
        for record in changes.inserted {
            let id = record.objectID
            guard let (entity, key) = target(id) else {
                throw StrataError(.invalidObjectID, "\(id) cannot be inserted into this PostgreSQL store: it has another store's or a temporary ID, or an entity the store does not hold", file: location.description)
            }
            var columns = ["\"_pk\"", "\"_version\""]
            var placeholders = ["$1::bigint", "$2::bigint"]
            var parameters: [String?] = [String(key), String(changes.restoresVersions ? record.version : 1)]
            if entity.hasEntityColumn {
                columns.append("\"_entity\"")
                placeholders.append("$3")
                parameters.append(entity.description.name)
            }
            for column in try columnValues(of: record, entity) {
                columns.append(quoted(column.column))
                parameters.append(column.value)
                placeholders.append("$\(parameters.count)::\(column.type)")
            }
            do throws(PGError) {
                try connection.query("INSERT INTO \(quoted(entity.table)) (\(columns.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))", parameters)
            } catch {
                guard error.state == PGError.uniqueViolation else { throw error.strataError(location: location.description) }
                if error.message.contains("_pkey") {
                    throw StrataError(.validationFailed, "an object with primary key \(key) already exists in the '\(entity.table)' hierarchy", file: location.description)
                }
                throw uniquenessError(changes, connection)
            }
            versions[id] = changes.restoresVersions ? record.version : 1
            highestKeys[entity.table] = max(highestKeys[entity.table] ?? 0, key)
            inserted.append((record, entity, key))
        }

        // To-many relationships, once every row exists: inserted records first, then updated.
        for (record, entity, key) in inserted + written {
            for (name, storage) in entity.toMany where !record.lazyToMany.contains(name) {
                try writeMembers(record.toMany[name] ?? [], of: key, entity, storage, connection)
            }
        }

        // Every reference written must find its row, locked until the commit so that no other
        // save deletes it meanwhile; and no one-way reference may still point to a deleted row.
        let dangling = try missingTargets(of: changes.writtenReferences(storeIdentifier: storeIdentifier), connection)
        if !dangling.isEmpty { throw StrataError.danglingReferences(dangling, in: location.description) }
        let stillReferred = try references(toDeleted: deleted, connection)
        if !stillReferred.isEmpty { throw StrataError.referencesToDeleted(stillReferred, in: location.description) }

        for (root, key) in highestKeys.sorted(by: { $0.key < $1.key }) {
            try connection.run(
                "INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES ($1, $2::bigint) ON CONFLICT (\"entity\") DO UPDATE SET \"last\" = greatest(\"strata_keys\".\"last\", excluded.\"last\")",
                [root, String(key)])
        }
        let history = History(
            inserted: inserted.map { PostgresRemoteChanges.text($0.record.objectID) },
            updated: written.map { PostgresRemoteChanges.text($0.record.objectID) },
            deleted: deleted.map { "\($0.entity.description.name)/\($0.key)" })
        return (versions, history)
    }

    /// A `strata_history` row for a save, and the notification of the store's channel (sent
    /// when the transaction commits, never when it rolls back): the save's last statements.
    ///
    /// History rows must become visible in the order of their IDs, or an observer that has read
    /// up to a row misses an earlier one committed after it (IDs come from a sequence when the
    /// row is inserted, commits come later, in any order). So the row is written under a lock
    /// on the table, held until the transaction ends: saves of one store take their IDs and
    /// commit one after the other (PostgreSQL serialises commits that notify anyway). Readers
    /// of the table are not held up.
    ///
    /// Returns the transaction's ID (`txid_current()`), for asking the server what became of
    /// it should the connection break during `COMMIT`.
    func recordHistory(_ history: History, _ connection: PGConnection) throws(StrataError) -> Int64? {
        try connection.run("LOCK TABLE \"strata_history\" IN SHARE ROW EXCLUSIVE MODE")
        try connection.run(
            "INSERT INTO \"strata_history\" (\"origin\", \"inserted\", \"updated\", \"deleted\") VALUES ($1, $2::text[], $3::text[], $4::text[])",
            [instanceIdentifier, Self.array(history.inserted), Self.array(history.updated), Self.array(history.deleted)])
        return try connection.run("SELECT pg_notify($1, $2), txid_current()", [location.channel, instanceIdentifier]).int64(0, 1)
    }

    /// The entity layout and key of an object of this store.
    private func target(_ id: ObjectID) -> (PostgresLayout.Entity, Int64)? {
        guard id.storeIdentifier == storeIdentifier, let key = id.primaryKey, let entity = layout.entities[id.entityName] else { return nil }
        return (entity, key)
    }

    /// Every attribute and to-one column of a record: its name, its type (for the parameter's
    /// cast) and its value's text.
    private func columnValues(of record: StoreRecord, _ entity: PostgresLayout.Entity) throws(StrataError) -> [(column: String, type: String, value: String?)] {
        var columns: [(column: String, type: String, value: String?)] = []
        for (name, type) in entity.attributes {
            columns.append((name, PostgresValueCoding.columnType(type),
                            try PostgresValueCoding.encode(record.attributes[name], attribute: name, entity: entity.description.name)))
        }
        for toOne in entity.toOnes {
            let target = record.toOne[toOne.name]
            columns.append((toOne.name, "bigint", target?.primaryKey.map { String($0) }))
            if let entityColumn = toOne.entityColumn { columns.append((entityColumn, "text", target?.entityName)) }
        }
        return columns
    }

    /// Writes the members of one to-many relationship of a saved object.
    private func writeMembers(_ members: [ObjectID], of key: Int64, _ entity: PostgresLayout.Entity, _ storage: ToManyStorage, _ connection: PGConnection) throws(StrataError) {
        let keys = members.compactMap(\.primaryKey).map { String($0) }
        switch storage {
        case .foreignKey(let table, let column, let orderColumn, _):
            // The members' own to-one values are written with their records; an ordered
            // relationship's positions only here.
            guard let orderColumn else { return }
            let entityColumn = layout.entityColumn(of: column, in: table)
            for (position, member) in keys.enumerated() {
                var sql = "UPDATE \(quoted(table)) SET \(quoted(column)) = $1::bigint, \(quoted(orderColumn)) = $2::bigint"
                var parameters: [String?] = [String(key), String(position), member]
                if let entityColumn {
                    sql += ", \(quoted(entityColumn)) = $4"
                    parameters.append(entity.description.name)
                }
                try connection.run(sql + " WHERE \"_pk\" = $3::bigint", parameters)
            }
        case .joinTable(let table, let own, let other, let orderColumn, _):
            let otherOrderColumn = layout.otherOrderColumn(of: table, other: other)
            try connection.run(
                "DELETE FROM \(quoted(table)) WHERE \(quoted(own)) = $1::bigint AND NOT (\(quoted(other)) = ANY($2::bigint[]))",
                [String(key), Self.array(keys)])
            for (position, member) in keys.enumerated() {
                var columns = [quoted(own), quoted(other)]
                var values = ["$1::bigint", "$2::bigint"]
                var parameters: [String?] = [String(key), member]
                var update = "NOTHING"
                if let orderColumn {
                    columns.append(quoted(orderColumn))
                    values.append("$3::bigint")
                    parameters.append(String(position))
                    update = "UPDATE SET \(quoted(orderColumn)) = excluded.\(quoted(orderColumn))"
                }
                if let otherOrderColumn {
                    // A new row from this side goes last among the other side's members.
                    columns.append(quoted(otherOrderColumn))
                    values.append("(SELECT coalesce(max(\(quoted(otherOrderColumn))) + 1, 0) FROM \(quoted(table)) WHERE \(quoted(other)) = $2::bigint)")
                }
                try connection.run(
                    "INSERT INTO \(quoted(table)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", "))) ON CONFLICT (\"source\", \"destination\") DO \(update)",
                    parameters)
            }
        }
    }

    /// The stored version of an object; nil when no row of its entity has its key.
    private func storedVersion(_ entity: PostgresLayout.Entity, _ key: Int64, _ connection: PGConnection) throws(StrataError) -> Int64? {
        let result = try connection.run(
            "SELECT \"_version\", \(entity.hasEntityColumn ? "\"_entity\"" : "NULL") FROM \(quoted(entity.table)) WHERE \"_pk\" = $1::bigint", [String(key)])
        guard result.count == 1, (result.text(0, 1) ?? entity.table) == entity.description.name else { return nil }
        return result.int64(0, 0)
    }

    private static func conflict(_ id: ObjectID, _ stored: Int64, _ read: Int64) -> ValidationFailure {
        ValidationFailure(code: .conflict, objectID: id, key: nil, message: "changed by another save since it was read (version \(read) read, \(stored) stored)")
    }

    private static func deletedSinceRead(_ id: ObjectID) -> ValidationFailure {
        ValidationFailure(code: .conflict, objectID: id, key: nil, message: "the object was deleted from the store since it was read")
    }

    /// The references whose object has no row (of its own entity); the rows found are locked
    /// against deletion until the transaction ends.
    private func missingTargets(of references: [StoreChangeset.WrittenReference], _ connection: PGConnection) throws(StrataError) -> [StoreChangeset.WrittenReference] {
        guard !references.isEmpty else { return [] }
        var byTable: [String: [StoreChangeset.WrittenReference]] = [:]
        var missing: [StoreChangeset.WrittenReference] = []
        for reference in references {
            guard let entity = layout.entities[reference.target.entityName], reference.target.primaryKey != nil else {
                missing.append(reference)
                continue
            }
            byTable[entity.table, default: []].append(reference)
        }
        for (table, references) in byTable.sorted(by: { $0.key < $1.key }) {
            let hasEntity = layout.tables[table]!.hasEntityColumn
            let keys = Set(references.map { $0.target.primaryKey! }).sorted().map { String($0) }
            let result = try connection.run(
                "SELECT \"_pk\", \(hasEntity ? "\"_entity\"" : "NULL") FROM \(quoted(table)) WHERE \"_pk\" = ANY($1::bigint[]) ORDER BY \"_pk\" FOR KEY SHARE",
                [Self.array(keys)])
            var found: Set<ObjectID> = []
            for row in 0..<result.count {
                guard let key = result.int64(row, 0) else { continue }
                found.insert(ObjectID(entityName: result.text(row, 1) ?? table, storeIdentifier: storeIdentifier, primaryKey: key))
            }
            missing += references.filter { !found.contains($0.target) }
        }
        return missing
    }

    /// Rows that still refer to deleted objects through to-one relationships without an inverse.
    private func references(toDeleted deleted: [(entity: PostgresLayout.Entity, key: Int64)], _ connection: PGConnection) throws(StrataError) -> [StoreChangeset.WrittenReference] {
        guard !deleted.isEmpty, !layout.schema.oneWayRelationships.isEmpty else { return [] }
        let relationships = layout.schema.oneWayRelationships(into: Set(deleted.map(\.entity.description.name))).filter { !$0.relationship.isToMany }
        var found: [StoreChangeset.WrittenReference] = []
        for oneWay in relationships {
            guard let source = layout.entities[oneWay.entity] else { continue }
            let targets = deleted.filter { $0.entity.description.isKind(of: oneWay.relationship.destination) }
            guard !targets.isEmpty else { continue }
            var byKey: [Int64: PostgresLayout.Entity] = [:]
            for target in targets { byKey[target.key] = target.entity }
            let column = quoted(oneWay.relationship.name)
            let result = try connection.run(
                "SELECT \"_pk\", \(column), \(source.hasEntityColumn ? "\"_entity\"" : "NULL") FROM \(quoted(source.table)) WHERE \(column) = ANY($1::bigint[])",
                [Self.array(targets.map { String($0.key) })])
            for row in 0..<result.count {
                guard let key = result.int64(row, 0), let targetKey = result.int64(row, 1), let target = byKey[targetKey] else { continue }
                found.append(StoreChangeset.WrittenReference(
                    source: ObjectID(entityName: result.text(row, 2) ?? source.table, storeIdentifier: storeIdentifier, primaryKey: key),
                    key: oneWay.relationship.name,
                    target: ObjectID(entityName: target.description.name, storeIdentifier: storeIdentifier, primaryKey: targetKey)))
            }
        }
        return found
    }
}
