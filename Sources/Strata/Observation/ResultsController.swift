internal import Foundation

/// Told when a ``ResultsController``'s results change.
public protocol ResultsControllerDelegate: AnyObject {
    /// The results changed from `old` to the controller's ``ResultsController/snapshot``, as
    /// `diff` describes, in the order a table view applies a batch update.
    func resultsController(_ controller: ResultsController, didChange diff: ResultsDiff, from old: ResultsSnapshot)
}

/// The results of a fetch request, kept current (Core Data's `NSFetchedResultsController`, for
/// any Swift app, with or without a UI): as its context changes, and as any context of the
/// coordinator — or another process, through the store's record of changes — saves.
///
/// It lives in its context's domain, as the context does. Each change of the results reaches
/// its ``delegate`` as a ``ResultsDiff`` (what a table view's batch update needs), and the
/// ``snapshots`` sequence as a new ``ResultsSnapshot``.
///
/// ```swift
/// var request = FetchRequest(entityName: "Todo", sortDescriptors: [FetchSortDescriptor("done"), FetchSortDescriptor("title")])
/// let controller = ResultsController(request: request, context: context, sectionKeyPath: "done")
/// try controller.performFetch()
/// for try await snapshot in controller.snapshots { render(snapshot) }
/// ```
///
/// When it updates: at once after a change of its context is reported (the end of each
/// ``ManagedObjectContext/perform(_:)``, ``ManagedObjectContext/processPendingChanges()``, a
/// merge, a save of the context); a save by another context or process marks it out of date,
/// and it updates when ``processChanges()`` is called, when its context next reports a change,
/// or, while something reads ``snapshots``, as soon as that reader runs. A save that touches
/// no entity the request depends on (its entity, and the destinations of the relationships its
/// predicate, sort descriptors and section key path follow) is ignored without fetching.
///
/// Sections: with a `sectionKeyPath`, one section per distinct value of that key path (a
/// to-one key path such as `list.name` is followed), in the order their first objects come in
/// the results, so sort by the section key first for sections in key order; a section's name
/// is its value as text (nil for no value). Without one, a single section named nil.
public final class ResultsController {
    public let request: FetchRequest
    public let context: ManagedObjectContext
    public let sectionKeyPath: String?
    public weak var delegate: (any ResultsControllerDelegate)?

    /// The results as of the last update.
    public private(set) var snapshot = ResultsSnapshot(sections: [])
    /// The objects of the results, section by section, as of the last update.
    public var fetchedObjects: [ManagedObject] { sectionObjects.flatMap { $0 } }
    /// The objects of each section.
    private var sectionObjects: [[ManagedObject]] = []
    /// Counts the updates that changed the results (``snapshots`` returns each new one).
    private(set) var generation = 0
    private(set) var hasFetched = false
    private var isProcessing = false

    let inbox = ResultsInbox()
    private let dependencies: RequestDependencies
    private var saveObserver: PersistentStoreCoordinator.ObserverToken?
    private var listener: UUID?

    /// - Parameters:
    ///   - request: what to fetch (objects; its limit and offset apply).
    ///   - context: where the objects live.
    ///   - sectionKeyPath: the key path whose values split the results into sections.
    public init(request: FetchRequest, context: ManagedObjectContext, sectionKeyPath: String? = nil) {
        self.request = request
        self.context = context
        self.sectionKeyPath = sectionKeyPath
        self.dependencies = RequestDependencies(request, sectionKeyPath: sectionKeyPath, schema: context.coordinator.schema)
    }

    deinit {
        if let saveObserver { context.coordinator.removeObserver(saveObserver) }
        if let listener { context.observation?.removeListener(listener) }
        inbox.finish()
    }

    /// Fetches the results and starts following their changes. The delegate is not called
    /// for this first fetch.
    /// - Throws: the fetch's error (`unknownEntity`, `invalidPredicate`, a store's error).
    public func performFetch() throws(StrataError) {
        startObserving()
        _ = inbox.take()
        let objects = try context.fetch(request)
        (snapshot, sectionObjects) = sectioned(objects)
        hasFetched = true
    }

    /// Brings the results up to date now, if any change since the last update may have changed
    /// them, and tells the delegate when they did.
    /// - Returns: whether the results changed.
    /// - Throws: the fetch's error; the controller stays out of date and tries again next time.
    @discardableResult
    public func processChanges() throws(StrataError) -> Bool {
        guard hasFetched, !isProcessing else { return false }
        isProcessing = true
        defer { isProcessing = false }
        var changedAny = false
        // A fetch may merge saves into the context, which marks the controller out of date
        // again: fetch until nothing is pending.
        while let changed = inbox.take() {
            let objects: [ManagedObject]
            do {
                objects = try context.fetch(request)
            } catch {
                inbox.note(changed)
                throw error
            }
            let (newSnapshot, newObjects) = sectioned(objects)
            // Objects are matched by identity; one that stays is updated when a change named it.
            var named: Set<ObjectIdentifier> = []
            for objects in newObjects {
                for object in objects where changed.contains(object.objectID) { named.insert(ObjectIdentifier(object)) }
            }
            let diff = ResultsDiff(
                old: snapshot, oldKeys: sectionObjects.map { $0.map(ObjectIdentifier.init) },
                new: newSnapshot, newKeys: newObjects.map { $0.map(ObjectIdentifier.init) }, isUpdated: named.contains)
            let old = snapshot
            (snapshot, sectionObjects) = (newSnapshot, newObjects)
            guard !diff.isEmpty else { continue }
            generation += 1
            changedAny = true
            delegate?.resultsController(self, didChange: diff, from: old)
        }
        return changedAny
    }

    /// The object at an index path of the results.
    public func object(at path: ResultsIndexPath) -> ManagedObject {
        sectionObjects[path.section][path.item]
    }

    /// The index path of an object in the results, if it is there.
    public func indexPath(of object: ManagedObject) -> ResultsIndexPath? {
        for (section, objects) in sectionObjects.enumerated() {
            if let item = objects.firstIndex(where: { $0 === object }) { return ResultsIndexPath(section: section, item: item) }
        }
        return nil
    }

    // MARK: - Following changes

    private func startObserving() {
        if saveObserver == nil {
            // Every save of the coordinator (this context's too: its new objects' IDs become
            // permanent) that touches an entity the results depend on.
            let inbox = self.inbox
            let dependencies = self.dependencies
            saveObserver = context.coordinator.addSaveObserver { notification in
                if dependencies.isAffected(by: notification) { inbox.note(notification.inserted.union(notification.updated).union(notification.deleted)) }
            }
        }
        if listener == nil {
            listener = context.changeObservation.addListener { [weak self] change in
                guard let self else { return }
                if dependencies.isAffected(by: change.allObjectIDs) { inbox.note(change.updated.union(change.refreshed)) }
                do {
                    try processChanges()
                } catch {
                    context.coordinator.logger.error("a results controller could not fetch its results: \(error)")
                }
            }
        }
    }

    /// The objects in sections, and their snapshot.
    private func sectioned(_ objects: [ManagedObject]) -> (ResultsSnapshot, [[ManagedObject]]) {
        guard let sectionKeyPath else {
            return (ResultsSnapshot(sections: [ResultsSnapshot.Section(name: nil, objectIDs: objects.map(\.objectID))]), [objects])
        }
        let components = sectionKeyPath.split(separator: ".").map(String.init)
        var names: [String?] = []
        var sectionOfName: [String?: Int] = [:]
        var sections: [[ManagedObject]] = []
        for object in objects {
            let name = Self.sectionName(of: object, components)
            if let index = sectionOfName[name] {
                sections[index].append(object)
            } else {
                sectionOfName[name] = sections.count
                names.append(name)
                sections.append([object])
            }
        }
        let snapshot = ResultsSnapshot(sections: sections.indices.map { ResultsSnapshot.Section(name: names[$0], objectIDs: sections[$0].map(\.objectID)) })
        return (snapshot, sections)
    }

    /// The value of a key path of an object, as a section name.
    private static func sectionName(of object: ManagedObject, _ components: [String]) -> String? {
        var current: ManagedObject = object
        for (index, key) in components.enumerated() {
            guard let value = current.value(forKey: key) else { return nil }
            if index == components.count - 1 {
                if let text = value as? String { return text }
                if let related = value as? ManagedObject { return related.objectID.description }
                return String(describing: value)
            }
            guard let next = value as? ManagedObject else { return String(describing: value) }
            current = next
        }
        return nil
    }
}

/// What a results controller has been told since its last update, from any task: whether it is
/// out of date, the objects the changes named, and the readers of its ``ResultsController/snapshots``
/// waiting to hear of it.
final class ResultsInbox: Sendable {
    private struct State {
        var isOutOfDate = false
        var changed: Set<ObjectID> = []
        var signals: [UUID: AsyncStream<Void>.Continuation] = [:]
    }

    private let state = Locked(State())

    /// Marks the results out of date; `ids` are objects whose values may have changed.
    func note(_ ids: Set<ObjectID>) {
        let signals = state.withLock { state in
            state.isOutOfDate = true
            state.changed.formUnion(ids)
            return Array(state.signals.values)
        }
        for signal in signals { signal.yield() }
    }

    /// The changed objects, when the results are out of date (and marks them current).
    func take() -> Set<ObjectID>? {
        state.withLock { state in
            guard state.isOutOfDate else { return nil }
            let changed = state.changed
            state.isOutOfDate = false
            state.changed = []
            return changed
        }
    }

    /// A signal each time the results go out of date (several in a row coalesce into one).
    func signals() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        state.withLock { $0.signals[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.signals[id] = nil } }
        return stream
    }

    func finish() {
        for signal in state.withLock({ Array($0.signals.values) }) { signal.finish() }
    }
}
