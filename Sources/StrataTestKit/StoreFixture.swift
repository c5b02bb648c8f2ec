import Foundation
public import Strata
public import Testing

/// A new store of one kind for one test: a coordinator on it, contexts, a normalized view of
/// what it holds, and the re-open check. Deletes the store's directory when released.
///
/// ```swift
/// let fixture = try StoreFixture(kind, schema)
/// let context = fixture.context()
/// // insert, save...
/// try fixture.verifyStored { context in /* expect what was saved */ }
/// ```
public final class StoreFixture {
    /// The kind of store the fixture made.
    public let kind: StoreKind
    /// The model the store was opened with.
    public let schema: Schema
    /// The description the store was added with (its URL, for a file store).
    public let description: StoreDescription
    /// The coordinator holding the store.
    public let coordinator: PersistentStoreCoordinator
    private let transformers: [String: any AttributeTransformer]

    /// A new, empty store of `kind` opened with `schema` in a new coordinator.
    ///
    /// - Parameters:
    ///   - kind: the kind of store to make.
    ///   - schema: the model to open it with.
    ///   - transformers: value transformers registered with every coordinator the fixture
    ///     makes, by the names the model uses.
    public init(_ kind: StoreKind, _ schema: Schema, transformers: [String: any AttributeTransformer] = [:]) throws {
        self.kind = kind
        self.schema = schema
        self.transformers = transformers
        description = try kind.makeDescription()
        coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: kind.storeTypes)
        for (name, transformer) in transformers { coordinator.attributeTransformers.register(transformer, name: name) }
        try coordinator.addStore(description)
    }

    deinit {
        StoreKind.removeStoreDirectory(of: description.url)
    }

    /// The fixture's store.
    public var store: any PersistentStore { coordinator.stores[0] }

    /// A new context on the fixture's coordinator.
    public func context() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator)
    }

    /// A new coordinator on the same store file, with `schema` (the fixture's by default).
    public func reopen(with schema: Schema? = nil) throws(StrataError) -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: schema ?? self.schema, storeTypes: kind.storeTypes)
        for (name, transformer) in transformers { coordinator.attributeTransformers.register(transformer, name: name) }
        try coordinator.addStore(description)
        return coordinator
    }

    /// What the fixture's store holds now.
    public func snapshot() throws -> StoreSnapshot {
        try StoreSnapshot(coordinator)
    }

    /// Checks that what was saved is in the store, not only in the contexts that saved it:
    /// runs `check` on a fresh context of this coordinator; then, for a kind that persists,
    /// opens the store again in a fresh coordinator, expects it to hold exactly what this one
    /// holds, and runs `check` there too. For a kind that does not persist it asserts that
    /// (no file, no `.persistent` capability) instead.
    public func verifyStored(
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
public struct StoreSnapshot: Equatable, CustomStringConvertible {
    /// What one object holds.
    public struct Entry: Equatable {
        /// The attribute values, by name.
        public var attributes: [String: AttributeValue]
        /// The to-one destinations, by relationship name.
        public var toOne: [String: ObjectID]
        /// The to-many members, by relationship name: in stored order when ordered, otherwise
        /// sorted; empty relationships are left out.
        public var toMany: [String: [ObjectID]]
    }

    /// Every object of the stores, by ID.
    public var objects: [ObjectID: Entry] = [:]

    /// What the stores of `coordinator` hold now.
    public init(_ coordinator: PersistentStoreCoordinator) throws {
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

    public var description: String {
        objects.keys.sorted().map { id in
            let entry = objects[id]!
            let attributes = entry.attributes.keys.sorted().map { "\($0)=\(entry.attributes[$0]!)" }
            let toOne = entry.toOne.keys.sorted().map { "\($0)->\(entry.toOne[$0]!)" }
            let toMany = entry.toMany.keys.sorted().map { "\($0)->\(entry.toMany[$0]!)" }
            return "\(id) {\((attributes + toOne + toMany).joined(separator: ", "))}"
        }.joined(separator: "\n")
    }
}
