internal import OrderedCollections

/// Every change to an object goes through the primitives here: each records its own reversal
/// for undo, tracks changed keys against the committed state, and keeps changed objects alive.
/// The relationship operations above them maintain inverses; `delete` applies delete rules.
extension ManagedObjectContext {
    // MARK: - Primitives

    func markInserted(_ object: ManagedObject, _ inserted: Bool) {
        guard object.isInserted != inserted else { return }
        object.isInserted = inserted
        if inserted {
            if registeredObject(for: object.objectID) == nil {
                registerAgain(object)
            }
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

    /// Puts an object back after an undone insert is redone.
    private func registerAgain(_ object: ManagedObject) {
        object.managedObjectContext = self
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
            object.changedKeys = Set(object.entity.attributes.map(\.name) + object.entity.relationships.map(\.name))
            markInserted(object, true)
            return
        }
        object.isDeleted = deleted
        noteChange(object)
        undoManager?.register { [unowned self] in self.markDeleted(object, !deleted) }
    }

    func primitiveSetAttribute(_ object: ManagedObject, _ key: String, _ value: AttributeValue?) {
        guard let position = object.attributeValues.layout.position(of: key) else {
            preconditionFailure("entity '\(object.entity.name)' has no attribute '\(key)'")
        }
        primitiveSetAttribute(object, position: position, key: key, value)
    }

    /// Sets the attribute at `position` of the object's layout, named `key`.
    func primitiveSetAttribute(_ object: ManagedObject, position: Int, key: String, _ value: AttributeValue?) {
        let old = object.attributeValues[position: position]
        guard old != value else { return }
        object.attributeValues[position: position] = value
        updateChangedKey(object, key)
        undoManager?.register { [unowned self] in self.primitiveSetAttribute(object, position: position, key: key, old) }
    }

    func primitiveSetToOne(_ object: ManagedObject, _ key: String, _ id: ObjectID?) {
        let old = object.toOneIDs[key]
        guard old != id else { return }
        object.toOneIDs[key] = id
        updateChangedKey(object, key)
        undoManager?.register { [unowned self] in self.primitiveSetToOne(object, key, old) }
    }

    func primitiveInsert(_ object: ManagedObject, _ key: String, _ id: ObjectID, at index: Int? = nil) {
        var members = object.members(key)
        guard !members.contains(id) else { return }
        if let index, index < members.count {
            members.insert(id, at: index)
        } else {
            members.append(id)
        }
        object.toManyIDs[key] = members
        updateChangedKey(object, key)
        undoManager?.register { [unowned self] in self.primitiveRemove(object, key, id) }
    }

    func primitiveRemove(_ object: ManagedObject, _ key: String, _ id: ObjectID) {
        var members = object.members(key)
        guard let index = members.firstIndex(of: id) else { return }
        members.remove(at: index)
        object.toManyIDs[key] = members
        updateChangedKey(object, key)
        undoManager?.register { [unowned self] in self.primitiveInsert(object, key, id, at: index) }
    }

    private func updateChangedKey(_ object: ManagedObject, _ key: String) {
        // An inserted object counts every key as changed from the start (register(inserted:)
        // and undoing a saved delete set them all) and is tracked as changed until its save,
        // so there is nothing to update: the common case of filling new objects.
        if object.isInserted { return }
        if object.differsFromCommitted(key) {
            object.changedKeys.insert(key)
        } else {
            object.changedKeys.remove(key)
        }
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

    // MARK: - Attributes and relationships

    func setAttribute(_ object: ManagedObject, _ key: String, _ value: AttributeValue?) {
        object.fulfillFault()
        change { primitiveSetAttribute(object, key, value) }
    }

    func setAttribute(_ object: ManagedObject, position: Int, key: String, _ value: AttributeValue?) {
        object.fulfillFault()
        change { primitiveSetAttribute(object, position: position, key: key, value) }
    }

    /// Sets a to-one relationship and keeps the inverse side consistent.
    func setToOne(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destination: ManagedObject?) {
        object.fulfillFault()
        change {
            let key = relationship.name
            let oldID = object.toOneIDs[key]
            guard oldID != destination?.objectID else { return }
            primitiveSetToOne(object, key, destination?.objectID)
            guard let inverse = inverse(of: relationship) else { return }
            if let oldID {
                let old = materialize(oldID)
                detach(object, fromInverse: inverse, of: old)
            }
            if let destination {
                attach(object, toInverse: inverse, of: destination)
            }
        }
    }

    /// Adds a member to a to-many relationship (at `index` for an ordered one) and keeps the
    /// inverse consistent.
    func addToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destination: ManagedObject, at index: Int? = nil) {
        object.fulfillFault()
        change {
            let key = relationship.name
            if object.members(key).contains(destination.objectID) { return }
            primitiveInsert(object, key, destination.objectID, at: index)
            if let inverse = inverse(of: relationship) {
                attach(object, toInverse: inverse, of: destination)
            }
        }
    }

    func removeFromToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destination: ManagedObject) {
        object.fulfillFault()
        change {
            let key = relationship.name
            guard object.members(key).contains(destination.objectID) else { return }
            primitiveRemove(object, key, destination.objectID)
            if let inverse = inverse(of: relationship) {
                detach(object, fromInverse: inverse, of: destination)
            }
        }
    }

    /// Replaces the members of a to-many relationship (in this order, for an ordered one).
    func setToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ destinations: [ManagedObject]) {
        object.fulfillFault()
        change {
            let key = relationship.name
            let wanted = OrderedSet(destinations.map(\.objectID))
            for id in Array(object.members(key)) where !wanted.contains(id) {
                removeFromToMany(object, relationship, materialize(id))
            }
            for (index, destination) in destinations.enumerated() {
                addToMany(object, relationship, destination)
                if relationship.isOrdered, let position = object.members(key).firstIndex(of: destination.objectID), position != index {
                    primitiveRemove(object, key, destination.objectID)
                    primitiveInsert(object, key, destination.objectID, at: index)
                }
            }
        }
    }

    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let inverseName = relationship.inverse else { return nil }
        return coordinator.schema.entity(named: relationship.destination)?.relationship(named: inverseName)
    }

    /// Makes `destination`'s inverse relationship include `source`.
    private func attach(_ source: ManagedObject, toInverse inverse: RelationshipDescription, of destination: ManagedObject) {
        destination.fulfillFault()
        let key = inverse.name
        if inverse.isToMany {
            primitiveInsert(destination, key, source.objectID)
            return
        }
        // A to-one inverse: the destination leaves its previous partner.
        if let previousID = destination.toOneIDs[key], previousID != source.objectID,
           let forward = relationship(inverse.inverse, of: source) {
            let previous = materialize(previousID)
            previous.fulfillFault()
            if forward.isToMany {
                primitiveRemove(previous, forward.name, destination.objectID)
            } else if previous.toOneIDs[forward.name] == destination.objectID {
                primitiveSetToOne(previous, forward.name, nil)
            }
        }
        primitiveSetToOne(destination, key, source.objectID)
    }

    /// Makes `destination`'s inverse relationship stop including `source`.
    private func detach(_ source: ManagedObject, fromInverse inverse: RelationshipDescription, of destination: ManagedObject) {
        destination.fulfillFault()
        if inverse.isToMany {
            primitiveRemove(destination, inverse.name, source.objectID)
        } else if destination.toOneIDs[inverse.name] == source.objectID {
            primitiveSetToOne(destination, inverse.name, nil)
        }
    }

    private func relationship(_ name: String?, of object: ManagedObject) -> RelationshipDescription? {
        name.flatMap { object.entity.relationship(named: $0) }
    }

    // MARK: - Deleting

    /// Deletes an object at the next save, applying delete rules now: `nullify` removes it from
    /// the inverse side, `cascade` deletes the destinations too, `deny` is checked at save
    /// (which fails while the relationship has members), `noAction` does nothing.
    public func delete(_ object: ManagedObject) {
        precondition(object.managedObjectContext === self, "\(object) does not belong to this context")
        change { delete(object, visited: []) }
    }

    private func delete(_ object: ManagedObject, visited: Set<ObjectIdentifier>) {
        guard !object.isDeleted else { return }
        object.fulfillFault()
        markDeleted(object, true)
        for relationship in object.entity.relationships {
            let members: [ObjectID] = relationship.isToMany
                ? Array(object.members(relationship.name))
                : object.toOneIDs[relationship.name].map { [$0] } ?? []
            guard !members.isEmpty else { continue }
            switch relationship.deleteRule {
            case .nullify:
                guard let inverse = inverse(of: relationship) else { continue }
                for id in members { detach(object, fromInverse: inverse, of: materialize(id)) }
            case .cascade:
                for id in members { delete(materialize(id), visited: visited) }
            case .deny, .noAction:
                continue
            }
        }
    }
}
