/// Applying a changeset to an atomic store's contents: the read-modify-write's "modify" step,
/// the same whether the contents are what this store loaded or what another process saved
/// since (a rebase).
extension AtomicStore {
    /// The contents after a save, with what the save reports.
    struct AppliedChanges {
        var contents: AtomicStoreContents
        var result: StoreSaveResult
    }

    /// Applies `changes` to `base` under the optimistic-locking rules.
    ///
    /// - Inserted objects keep their keys when no object of their hierarchy holds them; an object
    ///   in `changes.reassignableIDs` whose key is taken gets the next free key, and every
    ///   reference to it in the changeset follows; any other taken key is an error.
    /// - Updated and deleted objects must still have the version the context read, unless
    ///   `changes.overwritesConflicts` (then the last writer wins); an updated object that is
    ///   gone is always a conflict.
    /// - Key sequences are the larger of `base`'s and `allocated` (keys this store handed out).
    /// - With `changes.restoresVersions` (undoing a save), versions are not checked and records
    ///   keep the versions they carry.
    /// - Every reference the save writes must find its object in the result
    ///   (``StoreChangeset/writtenReferences(storeIdentifier:reassigned:)``).
    /// - Uniqueness constraints are checked on the result.
    /// - Parameter rebasing: whether `base` is another process's save (wording of errors only).
    /// - Throws: `mergeConflict` naming every conflicting object or dangling reference; `validationFailed` for a taken
    ///   key or a broken uniqueness constraint. `base` is never changed.
    static func apply(
        _ changes: StoreChangeset, to base: AtomicStoreContents, allocated: [String: Int64], schema: Schema, rebasing: Bool
    ) throws(StrataError) -> AppliedChanges {
        var next = base
        for (root, key) in allocated where key > next.keySequences[root, default: 0] {
            next.keySequences[root] = key
        }
        var hierarchies: [String: [String]] = [:]
        func hierarchy(_ root: String) -> [String] {
            if let names = hierarchies[root] { return names }
            let names = schema.entityAndDescendants(of: root).map(\.name)
            hierarchies[root] = names
            return names
        }
        func rootName(_ id: ObjectID) -> String { schema.entity(named: id.entityName)?.rootName ?? id.entityName }
        func isTaken(_ key: Int64, root: String) -> Bool {
            hierarchy(root).contains { entity in
                next.contains(ObjectID(entityName: entity, storeIdentifier: base.metadata.storeIdentifier, primaryKey: key))
            }
        }

        // Inserted keys: kept when free, fresh for store-allocated ones another save took.
        var claimed: [String: Set<Int64>] = [:]
        var displaced: [ObjectID] = []
        for record in changes.inserted {
            let id = record.objectID
            let root = rootName(id)
            let key = id.primaryKey ?? 0
            if isTaken(key, root: root) || claimed[root]?.contains(key) == true {
                guard changes.reassignableIDs.contains(id) else {
                    throw StrataError(
                        .validationFailed,
                        "an object with primary key \(key) already exists in the '\(root)' hierarchy\(rebasing ? " (saved by another process since this store was loaded); nothing was saved" : "")")
                }
                displaced.append(id)
            } else {
                claimed[root, default: []].insert(key)
            }
        }
        var reassigned: [ObjectID: ObjectID] = [:]
        for id in displaced {
            let root = rootName(id)
            var candidate = next.keySequences[root, default: 0]
            for key in claimed[root] ?? [] where key > candidate { candidate = key }
            repeat {
                guard candidate < Int64.max else {
                    throw StrataError(.validationFailed, "the '\(root)' hierarchy has no primary key left above \(candidate)")
                }
                candidate += 1
            } while isTaken(candidate, root: root) || claimed[root]?.contains(candidate) == true
            claimed[root, default: []].insert(candidate)
            reassigned[id] = ObjectID(entityName: id.entityName, storeIdentifier: base.metadata.storeIdentifier, primaryKey: candidate)
        }
        func remap(_ record: StoreRecord) -> StoreRecord {
            reassigned.isEmpty ? record : record.mappingIDs { reassigned[$0] ?? $0 }
        }

        var conflicts: [ValidationFailure] = []
        var versions: [ObjectID: Int64] = [:]
        let checking = !changes.overwritesConflicts && !changes.restoresVersions
        for (id, version) in changes.deleted {
            guard let existing = next.record(id) else { continue }
            if checking && existing.version != version {
                conflicts.append(conflict(id, existing.version, version, rebasing: rebasing))
            }
            next.records[id.entityName]?[id] = nil
        }
        for updated in changes.updated {
            var record = remap(updated)
            let id = record.objectID
            guard let existing = next.record(id) else {
                conflicts.append(ValidationFailure(
                    code: .conflict, objectID: id, key: nil,
                    message: "the object was deleted from the store since it was read\(rebasing ? " (by another process)" : "")"))
                continue
            }
            if checking && existing.version != record.version {
                conflicts.append(conflict(id, existing.version, record.version, rebasing: rebasing))
            }
            // A to-many the context never loaded keeps its stored members.
            for name in record.lazyToMany { record.toMany[name] = existing.toMany[name] }
            record.lazyToMany = []
            if !changes.restoresVersions { record.version = existing.version + 1 }
            versions[id] = record.version
            next.records[id.entityName, default: [:]][id] = record
        }
        if !conflicts.isEmpty {
            throw StrataError(
                .mergeConflict,
                "the save would overwrite changes \(rebasing ? "another process" : "another context") saved since these objects were read",
                failures: conflicts)
        }
        var checked: [ObjectID] = changes.updated.map { reassigned[$0.objectID] ?? $0.objectID }
        checked.reserveCapacity(checked.count + changes.inserted.count)
        versions.reserveCapacity(changes.updated.count + changes.inserted.count)
        // Room for the new records, so that a large save does not grow the tables step by step.
        var insertedCounts: [String: Int] = [:]
        for record in changes.inserted { insertedCounts[record.objectID.entityName, default: 0] += 1 }
        for (entity, count) in insertedCounts {
            next.records[entity, default: [:]].reserveCapacity((next.records[entity]?.count ?? 0) + count)
        }
        for inserted in changes.inserted {
            var record = remap(inserted)
            let id = record.objectID
            if !changes.restoresVersions { record.version = 1 }
            record.lazyToMany = []
            versions[id] = record.version
            next.records[id.entityName, default: [:]][id] = record
            checked.append(id)
            let root = rootName(id)
            if let key = id.primaryKey, key > next.keySequences[root, default: 0] {
                next.keySequences[root] = key
            }
        }
        // Every reference written must find its object: another save may have deleted it since
        // it was read.
        let dangling = changes.writtenReferences(storeIdentifier: base.metadata.storeIdentifier, reassigned: reassigned)
            .filter { !next.contains($0.target) }
        if !dangling.isEmpty { throw StrataError.danglingReferences(dangling, in: nil) }
        let stillReferred = references(toDeletedIn: changes, from: next, schema: schema)
        if !stillReferred.isEmpty { throw StrataError.referencesToDeleted(stillReferred, in: nil) }
        // Without reassigned keys, `next` holds what `changes` leaves of `base`, which the
        // checker reads without the copy of every record a search of `next` makes.
        let violations = reassigned.isEmpty
            ? UniquenessChecker.violations(of: changes, in: base, schema: schema)
            : UniquenessChecker.violations(in: next, schema: schema, checking: checked)
        if !violations.isEmpty {
            throw StrataError(.validationFailed, "the save would break a uniqueness constraint\(rebasing ? " (with objects another process saved)" : "")", failures: violations)
        }
        return AppliedChanges(contents: next, result: StoreSaveResult(versions: versions, reassignedIDs: reassigned))
    }

    /// References left in `contents` to objects `changes` deletes, through relationships
    /// without an inverse (the context clears those it finds before saving; these were saved
    /// since by another save).
    private static func references(toDeletedIn changes: StoreChangeset, from contents: AtomicStoreContents, schema: Schema) -> [StoreChangeset.WrittenReference] {
        guard !changes.deleted.isEmpty, !schema.oneWayRelationships.isEmpty else { return [] }
        let deleted = Set(changes.deleted.map(\.objectID))
        var found: [StoreChangeset.WrittenReference] = []
        for oneWay in schema.oneWayRelationships(into: Set(deleted.map(\.entityName))) {
            let (entity, relationship) = (oneWay.entity, oneWay.relationship)
            for source in schema.entityAndDescendants(of: entity) {
                for record in contents.records[source.name]?.values ?? [:].values {
                    if let target = record.toOne[relationship.name], deleted.contains(target) {
                        found.append(StoreChangeset.WrittenReference(source: record.objectID, key: relationship.name, target: target))
                    }
                    for target in record.toMany[relationship.name] ?? [] where deleted.contains(target) {
                        found.append(StoreChangeset.WrittenReference(source: record.objectID, key: relationship.name, target: target))
                    }
                }
            }
        }
        return found
    }

    /// The records of a file another process wrote, with versions this store can compare: an
    /// object unchanged since `loaded` keeps the version this store gave it; an object changed
    /// by the other process gets one above it, so that a context that read it before the change
    /// meets a merge conflict. (The XML layout keeps no versions, and even a format that does
    /// cannot tell this store's in-memory versions from the other process's.)
    static func carryingVersions(from loaded: AtomicStoreContents, into reloaded: inout AtomicStoreContents, schema: Schema) {
        for (entity, records) in reloaded.records {
            guard let before = loaded.records[entity] else { continue }
            let description = schema.entity(named: entity)
            for (id, record) in records {
                guard let previous = before[id] else { continue }
                let same = sameStoredState(record, previous, description)
                reloaded.records[entity]![id]!.version = same ? previous.version : max(record.version, previous.version + 1)
            }
        }
    }

    /// Whether two records of one object hold the same values and references; the members of
    /// an unordered to-many compare as sets (files keep them in key order, a save in the order
    /// it was given).
    private static func sameStoredState(_ a: StoreRecord, _ b: StoreRecord, _ entity: EntityDescription?) -> Bool {
        guard a.attributes == b.attributes, a.toOne == b.toOne else { return false }
        for name in Set(a.toMany.keys).union(b.toMany.keys) {
            let (left, right) = (a.toMany[name] ?? [], b.toMany[name] ?? [])
            if entity?.relationship(named: name)?.isOrdered == true {
                guard left == right else { return false }
            } else {
                guard left.count == right.count, Set(left) == Set(right) else { return false }
            }
        }
        return true
    }

    private static func conflict(_ id: ObjectID, _ stored: Int64, _ read: Int64, rebasing: Bool) -> ValidationFailure {
        ValidationFailure(
            code: .conflict, objectID: id, key: nil,
            message: "changed by another save\(rebasing ? " (of another process)" : "") since it was read (version \(read) read, \(stored) stored)")
    }
}
