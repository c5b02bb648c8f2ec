import Foundation
import Strata
import Testing

/// A fresh store of one kind for one test: a coordinator on it, contexts, a normalized view of
/// what it holds, and the re-open check. Deletes its temporary directory when released.
final class StoreFixture {
    let kind: StoreKind
    let schema: Schema
    let description: StoreDescription
    let coordinator: PersistentStoreCoordinator
    private let transformers: [String: any AttributeTransformer]

    /// - Parameter transformers: value transformers registered with every coordinator the
    ///   fixture makes, by the names the model uses.
    init(_ kind: StoreKind, _ schema: Schema, transformers: [String: any AttributeTransformer] = [:]) throws {
        self.kind = kind
        self.schema = schema
        self.transformers = transformers
        description = try kind.makeDescription()
        coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: kind.storeTypes)
        for (name, transformer) in transformers { coordinator.attributeTransformers.register(transformer, name: name) }
        try coordinator.addStore(description)
    }

    deinit {
        if let url = description.url { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    }

    var store: any PersistentStore { coordinator.stores[0] }

    /// A new context on the fixture's coordinator.
    func context() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator)
    }

    /// A new coordinator on the same store file, with `schema` (the fixture's by default).
    func reopen(with schema: Schema? = nil) throws(StrataError) -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: schema ?? self.schema, storeTypes: kind.storeTypes)
        for (name, transformer) in transformers { coordinator.attributeTransformers.register(transformer, name: name) }
        try coordinator.addStore(description)
        return coordinator
    }

    /// What the fixture's store holds now.
    func snapshot() throws -> StoreSnapshot {
        try StoreSnapshot(coordinator)
    }

    /// Checks that what was saved is in the store, not only in the contexts that saved it:
    /// runs `check` on a fresh context of this coordinator; then, for a kind that persists,
    /// opens the store again in a fresh coordinator, expects it to hold exactly what this one
    /// holds, and runs `check` there too. For a kind that does not persist it asserts that
    /// (no file, no `.persistent` capability) instead.
    func verifyStored(
        sourceLocation: Testing.SourceLocation = #_sourceLocation, _ check: (ManagedObjectContext) throws -> Void
    ) throws {
        try check(context())
        #expect(store.capabilities.contains(.persistent) == kind.persists, sourceLocation: sourceLocation)
        #expect((description.url != nil) == kind.persists, sourceLocation: sourceLocation)
        guard kind.persists else { return }
        let before = try snapshot()
        let reopened = try reopen()
        #expect(reopened.stores[0].metadata.storeIdentifier == store.metadata.storeIdentifier, sourceLocation: sourceLocation)
        let after = try StoreSnapshot(reopened)
        #expect(after == before, "the re-opened store differs", sourceLocation: sourceLocation)
        try check(ManagedObjectContext(coordinator: reopened))
    }
}

/// Everything the stores of a coordinator hold, normalized so that two views compare equal
/// exactly when they hold the same graph: attributes, to-one destinations, and to-many members
/// (in stored order when ordered, otherwise sorted), with lazily loaded to-manys loaded.
/// Record versions are left out; they are bookkeeping, not data.
struct StoreSnapshot: Equatable, CustomStringConvertible {
    struct Entry: Equatable {
        var attributes: [String: AttributeValue]
        var toOne: [String: ObjectID]
        var toMany: [String: [ObjectID]]
    }

    var objects: [ObjectID: Entry] = [:]

    init(_ coordinator: PersistentStoreCoordinator) throws {
        for entity in coordinator.schema.entities where !entity.isAbstract {
            let store = try coordinator.store(forEntity: entity.name)
            for record in try store.fetch(StoreFetchRequest(entityNames: [entity.name])) {
                var toMany: [String: [ObjectID]] = [:]
                for relationship in entity.relationships where relationship.isToMany {
                    let members = record.lazyToMany.contains(relationship.name)
                        ? try store.relatedObjectIDs(of: record.objectID, relationship: relationship.name)
                        : record.toMany[relationship.name] ?? []
                    if !members.isEmpty { toMany[relationship.name] = relationship.isOrdered ? members : members.sorted() }
                }
                objects[record.objectID] = Entry(attributes: record.attributes.dictionary, toOne: record.toOne, toMany: toMany)
            }
        }
    }

    var description: String {
        objects.keys.sorted().map { id in
            let entry = objects[id]!
            let attributes = entry.attributes.keys.sorted().map { "\($0)=\(entry.attributes[$0]!)" }
            let toOne = entry.toOne.keys.sorted().map { "\($0)->\(entry.toOne[$0]!)" }
            let toMany = entry.toMany.keys.sorted().map { "\($0)->\(entry.toMany[$0]!)" }
            return "\(id) {\((attributes + toOne + toMany).joined(separator: ", "))}"
        }.joined(separator: "\n")
    }
}
