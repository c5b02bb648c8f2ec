internal import OrderedCollections

/// Child contexts: a context whose parent is another context reads the parent's state —
/// unsaved changes included — as its store, and its save hands its changes to the parent,
/// which writes them when it saves (any depth: the root context writes to the stores).
extension ManagedObjectContext {
    /// A context whose objects come from `parent` as the parent holds them now, saved changes
    /// or not: an edit sheet that can be discarded, a batch of changes applied all at once.
    ///
    /// - Fetches see the parent's unsaved state (objects it inserted, changed, deleted), and
    ///   the child's own with `includesPendingChanges`.
    /// - ``save()`` validates (the model's rules and the app's; uniqueness against the stores
    ///   is checked when the root saves) and hands every change to the parent, as one undo group
    ///   there; nothing reaches a store until the parent saves, and its parent, up to the root.
    /// - Dropping the child (or ``rollback()``) leaves the parent untouched.
    /// - A change to an object the parent deleted since the child read it is a conflict: the
    ///   save fails with `mergeConflict` naming it, or under `mergeByPropertyStoreTrump` and
    ///   `rollback` the deletion wins and the object leaves the child (``MergePolicy``).
    /// - Objects are uniqued per context: the child has its own instance of each.
    /// - New objects keep their temporary IDs until the root saves; then every descendant of
    ///   the root re-keys its objects under their permanent IDs.
    /// - With ``automaticallyMergesChangesFromParent``, the child takes in what its siblings
    ///   save into the parent (a root context takes in what other contexts save to the stores).
    ///
    /// A child lives in its parent's isolation domain: its save changes the parent's objects
    /// directly. For work in another task, use a context of its own on the coordinator
    /// (``PersistentContainer/newBackgroundContext()``), whose saves the view context merges.
    public convenience init(parent: ManagedObjectContext) {
        self.init(coordinator: parent.coordinator, parent: parent)
        parent.children.removeAll { $0.context == nil }
        parent.children.append(WeakContext(self))
    }

    // MARK: - The state a context reads: its parent's, or the stores'

    /// Whether this context's or an ancestor's unsaved changes touch the entities of a request.
    func includesChanges(_ request: FetchRequest, _ entityNames: [String]) -> Bool {
        ownChangesApply(request, entityNames) || ancestorsHaveChanges(request, entityNames) != nil
    }

    func ownChangesApply(_ request: FetchRequest, _ entityNames: [String]) -> Bool {
        guard request.includesPendingChanges, !changed.isEmpty else { return false }
        let names = Set(entityNames)
        return changed.values.contains { names.contains($0.entity.name) && $0.hasChanges }
    }

    /// Whether an ancestor holds unsaved changes of the entities a request depends on (its own,
    /// and those its predicate and sort descriptors reach through relationships): then the
    /// stores' answer is not the parent's. Nil when none does; else whether the changes are of
    /// other entities than the request's own (then its predicate must be evaluated on the
    /// parent's objects, not asked of the stores).
    func ancestorsHaveChanges(_ request: FetchRequest, _ entityNames: [String]) -> Bool? {
        guard parent != nil else { return nil }
        let own = Set(entityNames)
        let names = RequestDependencies(request, schema: coordinator.schema).entityNames.union(own)
        var found: Bool?
        var context = parent
        while let current = context {
            for object in current.changed.values where names.contains(object.entity.name) && object.hasChanges {
                if !own.contains(object.entity.name) { return true }
                found = false
            }
            context = current.parent
        }
        return found
    }

    /// The records of every object of `entityNames` matching the request's predicate, as this
    /// context's source holds them, unwindowed and unsorted: the stores' for a root context or
    /// when no ancestor changed what the request depends on (`ancestorChanges` nil, from
    /// ``ancestorsHaveChanges(_:_:)``); else the parent's current state — every object of the
    /// entities, the predicate evaluated here, when the changes are of related objects.
    func sourceRecords(_ request: FetchRequest, _ entityNames: [String], ancestorChanges: Bool?) throws(StrataError) -> [StoreRecord] {
        guard let parent, let throughRelationships = ancestorChanges else {
            return try coordinator.fetchRecords(storeRequest(request, entityNames, windowed: false), caching: false)
        }
        var whole = request
        whole.includesPendingChanges = true
        whole.sortDescriptors = []
        whole.fetchLimit = 0
        whole.fetchOffset = 0
        whole.returnsObjectsAsFaults = false
        whole.fetchBatchSize = 0
        if throughRelationships { whole.predicate = nil }
        parent.processPendingMerges()
        let objects = try parent.fetchObjects(whole, validated: entityNames)
        guard throughRelationships, let predicate = request.predicate else { return objects.map { $0.record() } }
        // Evaluated on the parent's objects as they are now: its own fetch would ask the
        // stores about the related objects it changed.
        let evaluator = parent.objectEvaluator()
        var records: [StoreRecord] = []
        for object in objects {
            if try evaluator.evaluate(predicate, on: object) { records.append(object.record()) }
        }
        return records
    }

    /// An object's record as this context's source holds it; nil when it has none (deleted,
    /// or never saved).
    func sourceRecord(for id: ObjectID) throws(StrataError) -> StoreRecord? {
        guard let parent else { return try coordinator.record(for: id) }
        return try parent.currentRecord(of: id)
    }

    /// The records of objects as this context's source holds them, by ID (missing ones left out).
    func sourceRecords(for ids: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        guard parent != nil else { return try coordinator.records(for: ids) }
        var records: [ObjectID: StoreRecord] = [:]
        for id in ids {
            if let record = try sourceRecord(for: id) { records[id] = record }
        }
        return records
    }

    /// The members of a to-many relationship as this context's source holds them.
    func sourceRelatedObjectIDs(of id: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        guard let parent else { return try coordinator.relatedObjectIDs(of: id, relationship: relationship) }
        if let object = parent.registeredObject(for: id) {
            parent.fulfillFault(object)
            if let error = parent.unreadable[id] { throw error }
            return object.memberIDs(relationship)
        }
        return try parent.sourceRelatedObjectIDs(of: id, relationship: relationship)
    }

    /// The members of a to-many relationship for several objects, by object.
    func sourceRelatedObjectIDs(of ids: [ObjectID], relationship: String) throws(StrataError) -> [ObjectID: [ObjectID]] {
        guard parent != nil else { return try coordinator.relatedObjectIDs(of: ids, relationship: relationship) }
        var members: [ObjectID: [ObjectID]] = [:]
        for id in ids { members[id] = try sourceRelatedObjectIDs(of: id, relationship: relationship) }
        return members
    }

    /// An object as this context holds it now, for a child: its unsaved values, nil when it is
    /// deleted here or nowhere to be found. An object this context has not registered is read
    /// from its own source without registering it.
    private func currentRecord(of id: ObjectID) throws(StrataError) -> StoreRecord? {
        processPendingMerges()
        guard let object = registeredObject(for: id) else { return try sourceRecord(for: id) }
        if object.isFault {
            fulfillFault(object)
            if let error = unreadable[id] { throw error }
        }
        return object.isDeleted ? nil : object.record()
    }

    // MARK: - A child's save

    /// Hands a child's validated changes to its parent: new objects are inserted there under
    /// the same (temporary) IDs, changed properties set, deleted objects deleted (their delete
    /// rules acted in the child, on objects whose changes come along, and act again in the
    /// parent on references it made since the child read the objects). One undo group in the
    /// parent. Then the child's objects hold no changes, and the parent's other children that
    /// merge automatically take them in.
    func saveIntoParent(_ objects: SavedObjects) {
        guard let parent else { preconditionFailure("only a child context saves into a parent") }
        parent.change {
            // Every new object first: the others' references to them find them there.
            let copies = objects.inserted.map { parent.materializeInserted($0) }
            for (object, copy) in zip(objects.inserted, copies) {
                parent.copyChanges(of: object, into: copy, every: true)
            }
            for object in objects.updated {
                let target = parent.materialize(object.objectID)
                parent.fulfillFault(target)
                parent.copyChanges(of: object, into: target, every: false)
            }
            for object in objects.deleted where !object.isInserted {
                // Its delete rules act again on what the parent holds: references the parent
                // made to it since the child read it go too (the child's prepareForDeletion ran).
                let target = parent.materialize(object.objectID)
                parent.fulfillFault(target)
                parent.delete(target, visited: [], notifying: false)
            }
        }
        var records: [ObjectID: StoreRecord] = [:]
        for object in objects.deleted { unregister(object) }
        for object in objects.inserted + objects.updated {
            object.isInserted = false
            let record = object.record()
            for case .toMany(let members) in object.relationshipSlots { members.commit() }
            object.committed = record
            object.changedMask.removeAll()
            records[object.objectID] = record
        }
        changed.removeAll()
        let notification = SaveNotification(
            inserted: Set(objects.inserted.map(\.objectID)), updated: Set(objects.updated.map(\.objectID)),
            deleted: Set(objects.deleted.lazy.filter { !$0.isInserted }.map(\.objectID)),
            changedKeys: [:], records: records, sourceContext: identifier)
        for sibling in parent.liveChildren where sibling !== self && sibling.automaticallyMergesChangesFromParent {
            sibling.inbox.post(notification)
        }
        // The parent's observers (`changes`, results controllers) hear of the changes now, as
        // of any change of the parent's own that a `perform` ends.
        parent.processPendingChanges()
    }

    /// The objects a child's save changes that its parent has deleted since the child read them.
    func deletedInParent(_ objects: SavedObjects) -> Set<ObjectID> {
        guard let parent else { return [] }
        var gone: Set<ObjectID> = []
        for object in objects.updated where parent.registeredObject(for: object.objectID)?.isDeleted == true {
            gone.insert(object.objectID)
        }
        return gone
    }

    /// A new object of a child, inserted in this context under its ID.
    private func materializeInserted(_ object: ManagedObject) -> ManagedObject {
        if let registered = registeredObject(for: object.objectID) { return registered }
        let copy = materialize(object.objectID)
        copy.isFault = false
        insertions += 1
        copy.insertionIndex = insertions
        copy.requestedPrimaryKey = object.requestedPrimaryKey
        copy.attributeValues = copy.entity.attributeDefaults
        markInserted(copy, true)
        return copy
    }

    /// Sets on `target` the properties `object` (of a child) changed, or `every` property.
    /// To-manys are set without inverse upkeep: the child upheld inverses, and the objects on
    /// the other side come with the same save; a to-one is set with it, so that a destination
    /// the parent set since the child read the object lets it go. A changed to-many of a saved object takes
    /// the members the child added and removed (unless it moved members of an ordered one: then
    /// the child's list, with the members the parent added since at its end), so that what the
    /// parent changed since the child read it is kept.
    private func copyChanges(of object: ManagedObject, into target: ManagedObject, every: Bool) {
        let attributeCount = object.attributeValues.layout.count
        let bits = every ? Array(0..<(attributeCount + object.relationshipSlots.count)) : object.changedMask.positions
        for bit in bits {
            if bit < attributeCount {
                primitiveSetAttribute(target, position: bit, object.attributeValues[position: bit])
                continue
            }
            let position = bit - attributeCount
            if !object.entity.relationships[position].isToMany {
                // Through the operation that keeps inverses: a destination the parent set since
                // the child read the object lets it go.
                let id = object.toOneID(at: position)
                if target.toOneID(at: position) != id { setToOne(target, position, id.map(materialize)) }
                continue
            }
            var wanted = object.memberIDs(at: position)
            if !every, let changes = object.members(at: position)?.memberChanges {
                // What the child added and removed, not its whole list: members the parent
                // added or removed since the child read them stay as the parent has them.
                for id in changes.removed { primitiveRemove(target, position, id) }
                for id in wanted where changes.added.contains(id) { primitiveInsert(target, position, id) }
                continue
            }
            if !every, let read = object.committedMemberIDs(at: position) {
                // The child's order; members the parent added since the child read them stay,
                // at the end.
                let known = Set(read).union(wanted)
                wanted += target.memberIDs(at: position).filter { !known.contains($0) }
            }
            let wantedSet = Set(wanted)
            for id in target.memberIDs(at: position) where !wantedSet.contains(id) { primitiveRemove(target, position, id) }
            let ordered = object.entity.relationships[position].isOrdered
            for (index, id) in wanted.enumerated() {
                if ordered, let at = target.members(at: position)?.firstIndex(of: id), at != index {
                    primitiveRemove(target, position, id)
                }
                primitiveInsert(target, position, id, at: ordered ? index : nil)
            }
        }
    }

    // MARK: - Permanent IDs reach the children

    /// After the root saved: new objects' temporary IDs became permanent. Every descendant
    /// re-keys the objects it has under them and updates references to them.
    func adoptPermanentIDs(_ map: [ObjectID: ObjectID]) {
        guard !map.isEmpty else { return }
        for child in liveChildren {
            for (temporary, permanent) in map {
                if let object = child.registeredObject(for: temporary) { child.reregister(object, as: permanent) }
            }
            for object in child.registeredObjects {
                object.mapRelatedIDs(map)
                if let committed = object.committed, !committed.toOne.isEmpty || !committed.toMany.isEmpty {
                    object.committed = committed.mappingIDs { map[$0] ?? $0 }
                }
            }
            child.adoptPermanentIDs(map)
        }
    }

    /// The children still alive.
    var liveChildren: [ManagedObjectContext] {
        children.removeAll { $0.context == nil }
        return children.compactMap(\.context)
    }
}

/// A child context, not kept alive by its parent.
struct WeakContext {
    weak var context: ManagedObjectContext?
    init(_ context: ManagedObjectContext) { self.context = context }
}
