/// Every change to an object goes through the primitives here: each records its own reversal
/// for undo, tracks changed keys against the committed state, and keeps changed objects alive.
/// Each reads a fault first: a change's merges of other saves (``change(_:)`` processes them)
/// can turn an object the caller has just read into a fault again, and a value written into a
/// fault would make an object of that value alone.
/// The relationship operations above them maintain inverses; `delete` applies delete rules.
extension ManagedObjectContext {
    // MARK: - Primitives

    func markInserted(_ object: ManagedObject, _ inserted: Bool) {
        guard object.isInserted != inserted else { return }
        object.isInserted = inserted
        if inserted && object.managedObjectContext !== self {
            registerAgain(object)
        }
        noteChange(object)
        undoManager?.register { [unowned self] in
            if inserted && !object.isInserted {
                // The insert was saved since: undoing it deletes the saved object.
                self.markDeleted(object, true)
                return
            }
            self.markInserted(object, !inserted)
            if inserted { self.unregister(object) }
        }
    }

    /// Puts an object that left the context back: an undone insert redone, or an insert a save
    /// dropped (it was deleted) whose delete is undone.
    private func registerAgain(_ object: ManagedObject) {
        reregister(object, as: object.objectID)
    }

    func markDeleted(_ object: ManagedObject, _ deleted: Bool) {
        guard object.isDeleted != deleted else { return }
        if !deleted && object.managedObjectContext == nil && !object.objectID.isTemporary {
            // The delete was saved since (the save let the object go): undoing it inserts the
            // object again, with its values and its primary key.
            object.isDeleted = false
            object.committed = nil
            object.requestedPrimaryKey = object.objectID.primaryKey
            markInserted(object, true)
            return
        }
        if !deleted && object.managedObjectContext == nil && object.isInserted {
            // Inserted and deleted again, so a save let the object go without sending it:
            // undoing the delete brings the insert back into the context, referring to the
            // objects that save made permanent by their new IDs.
            registerAgain(object)
            if !savedIDs.isEmpty { object.mapRelatedIDs(savedIDs) }
        }
        object.isDeleted = deleted
        noteChange(object)
        undoManager?.register { [unowned self] in self.markDeleted(object, !deleted) }
    }

    func primitiveSetAttribute(_ object: ManagedObject, _ key: String, _ value: AttributeValue?) {
        guard let position = object.attributeValues.layout.position(of: key) else {
            preconditionFailure("entity '\(object.entity.name)' has no attribute '\(key)'")
        }
        primitiveSetAttribute(object, position: position, value)
    }

    /// Sets the attribute at `position` of the object's layout.
    func primitiveSetAttribute(_ object: ManagedObject, position: Int, _ value: AttributeValue?) {
        if object.isFault { fulfillFault(object) }
        let old = object.attributeValues[position: position]
        guard old != value else { return }
        object.attributeValues[position: position] = value
        updateChanged(object, bit: position)
        undoManager?.register { [unowned self] in self.primitiveSetAttribute(object, position: position, old) }
    }

    /// Sets the to-one relationship at a position (no inverse upkeep).
    func primitiveSetToOne(_ object: ManagedObject, _ position: Int, _ id: ObjectID?) {
        if object.isFault { fulfillFault(object) }
        let old = object.toOneID(at: position)
        guard old != id else { return }
        object.relationshipSlots[position] = id.map { .toOne($0) } ?? .none
        updateChanged(object, bit: object.relationshipBit(position))
        undoManager?.register { [unowned self] in self.primitiveSetToOne(object, position, old.map(self.currentID)) }
    }

    /// Adds a member to the to-many relationship at a position (no inverse upkeep).
    func primitiveInsert(_ object: ManagedObject, _ position: Int, _ id: ObjectID, at index: Int? = nil) {
        if object.isFault { fulfillFault(object) }
        guard object.mutableMembers(at: position).insert(id, at: index) else { return }
        updateChanged(object, bit: object.relationshipBit(position))
        undoManager?.register { [unowned self] in self.primitiveRemove(object, position, self.currentID(id)) }
    }

    /// Removes a member from the to-many relationship at a position (no inverse upkeep).
    func primitiveRemove(_ object: ManagedObject, _ position: Int, _ id: ObjectID) {
        if object.isFault { fulfillFault(object) }
        guard let members = object.members(at: position), let index = members.remove(id) else { return }
        updateChanged(object, bit: object.relationshipBit(position))
        let undoIndex = members.isOrdered ? index : nil
        undoManager?.register { [unowned self] in self.primitiveInsert(object, position, self.currentID(id), at: undoIndex) }
    }

    private func updateChanged(_ object: ManagedObject, bit: Int) {
        // An inserted object counts every key as changed from the start and is tracked as
        // changed until its save, so there is nothing to update: the common case of filling
        // new objects.
        if object.isInserted {
            observation?.noteLocalChange(object)
            return
        }
        object.updateChangedBit(bit)
        noteChange(object)
    }

    /// Runs a top-level change as one undo group.
    func change<T>(_ body: () -> T) -> T {
        processPendingMerges()
        guard let undoManager else { return body() }
        undoManager.beginGroup()
        defer { undoManager.endGroup() }
        return body()
    }

    /// Runs changes as part of the last undo group (a save's consequences of a change made
    /// before it), or as a group of their own when there is none.
    func continuingLastChange<T>(_ body: () -> T) -> T {
        processPendingMerges()
        guard let undoManager else { return body() }
        undoManager.reopenLastGroup()
        defer { undoManager.endGroup() }
        return body()
    }

    // MARK: - Attributes and relationships

    func setAttribute(_ object: ManagedObject, _ key: String, _ value: AttributeValue?) {
        object.fulfillFault()
        change { primitiveSetAttribute(object, key, value) }
    }

    func setAttribute(_ object: ManagedObject, position: Int, _ value: AttributeValue?) {
        object.fulfillFault()
        change { primitiveSetAttribute(object, position: position, value) }
    }

    /// Sets a to-one relationship and keeps the inverse side consistent.
    func setToOne(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destination: ManagedObject?) {
        setToOne(object, object.relationshipPosition(relationship.name), destination)
    }

    func setToOne(_ object: ManagedObject, _ position: Int, _ destination: ManagedObject?) {
        object.fulfillFault()
        change {
            let oldID = object.toOneID(at: position)
            guard oldID != destination?.objectID else { return }
            primitiveSetToOne(object, position, destination?.objectID)
            guard let inverse = object.entity.inversePosition(ofRelationshipAt: position) else { return }
            if let oldID {
                detach(object, fromInverse: inverse, of: materialize(oldID))
            }
            if let destination {
                attach(object, toInverse: inverse, of: destination)
            }
        }
    }

    /// Adds a member to a to-many relationship (at `index` for an ordered one) and keeps the
    /// inverse consistent.
    func addToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destination: ManagedObject, at index: Int? = nil) {
        addToMany(object, object.relationshipPosition(relationship.name), destination, at: index)
    }

    func addToMany(_ object: ManagedObject, _ position: Int, _ destination: ManagedObject, at index: Int? = nil) {
        object.fulfillFault()
        change {
            if object.members(at: position)?.contains(destination.objectID) == true { return }
            primitiveInsert(object, position, destination.objectID, at: index)
            if let inverse = object.entity.inversePosition(ofRelationshipAt: position) {
                attach(object, toInverse: inverse, of: destination)
            }
        }
    }

    func removeFromToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destination: ManagedObject) {
        removeFromToMany(object, object.relationshipPosition(relationship.name), destination)
    }

    func removeFromToMany(_ object: ManagedObject, _ position: Int, _ destination: ManagedObject) {
        object.fulfillFault()
        change {
            guard object.members(at: position)?.contains(destination.objectID) == true else { return }
            primitiveRemove(object, position, destination.objectID)
            if let inverse = object.entity.inversePosition(ofRelationshipAt: position) {
                detach(object, fromInverse: inverse, of: destination)
            }
        }
    }

    /// Replaces the members of a to-many relationship (in this order, for an ordered one).
    func setToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destinations: [ManagedObject]) {
        let position = object.relationshipPosition(relationship.name)
        object.fulfillFault()
        change {
            let wanted = Set(destinations.map(\.objectID))
            for id in object.memberIDs(at: position).reversed() where !wanted.contains(id) {
                removeFromToMany(object, position, materialize(id))
            }
            for (index, destination) in destinations.enumerated() {
                addToMany(object, position, destination)
                if relationship.isOrdered, let members = object.members(at: position),
                   let current = members.firstIndex(of: destination.objectID), current != index {
                    primitiveRemove(object, position, destination.objectID)
                    primitiveInsert(object, position, destination.objectID, at: index)
                }
            }
        }
    }

    /// Makes the relationship at `inverse` of `destination` include `source`.
    private func attach(_ source: ManagedObject, toInverse inverse: Int, of destination: ManagedObject) {
        destination.fulfillFault()
        if destination.entity.relationships[inverse].isToMany {
            primitiveInsert(destination, inverse, source.objectID)
            return
        }
        // A to-one inverse: the destination leaves its previous partner.
        if let previousID = destination.toOneID(at: inverse), previousID != source.objectID,
           let forward = destination.entity.inversePosition(ofRelationshipAt: inverse) {
            let previous = materialize(previousID)
            previous.fulfillFault()
            if previous.entity.relationships[forward].isToMany {
                primitiveRemove(previous, forward, destination.objectID)
            } else if previous.toOneID(at: forward) == destination.objectID {
                primitiveSetToOne(previous, forward, nil)
            }
        }
        primitiveSetToOne(destination, inverse, source.objectID)
    }

    /// Makes the relationship at `inverse` of `destination` stop including `source`.
    private func detach(_ source: ManagedObject, fromInverse inverse: Int, of destination: ManagedObject) {
        destination.fulfillFault()
        if destination.entity.relationships[inverse].isToMany {
            primitiveRemove(destination, inverse, source.objectID)
        } else if destination.toOneID(at: inverse) == source.objectID {
            primitiveSetToOne(destination, inverse, nil)
        }
    }

    // MARK: - Deleting

    /// Deletes an object at the next save, applying delete rules now: `nullify` removes it from
    /// the inverse side, `cascade` deletes the destinations too, `deny` is checked at save
    /// (which fails while the relationship has members), `noAction` does nothing.
    public func delete(_ object: ManagedObject) {
        precondition(object.managedObjectContext === self, "\(object) does not belong to this context")
        change { delete(object, visited: []) }
    }

    /// Deletes an object and applies its delete rules; `notifying`: whether the object's
    /// ``ManagedObject/prepareForDeletion()`` runs first (not for a new object merged into
    /// another by an upsert, which is discarded rather than deleted).
    func delete(_ object: ManagedObject, visited: Set<ObjectIdentifier>, notifying: Bool = true) {
        guard !object.isDeleted else { return }
        object.fulfillFault()
        if notifying { object.prepareForDeletion() }
        guard !object.isDeleted else { return }
        markDeleted(object, true)
        for (position, relationship) in object.entity.relationships.enumerated() {
            // Last member first: an ordered relationship then loses its members from its end.
            let members = object.relatedIDs(at: position).reversed()
            guard !members.isEmpty else { continue }
            switch relationship.deleteRule {
            case .nullify:
                guard let inverse = object.entity.inversePosition(ofRelationshipAt: position) else { continue }
                for id in members { detach(object, fromInverse: inverse, of: materialize(id)) }
            case .cascade:
                for id in members { delete(materialize(id), visited: visited) }
            case .deny, .noAction:
                continue
            }
        }
    }
}
