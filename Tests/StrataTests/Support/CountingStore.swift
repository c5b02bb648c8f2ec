import Foundation
import Strata
import Synchronization

/// An in-memory store that counts the requests it answers, so tests can see what reached the
/// store and what the coordinator's row cache answered. Every store this factory opens shares
/// one in-memory store, so a second coordinator sees the first one's data with a cold cache.
final class CountingStoreFactory: PersistentStoreFactory {
    static let type: StoreType = "counting"
    private let shared: any PersistentStore
    let counts = Mutex<[String: Int]>([:])

    init(schema: Schema) throws {
        shared = try InMemoryStoreFactory().open(url: nil, schema: schema, configurationName: nil, options: [:])
    }

    var type: StoreType { Self.type }
    var fileExtensions: [String] { [] }
    func recognizes(header: Data) -> Bool { false }

    func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        CountingStore(inner: shared, factory: self)
    }

    func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        throw StrataError(.noStore, "a counting store has no file")
    }

    func count(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
    func note(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    func resetCounts() { counts.withLock { $0 = [:] } }
}

final class CountingStore: PersistentStore {
    let inner: any PersistentStore
    let factory: CountingStoreFactory

    init(inner: any PersistentStore, factory: CountingStoreFactory) {
        self.inner = inner
        self.factory = factory
    }

    var type: StoreType { CountingStoreFactory.type }
    var url: URL? { nil }
    var configurationName: String? { nil }
    var capabilities: StoreCapabilities { inner.capabilities }
    var metadata: StoreMetadata { inner.metadata }
    var storeIdentifier: String { inner.storeIdentifier }

    func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] {
        factory.note("fetch")
        return try inner.fetch(request)
    }

    func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] {
        factory.note("fetchObjectIDs")
        return try inner.fetchObjectIDs(request)
    }

    func count(_ request: StoreFetchRequest) throws(StrataError) -> Int {
        factory.note("count")
        return try inner.count(request)
    }

    func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        factory.note("records")
        return try inner.records(for: objectIDs)
    }

    func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        factory.note("save")
        return try inner.save(changes, beforeCommit: beforeCommit)
    }

    func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        factory.note("related")
        return try inner.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] { inner.uniquenessViolations(changes) }

    func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        try inner.allocatePrimaryKeys(rootEntity: rootEntity, count: count)
    }

    func setCustomMetadata(_ custom: [String: String]) throws(StrataError) { try inner.setCustomMetadata(custom) }
}
