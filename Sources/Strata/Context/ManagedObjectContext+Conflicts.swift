/// How a save resolves what it finds changed since the context read it (optimistic-locking
/// conflicts) and new objects that collide with others under a uniqueness constraint, as Core
/// Data's merge policies do.
extension ManagedObjectContext {
    /// What a save does with its objects that another context or process saved since this
    /// context read them, and with new objects whose values a uniqueness constraint says
    /// belong to an existing object. Core Data's `NSMergePolicy` types, by the same names.
    ///
    /// | policy | a property both sides changed | a property only the store changed | an insert that collides |
    /// | --- | --- | --- | --- |
    /// | `error` | the save fails (`mergeConflict`) | the save fails | the save fails (`notUnique`) |
    /// | `mergeByPropertyObjectTrump` | this context's value | the store's value | updates the existing object; the new values win |
    /// | `mergeByPropertyStoreTrump` | the store's value | the store's value | updates the existing object; its values win |
    /// | `overwrite` | this context's value | this context's (stale) value: the whole object is written | as `mergeByPropertyObjectTrump` |
    /// | `rollback` | the store's value: this context's changes to the object are dropped | the store's value | as `mergeByPropertyStoreTrump` |
    ///
    /// To-many relationships merge by member under both by-property policies: the members this
    /// context added or removed are added to or removed from the stored members, so both sides'
    /// changes are kept. A conflicting object another process deleted: the deletion wins under
    /// `mergeByPropertyStoreTrump` and `rollback` (the object leaves this context and references
    /// to it are removed); `error`, `mergeByPropertyObjectTrump` and `overwrite` fail with
    /// `mergeConflict` — no policy brings a deleted object back. An object this context deleted
    /// that another process changed is deleted under every policy but `error` (its delete rules
    /// have changed other objects already: a deletion is never half undone).
    public enum MergePolicy: Sendable, Hashable {
        /// Fail with a `mergeConflict` error naming the objects (the default).
        case error
        /// Property by property, this context's changes win; what it did not change takes the
        /// stored values.
        case mergeByPropertyObjectTrump
        /// Property by property, the store's changes win; this context's changes to properties
        /// the store did not change are saved.
        case mergeByPropertyStoreTrump
        /// This context's objects are written whole, over what is stored.
        case overwrite
        /// What is stored wins: this context's conflicting objects are refreshed, dropping their
        /// changes, and the rest is saved.
        case rollback

        /// Renamed ``overwrite``, Core Data's name.
        @available(*, deprecated, renamed: "overwrite")
        public static let objectTrump = MergePolicy.overwrite
        /// Renamed ``rollback``, Core Data's name.
        @available(*, deprecated, renamed: "rollback")
        public static let storeTrump = MergePolicy.rollback

        /// Whether this context's values win where both sides changed a property.
        var objectTrumps: Bool { self == .mergeByPropertyObjectTrump || self == .overwrite }
    }

    /// How many rounds of resolving a save tries before it reports what it still finds: each
    /// round resolves every conflict the store reported; a store that reports conflicts again
    /// and again (other processes saving the same objects all the time) ends them.
    static let conflictRounds = 8

    /// Resolves the optimistic-locking conflicts of `error` (a `mergeConflict`) by the merge
    /// policy. Returns false when the policy does not resolve them (`error`; an object another
    /// process deleted, or a reference to one, under a policy where this context's changes win;
    /// a store that cannot be read).
    func resolveMergeConflicts(_ error: StrataError) -> Bool {
        guard mergePolicy != .error else { return false }
        var gone: Set<ObjectID> = []
        var stored: [(object: ManagedObject, record: StoreRecord)] = []
        for failure in error.failures {
            if let related = failure.relatedObjectID {
                // A reference to an object the store no longer holds.
                gone.insert(related)
                continue
            }
            guard let object = registeredObject(for: failure.objectID) else { continue }
            // Read again past the coordinator's cache: another process saved it.
            coordinator.evictCachedRecord(object.objectID)
            switch storedRecord(of: object.objectID) {
            case .found(let record):
                stored.append((object, record))
            case .missing where !mergePolicy.objectTrumps:
                gone.insert(object.objectID)
            case .missing, .unreadable:
                return false
            }
        }
        if !gone.isEmpty {
            guard !mergePolicy.objectTrumps else { return false }
            forgetDeletedFromStore(gone)
        }
        continuingLastChange {
            for (object, record) in stored { resolve(object, against: record) }
        }
        return true
    }

    /// Resolves one conflicting object against its stored state: its changes are rebased onto
    /// it, and each property the policy gives to the store takes the stored value. Properties
    /// are set through the relationship operations, so the objects on the other side of a
    /// relationship (inverses) agree with the result. A deleted object stays deleted (its
    /// delete rules have changed other objects already), now against the stored version.
    private func resolve(_ object: ManagedObject, against record: StoreRecord) {
        if object.isDeleted {
            object.committed = record
            return
        }
        if mergePolicy == .overwrite { return overwrite(object, with: record) }
        let earlier = object.committed
        let local = object.changedMask.positions
        merge(record, into: object, replayingMembers: mergePolicy != .rollback)
        guard let current = object.committed else { return }
        let rollback = mergePolicy == .rollback
        let storeTrumps = rollback || mergePolicy == .mergeByPropertyStoreTrump
        let attributeCount = object.attributeValues.layout.count
        for bit in local {
            if bit < attributeCount {
                let name = object.attributeValues.layout.names[bit]
                if rollback || (storeTrumps && earlier?.attributes[name] != current.attributes[name]) {
                    primitiveSetAttribute(object, position: bit, current.attributes[name])
                }
                continue
            }
            let position = bit - attributeCount
            let relationship = object.entity.relationships[position]
            if relationship.isToMany {
                // By property, both sides' members were kept (``merge(_:into:replayingMembers:)``).
                guard rollback, let saved = object.committedMemberIDs(at: position) else { continue }
                setToMany(object, relationship, saved.map(freshened))
                continue
            }
            let saved = current.toOne[relationship.name]
            let storeChanged = earlier?.toOne[relationship.name] != saved
            let mine = object.toOneID(at: position)
            if rollback || (storeTrumps && storeChanged) {
                setToOne(object, position, saved.map(freshened))
            } else if storeChanged, let saved, saved != mine {
                // This context's destination wins over the one another save set: that one must
                // let the object go too, so the object is moved from it.
                let other = freshened(saved)
                primitiveSetToOne(object, position, other.objectID)
                setToOne(object, position, mine.map(freshened))
            }
        }
    }

    /// `overwrite`: every property keeps the value this context holds, changed here or not,
    /// against the stored version; a destination another save set, or a member it added, lets
    /// the object go.
    private func overwrite(_ object: ManagedObject, with record: StoreRecord) {
        let attributes = object.attributeValues
        let relationships = object.entity.relationships.indices.map { object.relatedIDs(at: $0) }
        merge(record, into: object)
        let transient = Set(object.entity.transientAttributePositions)
        for position in 0..<attributes.layout.count where !transient.contains(position) {
            primitiveSetAttribute(object, position: position, attributes[position: position])
        }
        for (position, relationship) in object.entity.relationships.enumerated() {
            let mine = relationships[position]
            if relationship.isToMany {
                guard let saved = object.committedMemberIDs(at: position), saved != mine else { continue }
                // From the stored members to this context's, through the operation that keeps
                // inverses.
                object.relationshipSlots[position] = saved.isEmpty
                    ? .none : .toMany(RelationshipMembers(saved, ordered: relationship.isOrdered, tracksChanges: true))
                object.updateChangedBit(object.relationshipBit(position))
                setToMany(object, relationship, mine.map(freshened))
            } else if let saved = object.committed?.toOne[relationship.name], saved != mine.first {
                primitiveSetToOne(object, position, freshened(saved).objectID)
                setToOne(object, position, mine.first.map(freshened))
            } else if object.toOneID(at: position) != mine.first {
                setToOne(object, position, mine.first.map(freshened))
            }
        }
    }

    /// The object for an ID, its unchanged stored state read again (another save may have
    /// changed its side of a relationship the conflict resolution is about to set).
    private func freshened(_ id: ObjectID) -> ManagedObject {
        coordinator.evictCachedRecord(id)
        let object = materialize(id)
        if !object.isFault && !object.hasChanges { refresh(object, mergeChanges: false) }
        return object
    }

    /// Resolves uniqueness failures of new objects under a merge policy other than `error`:
    /// each new object that collides with another (stored, or new and inserted earlier) is
    /// merged into that one — an upsert — and leaves the context. Returns whether any was
    /// merged; the failures it cannot resolve are left for the save to report.
    ///
    /// The values that win (see ``MergePolicy``): under `mergeByPropertyObjectTrump` and
    /// `overwrite` every attribute the new object holds a value for other than its default, and
    /// its to-one references; under `mergeByPropertyStoreTrump` and `rollback` only what the
    /// existing object lacks (a nil attribute or to-one). Under every policy the new object's
    /// to-many members join the existing object's, and every reference to the new object, with
    /// an inverse or without, refers to the existing one instead.
    func resolveConstraintConflicts(_ failures: [ValidationFailure]) throws(StrataError) -> Bool {
        guard mergePolicy != .error else { return false }
        var merged = false
        for failure in failures where failure.code == .notUnique {
            guard let existingID = failure.relatedObjectID,
                  let new = registeredObject(for: failure.objectID), new.isInserted, !new.isDeleted
            else { continue }
            let existing: ManagedObject
            if let registered = registeredObject(for: existingID) {
                existing = registered
            } else {
                do {
                    existing = try existingObject(with: existingID)
                } catch {
                    continue
                }
            }
            guard existing !== new, !existing.isDeleted, existing.entity.name == new.entity.name else { continue }
            existing.fulfillFault()
            guard !existing.isFault else { continue }
            continuingLastChange { upsert(new, into: existing) }
            merged = true
        }
        return merged
    }

    /// Moves a new object's values and references into an existing object with the same
    /// unique values, then discards the new object.
    private func upsert(_ new: ManagedObject, into existing: ManagedObject) {
        let objectTrumps = mergePolicy.objectTrumps
        let defaults = new.entity.attributeDefaults
        let transient = Set(new.entity.transientAttributePositions)
        for position in 0..<new.attributeValues.layout.count where !transient.contains(position) {
            let value = new.attributeValues[position: position]
            guard let value, value != defaults[position: position] else { continue }
            if objectTrumps || existing.attributeValues[position: position] == nil {
                primitiveSetAttribute(existing, position: position, value)
            }
        }
        for (position, relationship) in new.entity.relationships.enumerated() {
            if relationship.isToMany {
                for id in new.memberIDs(at: position) where id != existing.objectID {
                    let member = materialize(id)
                    removeFromToMany(new, position, member)
                    addToMany(existing, position, member)
                }
            } else if let id = new.toOneID(at: position) {
                let destination = materialize(id)
                setToOne(new, position, nil)
                if id != existing.objectID, objectTrumps || existing.toOneID(at: position) == nil {
                    setToOne(existing, position, destination)
                }
            }
        }
        redirectOneWayReferences(from: new, to: existing)
        delete(new, visited: [], notifying: false)
    }

    /// Objects of this context that refer to `old` through a relationship without an inverse
    /// (which ``upsert(_:into:)`` cannot reach from `old`) refer to `replacement` instead.
    private func redirectOneWayReferences(from old: ManagedObject, to replacement: ManagedObject) {
        let oneWay = coordinator.schema.oneWayRelationships
        guard !oneWay.isEmpty else { return }
        for object in changed.values where !object.isDeleted && object !== old {
            for (position, relationship) in object.entity.relationships.enumerated()
            where relationship.inverse == nil && old.entity.isKind(of: relationship.destination) {
                if relationship.isToMany {
                    guard object.memberIDs(at: position).contains(old.objectID) else { continue }
                    removeFromToMany(object, position, old)
                    addToMany(object, position, replacement)
                } else if object.toOneID(at: position) == old.objectID {
                    setToOne(object, position, replacement)
                }
            }
        }
    }
}
