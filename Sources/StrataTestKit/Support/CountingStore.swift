public import Foundation
public import Strata
import Synchronization

/// Opens in-memory stores that count the requests they answer, so tests can see what reached
/// the store and what the coordinator's row cache answered. Every store this factory opens
/// shares one in-memory store, so a second coordinator sees the first one's data with a cold
/// cache.
///
/// ```swift
/// let factory = try CountingStoreFactory(schema: schema)
/// let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([factory]))
/// try coordinator.addStore(StoreDescription(type: CountingStoreFactory.type))
/// // ...
/// #expect(factory.count("fetch") == 1)
/// ```
///
/// The counted requests are `fetch`, `fetchObjectIDs`, `count`, `records`, `save` and
/// `related` (``CountingStore/relatedObjectIDs(of:relationship:)``).
public final class CountingStoreFactory: PersistentStoreFactory {
    /// The store type of counting stores, `counting`.
    public static let type: StoreType = "counting"
    private let shared: any PersistentStore
    private let counts = Mutex<[String: Int]>([:])

    /// A factory whose stores share one new in-memory store of `schema`.
    public init(schema: Schema) throws {
        shared = try InMemoryStoreFactory().open(url: nil, schema: schema, configurationName: nil, options: [:])
    }

    public var type: StoreType { Self.type }
    public var fileExtensions: [String] { [] }
    public func recognizes(header: Data) -> Bool { false }

    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        CountingStore(inner: shared, factory: self)
    }

    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        throw StrataError(.noStore, "a counting store has no file")
    }

    /// How many requests named `name` the stores answered since the last ``resetCounts()``.
    public func count(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
    func note(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    /// Forgets every count.
    public func resetCounts() { counts.withLock { $0 = [:] } }
}

/// A store of ``CountingStoreFactory``: the factory's shared in-memory store, counting.
public final class CountingStore: PersistentStore {
    let inner: any PersistentStore
    let factory: CountingStoreFactory

    init(inner: any PersistentStore, factory: CountingStoreFactory) {
        self.inner = inner
        self.factory = factory
    }

    public var type: StoreType { CountingStoreFactory.type }
    public var url: URL? { nil }
    public var configurationName: String? { nil }
    public var capabilities: StoreCapabilities { inner.capabilities }
    public var metadata: StoreMetadata { inner.metadata }
    public var storeIdentifier: String { inner.storeIdentifier }

    public func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        factory.note("fetch")
        return try inner.fetch(request)
    }

    public func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] {
        factory.note("fetchObjectIDs")
        return try inner.fetchObjectIDs(request)
    }

    public func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        factory.note("count")
        return try inner.count(request)
    }

    public func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        factory.note("records")
        return try inner.records(for: objectIDs)
    }

    public func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        factory.note("save")
        return try inner.save(changes, beforeCommit: beforeCommit)
    }

    public func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        factory.note("related")
        return try inner.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    public func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] { inner.uniquenessViolations(changes) }

    public func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        try inner.allocatePrimaryKeys(rootEntity: rootEntity, count: count)
    }

    public func setCustomMetadata(_ custom: [String: String]) throws(StrataError) { try inner.setCustomMetadata(custom) }
}
