public import Strata

extension SQLiteStore {
    /// The uniqueness violations a changeset would cause, found with SELECTs and without
    /// writing: the same failures, in the same order and naming the same objects, as the atomic
    /// stores' `UniquenessChecker` reports for the state after the save.
    public func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] {
        (try? pool.read { (database) throws(StrataError) -> [ValidationFailure] in try uniquenessViolations(changes, database) }) ?? []
    }

    func uniquenessViolations(_ changes: StoreChangeset, _ database: Database) throws(StrataError) -> [ValidationFailure] {
        let changed = changes.inserted + changes.updated
        guard !changed.isEmpty else { return [] }
        // Stored rows replaced or removed by the changeset do not count as they are stored.
        var replaced: Set<ObjectID> = Set(changes.deleted.map(\.objectID))
        for record in changed where record.objectID.storeIdentifier == storeIdentifier { replaced.insert(record.objectID) }
        let changedEntities = Set(changed.map(\.objectID.entityName))
        var failures: [ValidationFailure] = []
        for owner in layout.schema.entities where !owner.uniquenessConstraints.isEmpty {
            guard let ownerLayout = layout.entities[owner.name] else { continue }
            let covered = layout.schema.entityAndDescendants(of: owner.name).map(\.name)
            guard covered.contains(where: changedEntities.contains) else { continue }
            let coveredSet = Set(covered)
            let candidates = changed.filter { coveredSet.contains($0.objectID.entityName) }.sorted { $0.objectID < $1.objectID }
            let table = ownerLayout.table
            // A table with no rows yet (a first load) has nothing stored to collide with: only
            // the changeset's own records are compared with each other.
            let hasStoredRows = try !database.rows("SELECT 1 FROM \(quoted(table.name)) LIMIT 1", []) { _ in true }.isEmpty
            for constraint in owner.uniquenessConstraints {
                var terms: [String] = []
                for (position, name) in constraint.enumerated() {
                    guard table.column(name) != nil else { continue }
                    terms.append("\(table.comparisonKey(name, alias: nil) ?? quoted(name)) = ?\(position + 1)")
                }
                var sql = "SELECT \"_pk\"\(table.hasEntityColumn ? ", \"_entity\"" : "") FROM \(quoted(table.name)) WHERE \(terms.joined(separator: " AND "))"
                if table.hasEntityColumn && covered.count < table.entityNames.count {
                    sql += " AND \"_entity\" IN (\(covered.map(literal).joined(separator: ", ")))"
                }
                sql += " ORDER BY \(table.hasEntityColumn ? "\"_entity\", " : "")\"_pk\""
                var seen: [[SQLValue]: ObjectID] = [:]
                for record in candidates {
                    guard let key = uniqueKey(record, constraint).map({ normalized($0, constraint, table) }) else { continue }
                    let stored = !hasStoredRows ? [] : try database.rows(sql, key) { row in
                        ObjectID(entityName: table.hasEntityColumn ? row.text(1) : table.name, storeIdentifier: storeIdentifier, primaryKey: row.int64(0))
                    }
                    if let other = stored.first(where: { !replaced.contains($0) }) {
                        failures.append(.notUnique(record.objectID, other, constraint))
                    } else if let other = seen[key] {
                        failures.append(.notUnique(record.objectID, other, constraint))
                    } else {
                        seen[key] = record.objectID
                    }
                }
            }
        }
        return failures
    }

    /// The values of a constraint's properties, bound as stored; nil when one is nil (a
    /// combination with a nil member never conflicts).
    private func uniqueKey(_ record: StoreRecord, _ constraint: [String]) -> [SQLValue]? {
        var key: [SQLValue] = []
        for name in constraint {
            if let value = record.attributes[name] {
                key.append(ValueCodec.encode(value))
            } else if let id = record.toOne[name], let pk = id.primaryKey {
                key.append(.integer(pk))
            } else {
                return nil
            }
        }
        return key
    }

    /// A key that is equal for values the constraint treats as equal (canonically equivalent
    /// strings, equal decimals, -0.0 and 0.0): what the unique index holds, bound in the SELECT
    /// and compared between records of the changeset.
    private func normalized(_ key: [SQLValue], _ constraint: [String], _ table: TableLayout) -> [SQLValue] {
        zip(key, constraint).map { value, name in
            switch (value, table.column(name)?.role) {
            case (_, .attribute(let type)?) where table.comparisonKey(name, alias: nil) != nil:
                return ComparisonKey.comparable(value, type: type)
            case (.real(let real), _):
                return .real(real == 0 ? 0 : real)
            default:
                return value
            }
        }
    }
}
