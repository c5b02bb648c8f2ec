import Foundation
import Strata
import StrataTestKit
import Testing

// A store written outside Strata, tested the way its own package would test it: only the
// public API of Strata and StrataTestKit (no `@testable import`), a factory, one `StoreKind`,
// and one parameterised test that runs every conformance check that applies to it.

/// A store that keeps its objects in Strata's in-memory store, under a type of its own: the
/// smallest complete `PersistentStore` a third party can write.
final class WrappedMemoryStore: PersistentStore {
    static let type = StoreType(rawValue: "wrapped-memory")
    private let inner: any PersistentStore

    init(_ inner: any PersistentStore) { self.inner = inner }

    var type: StoreType { Self.type }
    var url: URL? { nil }
    var configurationName: String? { inner.configurationName }
    var capabilities: StoreCapabilities { inner.capabilities }
    var metadata: StoreMetadata {
        var metadata = inner.metadata
        metadata.storeType = Self.type
        return metadata
    }
    var storeIdentifier: String { inner.storeIdentifier }

    func fetch(_ request: StoreFetchRequest) throws(StrataError) -> [StoreRecord] { try inner.fetch(request) }
    func count(_ request: StoreFetchRequest) throws(StrataError) -> Int { try inner.count(request) }
    func records(for objectIDs: [ObjectID]) throws(StrataError) -> [ObjectID: StoreRecord] { try inner.records(for: objectIDs) }
    func save(_ changes: StoreChangeset, beforeCommit: () throws(StrataError) -> Void) throws(StrataError) -> StoreSaveResult {
        try inner.save(changes, beforeCommit: beforeCommit)
    }
    func relatedObjectIDs(of objectID: ObjectID, relationship: String) throws(StrataError) -> [ObjectID] {
        try inner.relatedObjectIDs(of: objectID, relationship: relationship)
    }
    func uniquenessViolations(_ changes: StoreChangeset) -> [ValidationFailure] { inner.uniquenessViolations(changes) }
    func allocatePrimaryKeys(rootEntity: String, count: Int) throws(StrataError) -> [Int64] {
        try inner.allocatePrimaryKeys(rootEntity: rootEntity, count: count)
    }
    func setCustomMetadata(_ custom: [String: String]) throws(StrataError) { try inner.setCustomMetadata(custom) }
}

/// Opens ``WrappedMemoryStore``s.
struct WrappedMemoryStoreFactory: PersistentStoreFactory {
    var type: StoreType { WrappedMemoryStore.type }
    var fileExtensions: [String] { [] }
    func recognizes(header: Data) -> Bool { false }

    func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        let memory = try StoreTypeRegistry().factory(for: .inMemory)
        return WrappedMemoryStore(try memory.open(url: url, schema: schema, configurationName: configurationName, options: options))
    }

    func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        throw StrataError(.noStore, "a wrapped in-memory store has no file")
    }
}

extension StoreKind {
    /// The store kind the third party describes once: a store in memory, so checks that need a
    /// file are left out by `ConformanceCheck.all(for:)`.
    static let wrappedMemory = StoreKind(
        name: "wrapped-memory", type: WrappedMemoryStore.type, storeTypes: StoreTypeRegistry([WrappedMemoryStoreFactory()]),
        persists: false, makeDescription: { StoreDescription(type: WrappedMemoryStore.type) })
}

@Suite struct ThirdPartyStoreTests {
    /// Every conformance check that applies to the store, each its own test case.
    @Test(arguments: ConformanceCheck.all(for: .wrappedMemory))
    func conformance(_ check: ConformanceCheck) async throws {
        try await check.run(on: .wrappedMemory)
    }
}
