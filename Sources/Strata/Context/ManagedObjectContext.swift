internal import Foundation
internal import OrderedCollections

/// A scratch pad of objects: insert, change and delete them, then save every change at once.
///
/// A context keeps one object per stored record (uniquing), tracks what changed, validates and
/// applies delete rules on save, and can roll back, reset, undo and redo. It lives in one
/// isolation domain and is not `Sendable`: create one per task (``PersistentContainer``'s
/// `newBackgroundContext()` or `performBackgroundTask`) and pass ``ObjectID``s between them.
///
/// ```swift
/// let context = container.newBackgroundContext()
/// let todo = try context.insertObject(entityName: "Todo")
/// todo["title"] = "Buy milk"
/// try context.save()
/// ```
public final class ManagedObjectContext {
    public let coordinator: PersistentStoreCoordinator
    /// A name for logs and debugging.
    public var name: String?
    /// How a save resolves conflicts with what others saved (``MergePolicy``); `.error` fails it.
    public var mergePolicy: MergePolicy = .error
    /// Undo and redo; nil (the default) keeps no history.
    @exclusivity(unchecked) public var undoManager: UndoStack?
    /// When true, changes saved to this context's parent are merged into it at the start of its
    /// next operation (fetch, save, object lookup), as in Core Data: for a context on the
    /// coordinator, what other contexts save to the stores; for a child context
    /// (``init(parent:)``), what its siblings save into the parent.
    public var automaticallyMergesChangesFromParent = false {
        didSet { updateMergeSubscription() }
    }

    let identifier = UUID()
    // The state touched on every insert and change is not checked for exclusive access at run
    // time (see ``ManagedObject``): a context is used in one domain, its accesses never overlap.
    /// Every object the context knows, without keeping it alive: unchanged objects live as long
    /// as the app keeps them, and an object leaves the registry when it is freed
    /// (``forget(slot:_:)``, from its `deinit`), so the registry needs no weak references.
    private let registry = ObjectRegistry()
    /// Objects that still name this context but left the registry for another object registered
    /// under their ID, until they are freed: the context clears their reference to it too.
    @exclusivity(unchecked) private var displaced: [UnsafeRawPointer: Unmanaged<ManagedObject>] = [:]
    /// Objects with unsaved changes, kept alive until they are saved or rolled back.
    @exclusivity(unchecked) var changed = ChangedObjects()
    @exclusivity(unchecked) var insertions = 0
    @exclusivity(unchecked) private var mergeSubscription: PersistentStoreCoordinator.ObserverToken?
    /// Objects whose stored state could not be read (a store error, not a missing record), with
    /// the error: they stay faults, and the context refuses to save while any is registered, so
    /// that nothing it failed to read is written back as empty.
    var unreadable: [ObjectID: StrataError] = [:]
    let inbox = MergeInbox()
    /// Entities and classes by entity name, as of a generation of the coordinator's classes.
    @exclusivity(unchecked) private var objectKinds: (generation: Int, kinds: [String: ObjectKind]) = (-1, [:])
    /// The permanent IDs new objects got in saves, by their temporary IDs, kept while there is
    /// undo history: undoing a change made before the save finds the objects it names.
    var savedIDs: [ObjectID: ObjectID] = [:]
    /// How many store-trump rounds of resolving merge conflicts the save in progress is in.
    var resolvingConflicts = 0
    /// Who observes this context's changes (``changes``, results controllers); nil until asked.
    @exclusivity(unchecked) var observation: ContextObservation?

    /// The context this one reads from and saves into (``init(parent:)``); nil for a context
    /// on the coordinator, which reads from and saves to the stores.
    public let parent: ManagedObjectContext?
    /// The contexts whose parent this one is.
    var children: [WeakContext] = []

    public init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        self.parent = nil
    }

    init(coordinator: PersistentStoreCoordinator, parent: ManagedObjectContext?) {
        self.coordinator = coordinator
        self.parent = parent
    }

    deinit {
        if let mergeSubscription { coordinator.removeObserver(mergeSubscription) }
        // Objects refer to their context without keeping it alive, and unlike a weak reference
        // theirs does not become nil by itself (``ManagedObject/owningContext``).
        registry.forEachObject { $0.owningContext = nil }
        for object in displaced.values { object.takeUnretainedValue().owningContext = nil }
    }

    /// Runs `body` in this context's domain, as one undo group.
    public func perform<T>(_ body: () throws -> T) rethrows -> T {
        processPendingMerges()
        defer { observation?.flush() }
        if let undoManager { return try undoManager.group(body) }
        return try body()
    }

    // MARK: - Registered objects

    public var hasChanges: Bool { changed.values.contains { $0.hasChanges } }
    public var insertedObjects: Set<ManagedObject> { Set(changed.values.filter { $0.isInserted && !$0.isDeleted }) }
    public var updatedObjects: Set<ManagedObject> { Set(changed.values.filter(\.isUpdated)) }
    public var deletedObjects: Set<ManagedObject> { Set(changed.values.filter { $0.isDeleted && !$0.isInserted }) }
    /// Every object of the context that is still alive.
    public var registeredObjects: Set<ManagedObject> {
        Set(registry.objects).union(changed.values)
    }

    func registeredObject(for id: ObjectID) -> ManagedObject? {
        registry.object(for: id)
    }

    private func register(_ object: ManagedObject) {
        insertIntoRegistry(object)
        object.managedObjectContext = self
    }

    private func insertIntoRegistry(_ object: ManagedObject) {
        if !displaced.isEmpty { displaced[Self.pointer(object)] = nil }
        if let other = registry.insert(object) { displaced[Self.pointer(other)] = Unmanaged.passUnretained(other) }
    }

    private static func pointer(_ object: ManagedObject) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }

    /// An object of this context is being freed: it leaves the registry, if its entry at `slot`
    /// is still its own.
    func forget(slot: Int, _ object: UnsafeRawPointer) {
        if slot >= 0 {
            registry.remove(slot: slot, object)
        } else if !displaced.isEmpty {
            displaced[object] = nil
        }
    }

    func unregister(_ object: ManagedObject) {
        registry.remove(object)
        if !displaced.isEmpty { displaced[Self.pointer(object)] = nil }
        changed.remove(object)
        object.managedObjectContext = nil
    }

    /// The ID an object has now: the permanent one a save gave it for a temporary ID that undo
    /// history still holds.
    func currentID(_ id: ObjectID) -> ObjectID {
        id.isTemporary ? savedIDs[id] ?? id : id
    }

    /// Re-keys objects whose IDs became permanent in a save, `ids` in their order. All leave
    /// the registry first, then all come back: when they were all it held (a save of new
    /// objects), it starts afresh before they come back, without tombstones to rehash.
    func reregister(savedObjects objects: [ManagedObject], as ids: [ObjectID]) {
        if let undoManager, undoManager.canUndo || undoManager.canRedo {
            for (index, object) in objects.enumerated() { savedIDs[object.objectID] = ids[index] }
        }
        for object in objects { registry.remove(object) }
        registry.reserveCapacity(objects.count)
        for (index, object) in objects.enumerated() {
            object.objectID = ids[index]
            insertIntoRegistry(object)
            object.managedObjectContext = self
        }
    }

    /// Drops the undo history, and the IDs kept for it.
    func clearUndoHistory() {
        undoManager?.removeAll()
        savedIDs.removeAll()
    }

    /// Re-keys an object whose ID became permanent.
    func reregister(_ object: ManagedObject, as id: ObjectID) {
        registry.remove(object)
        object.objectID = id
        insertIntoRegistry(object)
        // A registered object must name this context, or its `deinit` would not take it out of
        // the registry, which would then hold a freed object.
        object.managedObjectContext = self
    }

    /// Keeps an object with changes alive, or lets a clean one go.
    func noteChange(_ object: ManagedObject) {
        observation?.noteLocalChange(object)
        if object.hasChanges {
            changed.insert(object)
        } else {
            changed.remove(object)
        }
    }

    /// Registers a new object as inserted, with its attributes' defaults.
    func register(inserted object: ManagedObject) {
        processPendingMerges()
        object.isFault = false
        insertions += 1
        object.insertionIndex = insertions
        object.attributeValues = object.entity.attributeDefaults
        register(object)
        markInserted(object, true)
        object.awakeFromInsert()
    }

    // MARK: - Inserting, finding

    /// Inserts a new object of `entityName` (an instance of the class bound to it, if any).
    /// - Parameter entityName: the entity's name in the model.
    /// - Parameter primaryKey: the primary key the object gets at save (imports keep their
    ///   `@id`); by default the store picks the next free one.
    /// - Throws: `unknownEntity`, or `invalidData` for an abstract entity.
    @discardableResult
    public func insertObject(entityName: String, primaryKey: Int64? = nil) throws(StrataError) -> ManagedObject {
        guard let kind = cachedObjectKind(entityName) else { throw coordinator.unknownEntity(entityName) }
        let entity = kind.entity
        guard !entity.isAbstract else {
            throw StrataError(.invalidData, "entity '\(entityName)' is abstract and cannot have objects of its own; insert one of its subentities (\(entity.subentityNames.joined(separator: ", ")))")
        }
        let object = kind.type.init(entity: entity, objectID: ObjectID(temporaryFor: entityName))
        object.requestedPrimaryKey = primaryKey
        if let undoManager {
            undoManager.group { register(inserted: object) }
        } else {
            register(inserted: object)
        }
        return object
    }

    /// Inserts a new object of a class bound to an entity.
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        let object: ManagedObject
        do {
            object = try insertObject(entityName: T.entityName)
        } catch {
            preconditionFailure("cannot insert a \(T.self): \(error)")
        }
        guard let typed = object as? T else {
            preconditionFailure("\(T.self) is not registered with the coordinator for entity '\(T.entityName)'")
        }
        return typed
    }

    /// The object for an ID: the registered one, or a new fault that loads when first touched.
    /// Use ``existingObject(with:)`` to check that the object exists.
    public func object(with id: ObjectID) -> ManagedObject {
        processPendingMerges()
        return materialize(id)
    }

    func materialize(_ id: ObjectID) -> ManagedObject {
        if let object = registry.object(for: id) { return object }
        return makeObject(id, kind: objectKind(id.entityName))
    }

    /// What an object of an entity is made of: its entity and its class.
    typealias ObjectKind = (entity: EntityDescription, type: ManagedObject.Type)

    private func objectKind(_ entityName: String) -> ObjectKind {
        guard let kind = cachedObjectKind(entityName) else {
            preconditionFailure("an object ID names entity '\(entityName)', which the model does not have")
        }
        return kind
    }

    /// The entity and class of `entityName`, looked up once per context (again after the
    /// coordinator registers a class); nil when the model has no such entity.
    private func cachedObjectKind(_ entityName: String) -> ObjectKind? {
        let generation = coordinator.registeredClassGeneration
        if generation != objectKinds.generation {
            objectKinds = (generation, [:])
        }
        if let kind = objectKinds.kinds[entityName] { return kind }
        guard let entity = coordinator.schema.entity(named: entityName) else { return nil }
        let kind = (entity, coordinator.objectClass(for: entityName))
        objectKinds.kinds[entityName] = kind
        return kind
    }

    private func makeObject(_ id: ObjectID, kind: ObjectKind) -> ManagedObject {
        let object = kind.type.init(entity: kind.entity, objectID: id)
        register(object)
        return object
    }

    /// Registers (or refreshes unchanged) objects from stored records, in order: a fetch's
    /// results.
    func materialize(_ records: consuming [StoreRecord]) -> [ManagedObject] {
        registry.reserveCapacity(records.count)
        // Each record is moved into its object, not copied (a copy of a record retains each of
        // its collections, and its original is freed after): the records are reversed in place
        // and taken from the end, so that objects are still made in the fetch's order.
        records.withUnsafeMutableBufferPointer { $0.reverse() }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(records.count)
        // Rows of one entity come in runs: its kind is looked up once per run, not by hashing
        // its name for every row.
        var run: (id: ObjectID, kind: ObjectKind)?
        while let record = records.popLast() {
            let id = record.objectID
            let object: ManagedObject
            if let registered = registry.object(for: id) {
                object = registered
            } else {
                if run.map({ !$0.id.hasEntity(of: id) }) ?? true { run = (id, objectKind(id.entityName)) }
                object = makeObject(id, kind: run!.kind)
            }
            refresh(object, from: consume record)
            objects.append(object)
        }
        return objects
    }

    /// Registers (or refreshes an unchanged) object from a stored record.
    func materialize(_ record: StoreRecord) -> ManagedObject {
        let object = materialize(record.objectID)
        refresh(object, from: record)
        return object
    }

    /// Fills a fault from a stored record, or brings an unchanged object up to a newer version.
    private func refresh(_ object: ManagedObject, from record: consuming StoreRecord) {
        if object.isFault || (!object.hasChanges && object.committed?.version != record.version) {
            let wasFault = object.isFault
            object.apply(consume record)
            if wasFault { object.awakeFromFetch() }
        }
    }

    /// The object for an ID, loaded; throws `objectNotFound` when no store holds it.
    public func existingObject(with id: ObjectID) throws(StrataError) -> ManagedObject {
        processPendingMerges()
        if let object = registry.object(for: id), !object.isFault { return object }
        if id.isTemporary && parent == nil {
            throw StrataError(.objectNotFound, "no object with temporary ID \(id) is registered in this context")
        }
        guard let record = try sourceRecord(for: id) else {
            throw StrataError(.objectNotFound, parent == nil ? "no store holds \(id)" : "the parent context holds no \(id)")
        }
        return materialize(record)
    }

    func fulfillFault(_ object: ManagedObject) {
        guard object.isFault else { return }
        switch storedRecord(of: object.objectID) {
        case .found(let record):
            object.apply(record)
            object.awakeFromFetch()
        case .missing:
            // No store holds the record (another context deleted it): the object reads as empty
            // and deleted, rather than trapping.
            object.isFault = false
            object.isDeleted = true
            object.committed = nil
        case .unreadable:
            // The object stays a fault: it reads as empty, is tried again when next touched,
            // and the context will not save until it is read.
            break
        }
    }

    enum StoredRead {
        case found(StoreRecord)
        case missing
        /// The store could not be read; the error is in ``unreadable``.
        case unreadable
    }

    /// An object's saved state from the coordinator; a read error is noted in ``unreadable``
    /// (and a successful read clears an earlier one).
    func storedRecord(of id: ObjectID) -> StoredRead {
        do {
            let record = try sourceRecord(for: id)
            unreadable[id] = nil
            return record.map { .found($0) } ?? .missing
        } catch {
            noteUnreadable(id, error)
            return .unreadable
        }
    }

    /// Remembers that an object's stored state could not be read (see ``unreadable``).
    func noteUnreadable(_ id: ObjectID, _ error: StrataError) {
        coordinator.logger.error("cannot read \(id) from its store: \(error)")
        unreadable[id] = error
    }

    /// The first read error of an object still registered, as the error a save throws.
    func unreadableObjectError() -> StrataError? {
        unreadable = unreadable.filter { registry.object(for: $0.key) != nil }
        guard let (id, error) = unreadable.min(by: { $0.key < $1.key }) else { return nil }
        var refusal = error
        refusal.message = "\(id) could not be read from its store, so the save was refused and nothing was written: \(error.message). Reset the context, or refresh the object once the store can be read"
        return refusal
    }

    // MARK: - Rollback, reset, refresh

    /// Drops every unsaved change: inserted objects leave the context, others get their saved
    /// values back. Clears the undo history.
    public func rollback() {
        for object in Array(changed.values) {
            if object.isInserted {
                object.isDeleted = true
                unregister(object)
            } else if let record = object.committed {
                object.isDeleted = false
                object.apply(record)
                noteChange(object)
            }
        }
        changed.removeAll()
        clearUndoHistory()
    }

    /// Forgets every object: registered objects become unusable (their context is nil).
    public func reset() {
        registry.forEachObject { $0.owningContext = nil }
        for object in displaced.values { object.takeUnretainedValue().owningContext = nil }
        displaced.removeAll()
        for object in changed.values { object.managedObjectContext = nil }
        registry.removeAll()
        changed.removeAll()
        unreadable.removeAll()
        clearUndoHistory()
    }

    /// Reloads an object from the store: as a fault when `mergeChanges` is false (dropping its
    /// unsaved changes), or keeping its unsaved changes on top of the stored values when true.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.managedObjectContext === self, !object.isInserted else { return }
        coordinator.evictCachedRecord(object.objectID)
        observation?.didRefresh(object.objectID)
        if mergeChanges && object.hasChanges {
            guard case .found(let record) = storedRecord(of: object.objectID) else { return }
            merge(record, into: object)
        } else {
            object.isDeleted = false
            object.willTurnIntoFault()
            object.turnIntoFault()
            object.didTurnIntoFault()
            noteChange(object)
        }
    }

    /// Takes stored values for the keys the object has not changed; keeps its own changes: a
    /// to-many it changed keeps its members, or with `replayingMembers` takes the stored members
    /// with its own additions and removals made again.
    func merge(_ record: StoreRecord, into object: ManagedObject, replayingMembers: Bool = false) {
        let local = object.isInserted ? [] : object.changedMask.positions
        let attributes = object.attributeValues
        let slots = object.relationshipSlots
        object.apply(record)
        let attributeCount = attributes.layout.count
        for bit in local {
            if bit < attributeCount {
                object.attributeValues[position: bit] = attributes[position: bit]
            } else {
                let position = bit - attributeCount
                let slot = slots[position]
                if case .toMany(let members) = slot {
                    // The saved members, read now if the record left them to load later: a
                    // change is kept against them, not against none.
                    let saved = object.committedMemberIDs(at: position) ?? []
                    if replayingMembers { members.replayChanges(onto: saved) } else { members.rebase(onto: saved) }
                }
                object.relationshipSlots[position] = slot
            }
            object.updateChangedBit(bit)
        }
        noteChange(object)
    }

    // MARK: - Undo

    public func undo() {
        processPendingMerges()
        undoManager?.undo()
    }

    public func redo() {
        processPendingMerges()
        undoManager?.redo()
    }

    // MARK: - Merging other contexts' saves

    private func updateMergeSubscription() {
        // A child hears of its siblings' saves from its parent (``saveIntoParent(_:)``).
        guard parent == nil else { return }
        if automaticallyMergesChangesFromParent, mergeSubscription == nil {
            let inbox = self.inbox
            let source = identifier
            mergeSubscription = coordinator.addSaveObserver { notification in
                if notification.sourceContext != source { inbox.post(notification) }
            }
        } else if !automaticallyMergesChangesFromParent, let token = mergeSubscription {
            coordinator.removeObserver(token)
            mergeSubscription = nil
        }
    }

    /// Merges saves posted since the last operation (automatic merging).
    func processPendingMerges() {
        guard mergeSubscription != nil || (parent != nil && automaticallyMergesChangesFromParent) else { return }
        for notification in inbox.take() { mergeChanges(from: notification) }
    }

    /// Removes the objects another save deleted from the relationships of this context's
    /// changed objects: saved, they would refer to objects that are gone. (Stored references
    /// through an inverse were updated by the save that deleted them, by their delete rules, and
    /// their new state arrives with it; this covers what the context set and has not saved, and
    /// relationships without an inverse.) A required relationship left empty is then a
    /// validation failure at the next save, as for any other.
    private func letGoOfDeleted(_ deleted: Set<ObjectID>) {
        for object in Array(changed.values) where !object.isDeleted {
            let relationships = object.entity.relationships
            for position in relationships.indices {
                let key = relationships[position].name
                if relationships[position].isToMany {
                    for id in object.memberIDs(at: position) where deleted.contains(id) {
                        if let member = registry.object(for: id) {
                            object.removeObject(member, forKey: key)
                        } else {
                            // A member known by its ID only: no object of it has a side to update.
                            change { primitiveRemove(object, position, id) }
                        }
                    }
                } else if let id = object.toOneID(at: position), deleted.contains(id) {
                    object.setObject(nil, forKey: key)
                }
            }
        }
    }

    /// Takes objects the store no longer holds (a save found them gone) as deleted by another
    /// save: they leave the context, and this context's changed objects let go of them.
    func forgetDeletedFromStore(_ ids: Set<ObjectID>) {
        for id in ids { coordinator.evictCachedRecord(id) }
        mergeChanges(from: SaveNotification(inserted: [], updated: [], deleted: ids, changedKeys: [:], records: [:], sourceContext: nil))
    }

    /// Brings another context's save into this one: inserted objects can now be fetched,
    /// updated objects take the saved values (keeping this context's own unsaved changes on
    /// top), deleted objects leave the context.
    public func mergeChanges(from notification: SaveNotification) {
        defer { observation?.didMerge(notification) }
        if !notification.deleted.isEmpty { letGoOfDeleted(notification.deleted) }
        for id in notification.deleted {
            guard let object = registry.object(for: id) else { continue }
            object.isDeleted = true
            object.isFault = false
            unregister(object)
        }
        for (id, record) in notification.records {
            guard let object = registry.object(for: id), !object.isFault else { continue }
            if object.hasChanges {
                merge(record, into: object)
            } else {
                object.apply(record)
            }
        }
        // A batch update sends no records: objects read from the store again.
        guard notification.records.count < notification.updated.count else { return }
        for id in notification.updated where notification.records[id] == nil {
            guard let object = registry.object(for: id), !object.isFault else { continue }
            refresh(object, mergeChanges: object.hasChanges)
        }
    }
}

/// Saves posted by the coordinator (from any task) until the context takes them (in its own).
final class MergeInbox: Sendable {
    private let pending = Locked<[SaveNotification]>([])

    func post(_ notification: SaveNotification) {
        pending.withLock { $0.append(notification) }
    }

    func take() -> [SaveNotification] {
        pending.withLock { pending in
            let taken = pending
            pending.removeAll()
            return taken
        }
    }
}

/// Contexts stay in one isolation domain; send `ObjectID`s and snapshots between them.
@available(*, unavailable)
extension ManagedObjectContext: @unchecked Sendable {}
