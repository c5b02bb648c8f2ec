extension ManagedObjectContext {
    /// Saves every change at once.
    ///
    /// Validates everything first and reports every problem together: required values, integer
    /// ranges, min/max, string length and pattern, relationship counts, uniqueness constraints
    /// (against stored data too) and the `deny` delete rule. Then IDs become permanent and the
    /// coordinator saves one changeset. On any failure the stores are unchanged and this context
    /// keeps its changes.
    ///
    /// Objects another context or process saved since this one read them, and new objects
    /// whose unique values an existing object has, are resolved by ``mergePolicy`` (see
    /// ``MergePolicy``) and the save goes on; under `.error` they fail it.
    /// - Throws: ``StrataError`` — `validationFailed` with ``StrataError/failures``,
    ///   `mergeConflict` under the `.error` merge policy (and under the policies where this
    ///   context's changes win, for an object the store no longer holds — no policy brings a
    ///   deleted object back), or a store's error.
    public func save() throws(StrataError) {
        processPendingMerges()
        observation?.flush()
        guard hasChanges else { return }
        if let error = unreadableObjectError() { throw error }
        try releaseOneWayReferences()
        for object in Array(changed.values) where object.hasChanges && !object.isDeleted {
            object.willSave()
        }
        var (changes, sorted, failures) = makeChanges(Array(changed.values))
        if parent != nil {
            // A child's save goes to its parent; the root checks uniqueness against the stores.
            guard failures.isEmpty else { throw StrataError.saveRefused(failures) }
            let gone = deletedInParent(sorted)
            if !gone.isEmpty {
                // As for objects another save deleted from the store (``MergePolicy``): the
                // deletion wins under `mergeByPropertyStoreTrump` and `rollback`.
                guard mergePolicy != .error, !mergePolicy.objectTrumps, resolvingConflicts < Self.conflictRounds else {
                    throw StrataError.deletedInParent(gone)
                }
                forgetDeletedFromStore(gone)
                return try saveAgain()
            }
            saveIntoParent(sorted)
            notifyDidSave(sorted)
            return
        }
        failures += try coordinator.uniquenessViolations(changes)
        guard failures.isEmpty else {
            // New objects that collide with others under a uniqueness constraint become
            // updates of those (an upsert) under every policy but `.error`; what is left fails.
            if resolvingConflicts < Self.conflictRounds, try resolveConstraintConflicts(failures) {
                return try saveAgain()
            }
            throw StrataError.saveRefused(failures)
        }
        let outcome: PersistentStoreCoordinator.SaveOutcome
        do {
            outcome = try coordinator.save(changes, from: identifier)
        } catch let error where error.code == .mergeConflict && resolvingConflicts < Self.conflictRounds {
            // Resolved by the merge policy (``MergePolicy``), then saved again.
            guard resolveMergeConflicts(error) else { throw error }
            return try saveAgain()
        } catch let error where error.code == .validationFailed && resolvingConflicts < Self.conflictRounds {
            // Another process saved an object with the same unique values since the check.
            guard try resolveConstraintConflicts(error.failures) else { throw error }
            return try saveAgain()
        }
        didSave(sorted, outcome)
        observation?.didSave()
        // After the observers took in the save: what the objects change in their hook is
        // reported as a change of its own, not dropped with the save's.
        notifyDidSave(sorted)
    }

    /// Saves again after resolving conflicts, one round deeper.
    private func saveAgain() throws(StrataError) {
        resolvingConflicts += 1
        defer { resolvingConflicts -= 1 }
        try save()
    }

    /// Removes the objects this save deletes from relationships without an inverse that refer
    /// to them — stored or set in this context — as the `nullify` rule would from an inverse.
    /// Core Data leaves such references to the app (and fails the next save of the referring
    /// object with a dangling reference); a store must never hold a reference to nothing, so
    /// Strata clears them. One fetch of stored IDs per such relationship whose destination this
    /// save deletes objects of, and a look at this context's changed objects; the referring
    /// objects are saved with the deletion. (A reference saved by another process after the
    /// fetch makes the store refuse the deletion with a merge conflict.)
    private func releaseOneWayReferences() throws(StrataError) {
        let relationships = coordinator.schema.oneWayRelationships
        guard !relationships.isEmpty else { return }
        var deleted: [ManagedObject] = []
        for object in changed.values where object.isDeleted && !object.isInserted { deleted.append(object) }
        guard !deleted.isEmpty else { return }
        for oneWay in relationships {
            let (entity, relationship) = (oneWay.entity, oneWay.relationship)
            let targets = deleted.filter { $0.entity.isKind(of: relationship.destination) }
            guard !targets.isEmpty else { continue }
            let gone = Set(targets.map(\.objectID))
            // The stored objects that refer to them as saved (fetched whole, so that an
            // unchanged object this context read before the reference was saved is brought up
            // to date), and this context's changed objects; each is looked at as it is now.
            let refers = FetchExpression.keyPath([relationship.name]).in(Array(gone))
            var request = FetchRequest(entityName: entity, predicate: relationship.isToMany ? .any(refers) : refers)
            request.includesPendingChanges = false
            var referrers: [ManagedObject] = []
            do {
                referrers = try fetch(request)
            } catch let error where error.code == .noStore {
                // No store of this coordinator holds the referring entity: nothing to clear.
            }
            for object in changed.values where !object.isDeleted && object.entity.isKind(of: entity) {
                referrers.append(object)
            }
            // In the undo group of the last change (usually the deletion): one undo brings the
            // object and the references to it back together, as for `nullify` on an inverse.
            continuingLastChange {
                for referrer in referrers where !referrer.isDeleted {
                    referrer.fulfillFault()
                    if relationship.isToMany {
                        for target in targets where referrer.memberIDs(relationship.name).contains(target.objectID) {
                            referrer.removeObject(target, forKey: relationship.name)
                        }
                    } else if let id = referrer.toOneID(relationship.name), gone.contains(id) {
                        referrer.setObject(nil, forKey: relationship.name)
                    }
                }
            }
        }
    }

    /// The objects of a save, by kind, in the order of their changes.
    struct SavedObjects {
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        /// Deleted objects, and objects inserted and deleted again (never sent).
        var deleted: [ManagedObject] = []
        /// Whether objects were inserted and deleted again: the saved records left out the
        /// references to them, which the objects still hold.
        var discardedAny = false
    }

    /// Makes IDs permanent, records the saved state, and lets clean objects go.
    private func didSave(_ objects: SavedObjects, _ outcome: consuming PersistentStoreCoordinator.SaveOutcome) {
        for object in objects.deleted { unregister(object) }
        let permanent = outcome.permanentIDs
        let temporaryIDs = children.isEmpty ? [] : objects.inserted.map(\.objectID)
        reregister(savedObjects: objects.inserted, as: outcome.insertedIDs)
        if !temporaryIDs.isEmpty {
            adoptPermanentIDs(Dictionary(uniqueKeysWithValues: zip(temporaryIDs, outcome.insertedIDs)))
        }
        // Each saved record moves into its object (a copy of a record retains each of its
        // collections): the records are taken out of the outcome, reversed in place and taken
        // from the end.
        var records = outcome.insertedRecords
        outcome.insertedRecords = []
        records.withUnsafeMutableBufferPointer { $0.reverse() }
        for object in objects.inserted {
            guard let record = records.popLast() else { preconditionFailure("a saved record for each inserted object") }
            didSave(object, consume record, permanent, reapply: objects.discardedAny)
            object.isInserted = false
        }
        records = outcome.updatedRecords
        outcome.updatedRecords = []
        records.withUnsafeMutableBufferPointer { $0.reverse() }
        for object in objects.updated {
            guard let record = records.popLast() else { preconditionFailure("a saved record for each updated object") }
            didSave(object, consume record, permanent, reapply: objects.discardedAny)
        }
        changed.removeAll()
    }

    /// ``ManagedObject/didSave()`` on each saved object: last, so that what the objects do in
    /// it (more changes) starts from the saved state.
    private func notifyDidSave(_ objects: SavedObjects) {
        for object in objects.inserted { object.didSave() }
        for object in objects.updated { object.didSave() }
        for object in objects.deleted where !object.isInserted { object.didSave() }
    }

    /// The object's state is now `record`: its references to new objects become permanent,
    /// and its values are what it holds (the save sent them) — only the record is kept.
    private func didSave(_ object: ManagedObject, _ record: consuming StoreRecord, _ permanent: [ObjectID: ObjectID], reapply: Bool) {
        if reapply {
            object.apply(consume record)
            return
        }
        if !permanent.isEmpty { object.mapRelatedIDs(permanent) }
        for case .toMany(let members) in object.relationshipSlots { members.commit() }
        object.committed = consume record
        object.changedMask.removeAll()
    }

    /// The changes to send, the objects by kind, and every rule the objects break.
    private func makeChanges(_ objects: [ManagedObject]) -> (PersistentStoreCoordinator.Changes, SavedObjects, [ValidationFailure]) {
        // Objects inserted and deleted again are never sent; references to them are dropped.
        var discarded: Set<ObjectID> = []
        var sorted = SavedObjects()
        // New objects with their insertion indexes, read in the same pass.
        var inserted: [(index: Int, object: ManagedObject)] = []
        for object in objects {
            if object.isInserted {
                if object.isDeleted {
                    discarded.insert(object.objectID)
                    sorted.deleted.append(object)
                } else {
                    inserted.append((object.insertionIndex, object))
                }
            } else if object.isDeleted {
                sorted.deleted.append(object)
            } else if !object.changedMask.isEmpty {
                sorted.updated.append(object)
            }
        }
        sorted.discardedAny = !discarded.isEmpty
        func record(_ object: ManagedObject) -> StoreRecord {
            var record = object.record()
            if !discarded.isEmpty {
                record.toOne = record.toOne.filter { !discarded.contains($0.value) }
                record.toMany = record.toMany.mapValues { $0.filter { !discarded.contains($0) } }
            }
            return record
        }
        // New objects get their primary keys in the order they were inserted, so the same
        // program gives the same keys every run (insertion indexes are unique in a context);
        // the rest go in ID order.
        sorted.inserted = Self.inInsertionOrder(inserted)
        sorted.updated = Self.inIDOrder(sorted.updated)
        sorted.deleted = Self.inIDOrder(sorted.deleted)
        var changes = PersistentStoreCoordinator.Changes(inserted: [], updated: [], deleted: [])
        // Each object is validated as its record is made: one pass over the objects in order
        // (the order they were made in, near in memory) instead of another in the registry's.
        var failures: [ValidationFailure] = []
        var app = AppValidation(coordinator)
        changes.inserted = sorted.inserted.map { object in
            validate(object, into: &failures)
            app.check(object, .insert, into: &failures)
            return (record(object), object.requestedPrimaryKey)
        }
        // Objects changed alike (the same entity, the same properties) share one set of keys.
        var lastKeys: (entity: EntityDescription, mask: PropertyMask, keys: Set<String>)?
        changes.updated = sorted.updated.map { object in
            validate(object, into: &failures)
            app.check(object, .update, into: &failures)
            if let last = lastKeys, last.mask == object.changedMask, last.entity.hasSameStorage(as: object.entity) {
                return (record(object), last.keys)
            }
            let keys = object.changedKeys
            lastKeys = (object.entity, object.changedMask, keys)
            return (record(object), keys)
        }
        changes.deleted = sorted.deleted.compactMap { $0.isInserted ? nil : ($0.objectID, $0.committed?.version ?? 0) }
        for object in sorted.deleted where !object.isInserted {
            failures += denyFailures(object)
            app.check(object, .delete, into: &failures)
        }
        return (changes, sorted, failures)
    }

    /// New objects in the order they were inserted. Insertion indexes are unique, so when they
    /// span a range not much wider than the objects are many, each object is put at its place
    /// in one pass instead of sorting.
    private static func inInsertionOrder(_ objects: [(index: Int, object: ManagedObject)]) -> [ManagedObject] {
        guard objects.count > 1, let low = objects.lazy.map(\.index).min(),
              let high = objects.lazy.map(\.index).max() else { return objects.map(\.object) }
        guard high - low < objects.count * 4 else {
            return objects.sorted { $0.index < $1.index }.map(\.object)
        }
        var slots = [ManagedObject?](repeating: nil, count: high - low + 1)
        for (index, object) in objects { slots[index - low] = object }
        return slots.compactMap { $0 }
    }

    /// Objects in the order of their IDs. Their IDs are taken out first (comparing objects
    /// would read each one, and retain it, on every comparison); permanent IDs of one entity,
    /// the common case, sort by their keys alone.
    private static func inIDOrder(_ objects: [ManagedObject]) -> [ManagedObject] {
        guard let first = objects.first?.objectID, objects.count > 1 else { return objects }
        let ids = objects.map(\.objectID)
        if ids.allSatisfy({ !$0.isTemporary && $0.hasEntity(of: first) }) {
            var keyed = ids.indices.map { (key: ids[$0].primaryKey!, index: $0) }
            keyed.sort { $0.key < $1.key }
            return keyed.map { objects[$0.index] }
        }
        return ids.indices.sorted { ids[$0] < ids[$1] }.map { objects[$0] }
    }

    /// Every rule an object about to be saved breaks.
    private func validate(_ object: ManagedObject, into failures: inout [ValidationFailure]) {
        let entity = object.entity
        entity.attributeFailures(of: object.attributeValues, objectID: object.objectID, into: &failures)
        for (position, relationship) in entity.relationships.enumerated() {
            if relationship.isToMany {
                let count = object.memberIDs(at: position).filter { !isDeletedHere($0) }.count
                if let failure = EntityDescription.countFailure(of: relationship, count: count, objectID: object.objectID) {
                    failures.append(failure)
                }
            } else if !relationship.isOptional, object.toOneID(at: position).map(isDeletedHere) ?? true {
                failures.append(EntityDescription.missingDestination(of: relationship, objectID: object.objectID))
            }
        }
    }

    /// `deny`: an object cannot be deleted while such a relationship has members left.
    private func denyFailures(_ object: ManagedObject) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for (position, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
            let members = object.relatedIDs(at: position)
            let remaining = members.filter { !isDeletedHere($0) }
            guard !remaining.isEmpty else { continue }
            failures.append(ValidationFailure(
                code: .deleteDenied, objectID: object.objectID, key: relationship.name,
                message: "cannot delete \(object.objectID) while it has \(remaining.count) \(relationship.destination) object\(remaining.count == 1 ? "" : "s") (delete rule deny); remove or delete them first"))
        }
        return failures
    }

    private func isDeletedHere(_ id: ObjectID) -> Bool {
        registeredObject(for: id)?.isDeleted ?? false
    }
}

extension StrataError {
    /// A child's save refused: it changes objects its parent deleted since the child read them.
    static func deletedInParent(_ ids: Set<ObjectID>) -> StrataError {
        StrataError(
            .mergeConflict, "the save would change objects the parent context deleted since this context read them; nothing was handed over",
            failures: ids.sorted().map {
                ValidationFailure(code: .conflict, objectID: $0, key: nil, message: "deleted in the parent context since it was read")
            })
    }

    /// A save refused for `failures` (every rule it would break), listed by object and key.
    static func saveRefused(_ failures: [ValidationFailure]) -> StrataError {
        StrataError(
            .validationFailed,
            "the save was refused: \(failures.count) problem\(failures.count == 1 ? "" : "s") found; nothing was written",
            failures: failures.sorted { ($0.objectID, $0.key ?? "") < ($1.objectID, $1.key ?? "") })
    }
}

private func < (lhs: (ObjectID, String), rhs: (ObjectID, String)) -> Bool {
    lhs.0 != rhs.0 ? lhs.0 < rhs.0 : lhs.1 < rhs.1
}


