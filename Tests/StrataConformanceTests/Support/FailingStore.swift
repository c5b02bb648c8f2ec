import Foundation
import Strata
import Synchronization

/// Opens the inner factory's stores behind a ``FailingStore``.
struct FailingStoreFactory: PersistentStoreFactory {
    let inner: any PersistentStoreFactory

    static func type(wrapping type: StoreType) -> StoreType { StoreType(rawValue: "failing-\(type.rawValue)") }

    var type: StoreType { Self.type(wrapping: inner.type) }
    var fileExtensions: [String] { [] }
    func recognizes(header: Data) -> Bool { false }

    func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        FailingStore(try inner.open(url: url, schema: schema, configurationName: configurationName, options: options))
    }

    func metadata(at url: URL) throws(StrataError) -> StoreMetadata { try inner.metadata(at: url) }
}

/// A real store whose commit or reads can be made to fail. A failing commit writes everything
/// and runs the stores nested in it, then throws where the store would commit, so the real
/// store rolls its own changes back as it does for any failed commit. Failing reads make
/// `records(for:)` and `relatedObjectIDs(of:relationship:)` throw, as a damaged file would.
final class FailingStore: PersistentStore {
    let inner: any PersistentStore
    let failsAtCommit = Mutex(false)
    let failsReads = Mutex(false)
    /// Runs when a failing commit is reached, after the stores nested in it committed.
    let beforeFailing = Mutex<(@Sendable () throws -> Void)?>(nil)

    init(_ inner: any PersistentStore) { self.inner = inner }

    var type: StoreType { FailingStoreFactory.type(wrapping: inner.type) }
    var url: URL? { inner.url }
    var configurationName: String? { inner.configurationName }
    var capabilities: StoreCapabilities { inner.capabilities }
    var metadata: StoreMetadata { inner.metadata }
    var storeIdentifier: String { inner.storeIdentifier }

    func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        try inner.save(changes) { () throws(StrataError) in
            try beforeCommit()
            if failsAtCommit.withLock({ $0 }) {
                do {
                    try beforeFailing.withLock { $0 }?()
                } catch {
                    throw StrataError(.storeIO, "the test's beforeFailing failed: \(error)")
                }
                throw StrataError(.storeIO, "the disk went away while committing (a test failure)")
            }
        }
    }

    func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] { try inner.fetch(request) }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] { try inner.fetchObjectIDs(request) }
    func count(_ request: StoreFetchRequest) throws(StrataError) -> Int { try inner.count(request) }
    func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        try failIfReadsFail()
        return try inner.records(for: objectIDs)
    }
    func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        try failIfReadsFail()
        return try inner.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    private func failIfReadsFail() throws(StrataError) {
        if failsReads.withLock({ $0 }) {
            throw StrataError(.corruptStore, "a row cannot be decoded (a test failure)", file: url?.path)
        }
    }
    func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] { inner.uniquenessViolations(changes) }
    func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        try inner.allocatePrimaryKeys(rootEntity: rootEntity, count: count)
    }
    func setCustomMetadata(_ custom: [String: String]) throws(StrataError) { try inner.setCustomMetadata(custom) }
}
