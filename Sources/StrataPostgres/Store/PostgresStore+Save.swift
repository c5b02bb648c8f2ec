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
                    let (versions, history) = try apply(changes, connection, beginning: "BEGIN ISOLATION LEVEL READ COMMITTED", keysInHistory: true)
                    let transaction = try recordHistory(history, changes, connection)
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
        var inserted: [ObjectID] = []
        var updated: [ObjectID] = []
        var deleted: [(entity: String, key: Int64)] = []
        /// The highest key the save inserted into each table, for `strata_keys`, when the
        /// caller writes them (``apply(_:_:beginning:keysInHistory:)``).
        var highestKeys: [String: Int64] = [:]
    }

    /// Writes a changeset inside the open transaction and returns the new versions and what
    /// the save changed (for ``recordHistory(_:_:_:)``); throws on the first problem (the caller
    /// rolls back). `beginning` (the transaction's `BEGIN`) is sent with the first statements.
    /// With `keysInHistory`, the keys inserted are left in the history for
    /// ``recordHistory(_:_:_:)`` to write to `strata_keys`, else they are written here.
    ///
    /// Statements that do not depend on each other's answers go in one round trip each
    /// (pipelines): the deletions, the updates, the inserts, the to-many relationships' rows.
    func apply(_ changes: StoreChangeset, _ connection: PGConnection, beginning: String? = nil, keysInHistory: Bool = false) throws(StrataError) -> (versions: [ObjectID: Int64], history: History) {
        try checkIdentity(connection, beginning: beginning)
        let checking = !changes.overwritesConflicts && !changes.restoresVersions
        var conflicts: [ValidationFailure] = []
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(changes.inserted.count + changes.updated.count)

        // Deletions.
        var deletions: [(id: ObjectID, version: Int64, entity: PostgresLayout.Entity, key: Int64)] = []
        var statements: [(sql: String, parameters: [String?])] = []
        for (id, version) in changes.deleted {
            guard let (entity, key) = target(id) else { continue }
            var sql = "DELETE FROM \(quoted(entity.table)) WHERE \"_pk\" = $1::bigint"
            var parameters: [String?] = [String(key)]
            if checking {
                sql += " AND \"_version\" = $2::bigint"
                parameters.append(String(version))
            }
            statements.append((sql, parameters))
            deletions.append((id, version, entity, key))
        }
        var deleted: [(entity: PostgresLayout.Entity, key: Int64)] = []
        for (deletion, result) in zip(deletions, try run(statements, connection)) {
            if result.affectedRows == 0 {
                if let stored = try storedVersion(deletion.entity, deletion.key, connection) { conflicts.append(Self.conflict(deletion.id, stored, deletion.version)) }
                continue
            }
            deleted.append((deletion.entity, deletion.key))
        }
        statements = []
        for join in layout.joinTables {
            for (entity, key) in deleted {
                if join.sourceRoot == entity.table { statements.append(("DELETE FROM \(quoted(join.name)) WHERE \"source\" = $1::bigint", [String(key)])) }
                if join.destinationRoot == entity.table { statements.append(("DELETE FROM \(quoted(join.name)) WHERE \"destination\" = $1::bigint", [String(key)])) }
            }
        }
        _ = try run(statements, connection)

        // Updates: every column, at the version read.
        var written: [(record: StoreRecord, entity: PostgresLayout.Entity, key: Int64)] = []
        var updates: [(record: StoreRecord, entity: PostgresLayout.Entity, key: Int64)] = []
        statements = []
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
            statements.append((sql + " RETURNING \"_version\"", parameters))
            updates.append((record, entity, key))
        }
        for (update, result) in zip(updates, try run(statements, connection)) {
            let id = update.record.objectID
            if let version = result.count == 1 ? result.int64(0, 0) : nil {
                versions[id] = version
                written.append(update)
            } else if let stored = try storedVersion(update.entity, update.key, connection) {
                conflicts.append(Self.conflict(id, stored, update.record.version))
            } else {
                conflicts.append(Self.deletedSinceRead(id))
            }
        }
        guard conflicts.isEmpty else {
            throw StrataError(.mergeConflict, "the save would overwrite changes another context saved since these objects were read", failures: conflicts, file: location.description)
        }

        // Inserts: runs of records of one entity, many rows a statement, all in one round trip.
        let (inserted, highestKeys) = try insert(changes, connection)
        for row in inserted {
            let record = changes.inserted[row.index]
            versions[record.objectID] = changes.restoresVersions ? record.version : 1
        }

        // To-many relationships, once every row exists: inserted records first, then updated.
        statements = []
        if layout.entities.values.contains(where: { !$0.toMany.isEmpty }) {
            func write(_ record: StoreRecord, _ entity: PostgresLayout.Entity, _ key: Int64) {
                for (name, storage) in entity.toMany where !record.lazyToMany.contains(name) {
                    writeMembers(record.toMany[name] ?? [], of: key, entity, storage, into: &statements)
                }
            }
            for row in inserted {
                let record = changes.inserted[row.index]
                if let entity = layout.entities[record.objectID.entityName], !entity.toMany.isEmpty { write(record, entity, row.key) }
            }
            for (record, entity, key) in written { write(record, entity, key) }
        }
        _ = try run(statements, connection)

        // Every reference written must find its row, locked until the commit so that no other
        // save deletes it meanwhile; and no one-way reference may still point to a deleted row.
        let dangling = try missingTargets(of: changes.writtenReferences(storeIdentifier: storeIdentifier), connection)
        if !dangling.isEmpty { throw StrataError.danglingReferences(dangling, in: location.description) }
        let stillReferred = try references(toDeleted: deleted, connection)
        if !stillReferred.isEmpty { throw StrataError.referencesToDeleted(stillReferred, in: location.description) }

        let history = History(
            inserted: inserted.map { changes.inserted[$0.index].objectID },
            updated: written.map(\.record.objectID),
            deleted: deleted.map { ($0.entity.description.name, $0.key) },
            highestKeys: highestKeys)
        if !keysInHistory { _ = try run(Self.keyStatements(highestKeys), connection) }
        return (versions, history)
    }

    /// How many rows one INSERT of a save writes at most (one array per column of them).
    static let rowsPerInsert = 5_000

    /// Inserts a changeset's records: each run of records of one entity (up to
    /// ``rowsPerInsert``) as one `INSERT … SELECT … FROM unnest(…)` with an array per column in
    /// the binary format, every statement sent before the first answer comes back (a pipeline).
    /// From a record with a value that is not of its attribute's type on, records go one
    /// statement a row with text values, as the server reads those. Returns the inserted
    /// records, and the highest key inserted into each table.
    private func insert(_ changes: StoreChangeset, _ connection: PGConnection) throws(StrataError) -> (inserted: [(index: Int, key: Int64)], highestKeys: [String: Int64]) {
        // Each inserted record by its position in the changeset, with its key.
        var inserted: [(index: Int, key: Int64)] = []
        inserted.reserveCapacity(changes.inserted.count)
        var highestKeys: [String: Int64] = [:]
        let records = changes.inserted
        var start = 0
        try connection.pipeline { (pipeline) throws(StrataError) in
            // The table of each statement sent, to name it in a duplicate key's error.
            var tables: [String] = []
            while start < records.count {
                guard let (entity, firstKey) = target(records[start].objectID) else { throw notInsertable(records[start].objectID) }
                var keys = [firstKey]
                var end = start + 1
                let name = entity.description.name
                while end < records.count, end - start < Self.rowsPerInsert {
                    let id = records[end].objectID
                    guard id.entityName == name, id.storeIdentifier == storeIdentifier, let key = id.primaryKey else { break }
                    keys.append(key)
                    end += 1
                }
                guard let (sql, parameters) = try insertStatement(records[start..<end], keys, entity, restoringVersions: changes.restoresVersions) else { break }
                do throws(PGError) { try pipeline.send(sql, parameters) } catch { throw error.strataError(location: location.description) }
                tables.append(entity.table)
                for (index, key) in zip(start..<end, keys) { inserted.append((index, key)) }
                highestKeys[entity.table] = max(highestKeys[entity.table] ?? 0, keys.max()!)
                start = end
            }
            do throws(PGError) {
                _ = try pipeline.finish()
            } catch {
                throw insertError(error, table: pipeline.failedStatement.map { tables[$0] }, changes, connection)
            }
        }
        for (index, record) in zip(start..., records[start...]) {
            guard let (entity, key) = target(record.objectID) else { throw notInsertable(record.objectID) }
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
                throw insertError(error, table: entity.table, changes, connection)
            }
            highestKeys[entity.table] = max(highestKeys[entity.table] ?? 0, key)
            inserted.append((index, key))
        }
        return (inserted, highestKeys)
    }

    /// The multi-row INSERT of records of one entity (``insert(_:_:)``): `_pk`, `_version`,
    /// `_entity`, then each attribute and to-one column, each as an array; nil when a value is
    /// not of its attribute's type.
    private func insertStatement(_ records: ArraySlice<StoreRecord>, _ keys: [Int64], _ entity: PostgresLayout.Entity, restoringVersions: Bool) throws(StrataError) -> (String, PGParameters)? {
        var parameters = PGParameters()
        var targets: [String] = []
        var arrays: [String] = []
        var values: [String] = []
        func column(_ name: String, array: String, cast: String = "") {
            targets.append(quoted(name))
            arrays.append("$\(parameters.count)::\(array)")
            values.append("u.c\(arrays.count)\(cast)")
        }
        parameters.appendArray(of: .int8) { array in for key in keys { array.append(element: key) } }
        column("_pk", array: "bigint[]")
        if restoringVersions {
            parameters.appendArray(of: .int8) { array in for record in records { array.append(element: record.version) } }
            column("_version", array: "bigint[]")
        } else {
            targets.append("\"_version\"")
            values.append("1")
        }
        if entity.hasEntityColumn {
            parameters.append(text: entity.description.name)
            targets.append("\"_entity\"")
            values.append("$\(parameters.count)")
        }
        // Each record's values once (not the whole record for each column), and whether they
        // are laid out by the entity (then read by position).
        let layout = entity.description.attributeLayout
        let attributeValues = records.map(\.attributes)
        let laidOut = attributeValues.allSatisfy { $0.layout === layout }
        for (name, type) in entity.attributes {
            let position = laidOut ? layout.position(of: name) : nil
            let (element, array, cast) = PostgresValueCoding.arrayElement(type)
            var matches = true
            try parameters.appendArray(of: element) { (writer) throws(StrataError) in
                for values in attributeValues where matches {
                    let value: AttributeValue?
                    if let position { value = values[position: position] } else { value = values[name] }
                    matches = try PostgresValueCoding.append(value, as: type, to: &writer, attribute: name, entity: entity.description.name)
                }
            }
            guard matches else { return nil }
            column(name, array: array, cast: cast)
        }
        for toOne in entity.toOnes {
            parameters.appendArray(of: .int8) { array in
                for record in records {
                    if let key = record.toOne[toOne.name]?.primaryKey { array.append(element: key) } else { array.appendNull() }
                }
            }
            column(toOne.name, array: "bigint[]")
            if let entityColumn = toOne.entityColumn {
                parameters.appendArray(of: .text) { array in
                    for record in records {
                        if let name = record.toOne[toOne.name]?.entityName { array.append(element: name) } else { array.appendNull() }
                    }
                }
                column(entityColumn, array: "text[]")
            }
        }
        let names = (1...arrays.count).map { "c\($0)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(quoted(entity.table)) (\(targets.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(names))"
        return (sql, parameters)
    }

    /// The error of an INSERT into `table` the server refused: a duplicate primary key (named
    /// from the server's detail), a broken uniqueness constraint, or the server's own error.
    private func insertError(_ error: PGError, table: String?, _ changes: StoreChangeset, _ connection: PGConnection) -> StrataError {
        guard error.state == PGError.uniqueViolation else { return error.strataError(location: location.description) }
        if error.message.contains("_pkey") {
            // "Key (_pk)=(7) already exists."
            let key = error.detail.split(separator: "=(", maxSplits: 1).last.flatMap { $0.split(separator: ")").first }.flatMap { Int64($0) }
            return StrataError(.validationFailed, "an object with primary key \(key.map(String.init) ?? "?") already exists in the '\(table ?? "?")' hierarchy", file: location.description)
        }
        return uniquenessError(changes, connection)
    }

    private func notInsertable(_ id: ObjectID) -> StrataError {
        StrataError(.invalidObjectID, "\(id) cannot be inserted into this PostgreSQL store: it has another store's or a temporary ID, or an entity the store does not hold", file: location.description)
    }

    /// The save's last statements, in one round trip: the highest keys it inserted into
    /// `strata_keys`, the check of the deferred uniqueness constraints (a violation fails the
    /// save with `validationFailed`, listing the objects), and a `strata_history` row with the
    /// notification of the store's channel (sent when the transaction commits, never when it
    /// rolls back).
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
    func recordHistory(_ history: History, _ changes: StoreChangeset, _ connection: PGConnection) throws(StrataError) -> Int64? {
        var statements = Self.keyStatements(history.highestKeys).map { ($0.sql, PGParameters($0.parameters)) }
        let constraints = statements.count
        statements.append(("SET CONSTRAINTS ALL IMMEDIATE", PGParameters()))
        statements.append(("LOCK TABLE \"strata_history\" IN SHARE ROW EXCLUSIVE MODE", PGParameters()))
        // The names as binary text arrays.
        var row = PGParameters()
        row.append(text: instanceIdentifier)
        for ids in [history.inserted, history.updated] {
            row.appendArray(of: .text) { array in for id in ids { array.append(element: id.entityName, key: id.primaryKey ?? 0) } }
        }
        row.appendArray(of: .text) { array in for (entity, key) in history.deleted { array.append(element: entity, key: key) } }
        statements.append(("INSERT INTO \"strata_history\" (\"origin\", \"inserted\", \"updated\", \"deleted\") VALUES ($1, $2::text[], $3::text[], $4::text[])", row))
        statements.append(("SELECT pg_notify($1, $2), txid_current()", PGParameters([location.channel, instanceIdentifier])))
        return try connection.pipeline { (pipeline) throws(StrataError) -> Int64? in
            do throws(PGError) {
                for (sql, parameters) in statements { try pipeline.send(sql, parameters) }
                return try pipeline.finish().last?.int64(0, 1)
            } catch {
                guard pipeline.failedStatement == constraints, error.state == PGError.exclusionViolation || error.state == PGError.uniqueViolation else {
                    throw error.strataError(location: location.description)
                }
                throw uniquenessError(changes, connection)
            }
        }
    }

    /// Raises each table's `strata_keys` counter to the highest key a save inserted.
    private static func keyStatements(_ highestKeys: [String: Int64]) -> [(sql: String, parameters: [String?])] {
        highestKeys.sorted(by: { $0.key < $1.key }).map { root, key in
            ("INSERT INTO \"strata_keys\" (\"entity\", \"last\") VALUES ($1, $2::bigint) ON CONFLICT (\"entity\") DO UPDATE SET \"last\" = greatest(\"strata_keys\".\"last\", excluded.\"last\")",
             [root, String(key)])
        }
    }

    /// Runs statements of text parameters in one round trip (a pipeline) and returns their
    /// results, in order; none for none.
    private func run(_ statements: [(sql: String, parameters: [String?])], _ connection: PGConnection) throws(StrataError) -> [PGResult] {
        guard !statements.isEmpty else { return [] }
        return try connection.pipeline { (pipeline) throws(StrataError) -> [PGResult] in
            do throws(PGError) {
                for (sql, parameters) in statements { try pipeline.send(sql, PGParameters(parameters)) }
                return try pipeline.finish()
            } catch {
                throw error.strataError(location: location.description)
            }
        }
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

    /// The statements that write the members of one to-many relationship of a saved object.
    private func writeMembers(_ members: [ObjectID], of key: Int64, _ entity: PostgresLayout.Entity, _ storage: ToManyStorage, into statements: inout [(sql: String, parameters: [String?])]) {
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
                statements.append((sql + " WHERE \"_pk\" = $3::bigint", parameters))
            }
        case .joinTable(let table, let own, let other, let orderColumn, _):
            let otherOrderColumn = layout.otherOrderColumn(of: table, other: other)
            statements.append((
                "DELETE FROM \(quoted(table)) WHERE \(quoted(own)) = $1::bigint AND NOT (\(quoted(other)) = ANY($2::bigint[]))",
                [String(key), Self.array(keys)]))
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
                statements.append((
                    "INSERT INTO \(quoted(table)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", "))) ON CONFLICT (\"source\", \"destination\") DO \(update)",
                    parameters))
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
