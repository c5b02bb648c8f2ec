extension ManagedObjectContext {
    /// Saves every change at once.
    ///
    /// Validates everything first and reports every problem together: required values, integer
    /// ranges, min/max, string length and pattern, relationship counts, uniqueness constraints
    /// (against stored data too) and the `deny` delete rule. Then IDs become permanent and the
    /// coordinator saves one changeset. On any failure the stores are unchanged and this context
    /// keeps its changes.
    /// - Throws: ``StrataError`` — `validationFailed` with ``StrataError/failures``,
    ///   `mergeConflict` under the `.error` merge policy, or a store's error.
    public func save() throws(StrataError) {
        processPendingMerges()
        guard hasChanges else { return }
        if let error = unreadableObjectError() { throw error }
        for object in Array(changed.values) where object.hasChanges && !object.isDeleted {
            object.willSave()
        }
        let objects = Array(changed.values)
        var failures = validate(objects)
        let changes = makeChanges(objects)
        failures += try coordinator.uniquenessViolations(changes)
        guard failures.isEmpty else {
            throw StrataError(
                .validationFailed,
                "the save was refused: \(failures.count) problem\(failures.count == 1 ? "" : "s") found; nothing was written",
                failures: failures.sorted { ($0.objectID, $0.key ?? "") < ($1.objectID, $1.key ?? "") })
        }
        let outcome: PersistentStoreCoordinator.SaveOutcome
        do {
            outcome = try coordinator.save(changes, overwritesConflicts: mergePolicy == .objectTrump, from: identifier)
        } catch let error where error.code == .mergeConflict && mergePolicy == .storeTrump {
            // What is stored wins: drop this context's changes to the conflicting objects, then
            // save the rest.
            for failure in error.failures {
                if let object = registeredObject(for: failure.objectID) { refresh(object, mergeChanges: false) }
            }
            return try save()
        }
        didSave(objects, outcome)
    }

    /// Makes IDs permanent, records the saved state, and lets clean objects go.
    private func didSave(_ objects: [ManagedObject], _ outcome: PersistentStoreCoordinator.SaveOutcome) {
        let permanent = outcome.permanentIDs
        for object in objects {
            if let id = permanent[object.objectID] { reregister(object, as: id) }
        }
        for object in objects {
            if object.isDeleted {
                unregister(object)
                continue
            }
            if !permanent.isEmpty {
                for (position, slot) in object.relationshipSlots.enumerated() {
                    switch slot {
                    case .toOne(let id):
                        if let mapped = permanent[id] { object.relationshipSlots[position] = .toOne(mapped) }
                    case .toMany(let members):
                        members.mapIDs(permanent)
                    case .none, .pending:
                        break
                    }
                }
            }
            object.isInserted = false
            if let record = outcome.records[object.objectID] {
                object.apply(record)
            }
            object.changedMask.removeAll()
        }
        changed.removeAll()
    }

    private func makeChanges(_ objects: [ManagedObject]) -> PersistentStoreCoordinator.Changes {
        // Objects inserted and deleted again are never sent; references to them are dropped.
        let discarded = Set(objects.filter { $0.isInserted && $0.isDeleted }.map(\.objectID))
        func record(_ object: ManagedObject) -> StoreRecord {
            var record = object.record()
            if !discarded.isEmpty {
                record.toOne = record.toOne.filter { !discarded.contains($0.value) }
                record.toMany = record.toMany.mapValues { $0.filter { !discarded.contains($0) } }
            }
            return record
        }
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        var deleted: [ManagedObject] = []
        for object in objects {
            if object.isInserted {
                if !object.isDeleted { inserted.append(object) }
            } else if object.isDeleted {
                deleted.append(object)
            } else if !object.changedMask.isEmpty {
                updated.append(object)
            }
        }
        // New objects get their primary keys in the order they were inserted, so the same
        // program gives the same keys every run; the rest go in ID order.
        inserted.sort { $0.insertionIndex != $1.insertionIndex ? $0.insertionIndex < $1.insertionIndex : $0.objectID < $1.objectID }
        updated.sort { $0.objectID < $1.objectID }
        deleted.sort { $0.objectID < $1.objectID }
        var changes = PersistentStoreCoordinator.Changes(inserted: [], updated: [], deleted: [])
        changes.inserted = inserted.map { (record($0), $0.requestedPrimaryKey) }
        changes.updated = updated.map { (record($0), $0.changedKeys) }
        changes.deleted = deleted.map { ($0.objectID, $0.committed?.version ?? 0) }
        return changes
    }

    /// Every rule broken by the objects about to be saved.
    func validate(_ objects: [ManagedObject]) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for object in objects where object.hasChanges {
            if object.isDeleted {
                if !object.isInserted { failures += denyFailures(object) }
                continue
            }
            failures += validate(object)
        }
        return failures
    }

    private func validate(_ object: ManagedObject) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let entity = object.entity
        func fail(_ code: ValidationFailure.Code, _ key: String, _ message: String) {
            failures.append(ValidationFailure(code: code, objectID: object.objectID, key: key, message: message))
        }
        // The object's values are laid out by its entity: read them by position (by name only in
        // a model that repeats a name, which validation refuses).
        let positional = entity.attributes.count == entity.attributeLayout.count
        for (position, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
            guard let value = positional ? object.attributeValues[position: position] : object.attributeValues[attribute.name] else {
                if !attribute.isOptional {
                    fail(.missingValue, attribute.name, "a value is required (the attribute is not optional)")
                }
                continue
            }
            if let violation = AttributeRules.violation(of: value, for: attribute) {
                fail(violation.code, attribute.name, violation.message)
            }
        }
        for (position, relationship) in entity.relationships.enumerated() {
            if relationship.isToMany {
                let count = object.memberIDs(at: position).filter { !isDeletedHere($0) }.count
                if relationship.minCount > 0, count < relationship.minCount {
                    fail(.tooFewObjects, relationship.name, "has \(count) object\(count == 1 ? "" : "s"), fewer than the minimum \(relationship.minCount)")
                }
                if relationship.maxCount > 0, count > relationship.maxCount {
                    fail(.tooManyObjects, relationship.name, "has \(count) objects, more than the maximum \(relationship.maxCount)")
                }
            } else if !relationship.isOptional {
                if object.toOneID(at: position).map(isDeletedHere) ?? true {
                    fail(.missingValue, relationship.name, "a \(relationship.destination) is required (the relationship is not optional)")
                }
            }
        }
        return failures
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

private func < (lhs: (ObjectID, String), rhs: (ObjectID, String)) -> Bool {
    lhs.0 != rhs.0 ? lhs.0 < rhs.0 : lhs.1 < rhs.1
}
