internal import Foundation
internal import Strata

/// An open Core Data XML store: the records of an ``AtomicStore`` read from the file, answered
/// in memory; every save refused, so that the file is never written (nor its lock file made).
final class CoreDataXMLStore: PersistentStore {
    private let store: AtomicStore

    init(_ store: AtomicStore) {
        self.store = store
    }

    static func readOnlyError(_ path: String?) -> StrataError {
        StrataError(
            .storeIO,
            "Core Data XML stores are read-only in Strata; nothing was written. Convert the store to a Strata store (strata convert, StoreConverter) and change that",
            file: path)
    }

    var type: StoreType { store.type }
    var url: URL? { store.url }
    var configurationName: String? { store.configurationName }
    var capabilities: StoreCapabilities { store.capabilities }
    var metadata: StoreMetadata { store.metadata }
    var storeIdentifier: String { store.storeIdentifier }

    func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] { try store.fetch(request) }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws(StrataError) -> [ObjectID] { try store.fetchObjectIDs(request) }
    func count(_ request: StoreFetchRequest) throws(StrataError) -> Int { try store.count(request) }
    func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] { try store.records(for: objectIDs) }
    func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        try store.relatedObjectIDs(of: objectID, relationship: relationship)
    }
    func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] { store.uniquenessViolations(changes) }

    func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        throw Self.readOnlyError(url?.path)
    }

    func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        throw Self.readOnlyError(url?.path)
    }

    func setCustomMetadata(_ custom: [String: String]) throws(StrataError) {
        throw Self.readOnlyError(url?.path)
    }
}
