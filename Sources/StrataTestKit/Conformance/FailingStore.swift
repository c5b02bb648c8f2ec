package import Foundation
package import Strata
package import Synchronization

/// Opens the inner factory's stores behind a ``FailingStore``.
package struct FailingStoreFactory: PersistentStoreFactory {
    package let inner: any PersistentStoreFactory

    package init(inner: any PersistentStoreFactory) { self.inner = inner }

    package static func type(wrapping type: StoreType) -> StoreType { StoreType(rawValue: "failing-\(type.rawValue)") }

    package var type: StoreType { Self.type(wrapping: inner.type) }
    package var fileExtensions: [String] { [] }
    package func recognizes(header: Data) -> Bool { false }

    package func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        FailingStore(try inner.open(url: url, schema: schema, configurationName: configurationName, options: options))
    }

    package func metadata(at url: URL) throws(StrataError) -> StoreMetadata { try inner.metadata(at: url) }
}

/// A real store whose commit or reads can be made to fail. A failing commit writes everything
/// and runs the stores nested in it, then throws where the store would commit, so the real
/// store rolls its own changes back as it does for any failed commit. Failing reads make
/// `records(for:)` and `relatedObjectIDs(of:relationship:)` throw, as a damaged file would.
package final class FailingStore: PersistentStore {
    package let inner: any PersistentStore
    package let failsAtCommit = Mutex(false)
    package let failsReads = Mutex(false)
    /// Runs when a failing commit is reached, after the stores nested in it committed.
    package let beforeFailing = Mutex<(@Sendable () throws -> Void)?>(nil)
    /// Runs at every commit, after the stores nested in it committed and before this one
    /// commits (to break the connection a server store commits on, say).
    package let beforeCommitting = Mutex<(@Sendable () -> Void)?>(nil)

    package init(_ inner: any PersistentStore) { self.inner = inner }

    package var type: StoreType { FailingStoreFactory.type(wrapping: inner.type) }
    package var url: URL? { inner.url }
    package var configurationName: String? { inner.configurationName }
    package var capabilities: StoreCapabilities { inner.capabilities }
    package var metadata: StoreMetadata { inner.metadata }
    package var storeIdentifier: String { inner.storeIdentifier }

    package func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        try inner.save(changes) { () throws(StrataError) in
            try beforeCommit()
            beforeCommitting.withLock { $0 }?()
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

    package func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] { try inner.fetch(request) }
    package func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] { try inner.fetchObjectIDs(request) }
    package func count(_ request: StoreFetchRequest) throws(StrataError) -> Int { try inner.count(request) }
    package func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] {
        try failIfReadsFail()
        return try inner.records(for: objectIDs)
    }
    package func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        try failIfReadsFail()
        return try inner.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    private func failIfReadsFail() throws(StrataError) {
        if failsReads.withLock({ $0 }) {
            throw StrataError(.corruptStore, "a row cannot be decoded (a test failure)", file: url?.path)
        }
    }
    package func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] { inner.uniquenessViolations(changes) }
    package func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        try inner.allocatePrimaryKeys(rootEntity: rootEntity, count: count)
    }
    package func setCustomMetadata(_ custom: [String: String]) throws(StrataError) { try inner.setCustomMetadata(custom) }
}
