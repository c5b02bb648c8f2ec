internal import Foundation

/// What changed in a context's objects (Core Data's objects-did-change notification), as IDs:
/// `Sendable`, for any task to read from ``ManagedObjectContext/changes``.
///
/// - Local changes: objects inserted (with their temporary IDs), updated and deleted in the
///   context since the last report.
/// - Merged saves (``ManagedObjectContext/mergeChanges(from:)``, or automatic merging): the
///   save's inserted and deleted objects, and its updated objects as `refreshed` (their stored
///   values changed, whether or not this context holds them).
/// - ``ManagedObjectContext/refresh(_:mergeChanges:)``: the object, as `refreshed`.
public struct ObjectsDidChange: Sendable, Hashable {
    public var inserted: Set<ObjectID>
    public var updated: Set<ObjectID>
    public var deleted: Set<ObjectID>
    public var refreshed: Set<ObjectID>

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [], refreshed: Set<ObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.refreshed = refreshed
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty }

    /// Every ID this change names.
    public var allObjectIDs: Set<ObjectID> { inserted.union(updated).union(deleted).union(refreshed) }

    /// Both changes as one: what either inserted, updated, deleted or refreshed.
    public mutating func formUnion(_ other: ObjectsDidChange) {
        inserted.formUnion(other.inserted)
        updated.formUnion(other.updated)
        deleted.formUnion(other.deleted)
        refreshed.formUnion(other.refreshed)
    }
}

extension ManagedObjectContext {
    /// Objects-did-change reports of this context from now on, as an async sequence (Core
    /// Data's `NSManagedObjectContext.didChangeObjectsNotification`).
    ///
    /// Local changes are reported together at the end of each ``perform(_:)``, at the start
    /// of ``save()``, and when ``processPendingChanges()`` is called; merged saves and refreshes
    /// as they happen. Read it in any task:
    ///
    /// ```swift
    /// let changes = context.changes
    /// Task { for await change in changes { print(change.inserted.count, "inserted") } }
    /// ```
    ///
    /// No report is dropped: the sequence buffers every report until it is read, so a slow
    /// reader holds the reports it has not read yet in memory (each a few sets of IDs). The
    /// sequence ends when the task reading it is cancelled or the context is freed.
    public var changes: AsyncStream<ObjectsDidChange> {
        changeObservation.changeStream()
    }

    /// Reports the local changes made since the last report to ``changes`` and to the
    /// results controllers of this context now, instead of at the end of the current
    /// ``perform(_:)`` or at the next ``save()``.
    public func processPendingChanges() {
        observation?.flush()
    }

    /// The context's observation state, made when first needed.
    var changeObservation: ContextObservation {
        if let observation { return observation }
        let made = ContextObservation(context: self)
        observation = made
        return made
    }
}

/// What observes a context, kept by the context (in its domain): the local changes not yet
/// reported, the ``ManagedObjectContext/changes`` streams, and the results controllers.
final class ContextObservation {
    private unowned let context: ManagedObjectContext
    /// Objects changed since the last report, by identity (kept alive until reported).
    private var pending: [ObjectIdentifier: ManagedObject] = [:]
    /// The temporary IDs already reported as inserted: a later change of such an object is an
    /// update.
    private var reportedInserted: Set<ObjectID> = []
    private let streams = ChangeStreams()
    /// Called in the context's domain with every report (results controllers).
    private var listeners: [UUID: (ObjectsDidChange) -> Void] = [:]

    init(context: ManagedObjectContext) {
        self.context = context
    }

    deinit { streams.finishAll() }

    func changeStream() -> AsyncStream<ObjectsDidChange> {
        streams.make()
    }

    func addListener(_ listener: @escaping (ObjectsDidChange) -> Void) -> UUID {
        let id = UUID()
        listeners[id] = listener
        return id
    }

    func removeListener(_ id: UUID) {
        listeners[id] = nil
    }

    private var isObserved: Bool { !listeners.isEmpty || streams.isActive }

    /// An object changed in the context (an insert, a deletion, a new value).
    func noteLocalChange(_ object: ManagedObject) {
        guard isObserved else { return }
        pending[ObjectIdentifier(object)] = object
    }

    /// Reports the pending local changes.
    func flush() {
        guard !pending.isEmpty else { return }
        var change = ObjectsDidChange()
        for object in pending.values {
            let id = object.objectID
            if object.isInserted {
                if object.isDeleted {
                    if reportedInserted.remove(id) != nil { change.deleted.insert(id) }
                } else if reportedInserted.insert(id).inserted {
                    change.inserted.insert(id)
                } else {
                    change.updated.insert(id)
                }
            } else if object.isDeleted {
                change.deleted.insert(id)
            } else {
                change.updated.insert(id)
            }
        }
        pending.removeAll()
        post(change)
    }

    /// The context saved: its objects' temporary IDs are gone, and its controllers bring their
    /// results up to date.
    func didSave() {
        pending.removeAll()
        reportedInserted.removeAll()
        for listener in listeners.values { listener(ObjectsDidChange()) }
    }

    /// The context merged a save.
    func didMerge(_ notification: SaveNotification) {
        post(ObjectsDidChange(inserted: notification.inserted, deleted: notification.deleted, refreshed: notification.updated))
    }

    /// The context refreshed an object from its store.
    func didRefresh(_ id: ObjectID) {
        post(ObjectsDidChange(refreshed: [id]))
    }

    private func post(_ change: ObjectsDidChange) {
        guard !change.isEmpty else { return }
        streams.yield(change)
        for listener in listeners.values { listener(change) }
    }
}

/// The open ``ManagedObjectContext/changes`` streams of a context: `Sendable`, as a stream's
/// termination is reported from whichever task cancelled its reader.
final class ChangeStreams: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<ObjectsDidChange>.Continuation]>([:])

    var isActive: Bool { continuations.withLock { !$0.isEmpty } }

    func make() -> AsyncStream<ObjectsDidChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: ObjectsDidChange.self, bufferingPolicy: .unbounded)
        let id = UUID()
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.continuations.withLock { $0[id] = nil } }
        return stream
    }

    func yield(_ change: ObjectsDidChange) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    func finishAll() {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
