import Foundation
package import Strata
import Synchronization
import Testing

/// A save through a coordinator with two stores commits to both or to neither, whichever store
/// fails and whenever it fails: before its commit (the other rolls back) or in its commit after
/// the other committed (the other is put back).
package struct MultiStoreSaveChecks {
    package init() {}

    package static let model = Models.load("""
    { "name": "Split", "version": "1", "entities": [
      { "name": "Note", "attributes": [ { "name": "title", "type": "string" } ],
        "relationships": [ { "name": "tags", "destination": "Tag", "inverse": "notes", "toMany": true } ] },
      { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "notes", "destination": "Note", "inverse": "tags", "toMany": true } ] },
      { "name": "Entry", "attributes": [ { "name": "text", "type": "string" } ] }
    ],
      "configurations": [ { "name": "Notes", "entities": ["Note", "Tag"] }, { "name": "Log", "entities": ["Entry"] } ] }
    """)

    /// Each kind holding the notes, beside the next kind of the list holding the log.
    /// Each of `kinds` holding the notes, beside the next kind of the list holding the log.
    package static func pairs(_ kinds: [StoreKind]) -> [StorePair] {
        kinds.indices.map { index in StorePair(notes: kinds[index], log: kinds[(index + 1) % kinds.count]) }
    }

    package enum Failure: String, CaseIterable, Sendable { case outerStore, innerStore }

    package func aStoreFailingAtCommitLeavesBothStoresAsTheyWere(pair: StorePair, failing: Failure) throws {
        let setup = try TwoStores(pair)
        let context = ManagedObjectContext(coordinator: setup.coordinator)
        let tag = try context.make("Tag", ["name": "home"])
        let kept = try context.make("Note", ["title": "kept"])
        kept.addObject(tag, forKey: "tags")
        try context.make("Note", ["title": "doomed"])
        try context.make("Entry", ["text": "first"])
        try context.save()
        let before = try setup.contents()
        #expect(before == Contents(notes: ["doomed", "kept"], links: ["doomed": [], "kept": ["home"]], entries: ["first"]))

        // One save that inserts, updates and deletes in both stores.
        let doomed = try context.all("Note", by: "title").first { $0["title"] as? String == "doomed" }!
        context.delete(doomed)
        kept["title"] = "changed"
        kept.removeObject(tag, forKey: "tags")
        try context.make("Note", ["title": "new"])
        let entry = try context.all("Entry", by: "text")[0]
        entry["text"] = "edited"
        try context.make("Entry", ["text": "second"])

        // Stores are nested in the order of their identifiers: the first commits last.
        let stores = setup.failingStores.sorted { $0.storeIdentifier < $1.storeIdentifier }
        let failingStore = failing == .outerStore ? stores[0] : stores[1]
        failingStore.failsAtCommit.withLock { $0 = true }
        #expect(throws: StrataError.self) { try context.save() }
        #expect(try setup.contents() == before)
        #expect(try setup.reopenedContents() == before)
        #expect(context.hasChanges)

        // The same changes go through once the store works again.
        failingStore.failsAtCommit.withLock { $0 = false }
        try context.save()
        let after = Contents(notes: ["changed", "new"], links: ["changed": [], "new": []], entries: ["edited", "second"])
        #expect(try setup.contents() == after)
        #expect(try setup.reopenedContents() == after)
    }
}

extension MultiStoreSaveChecks {
    /// A store whose save committed is not put back over a save another writer made to it
    /// before the outer store failed: the error says the stores may disagree, and the other
    /// writer's change stays.
    package func anotherSaveSinceTheCommitIsNeverUndone(pair: StorePair) throws {
        let setup = try TwoStores(pair)
        let context = ManagedObjectContext(coordinator: setup.coordinator)
        try context.make("Note", ["title": "kept"])
        try context.make("Entry", ["text": "first"])
        try context.save()
        let stores = setup.failingStores.sorted { $0.storeIdentifier < $1.storeIdentifier }
        let (outer, inner) = (stores[0], stores[1])
        let innerEntity = inner.configurationName == "Log" ? "Entry" : "Note"
        let innerKey = innerEntity == "Entry" ? "text" : "title"
        let object = try context.all(innerEntity, by: innerKey)[0]
        object[innerKey] = "mine"
        try context.make("Note", ["title": "new"])
        try context.make("Entry", ["text": "new"])
        // Another writer changes the same object once this save committed to it.
        let id = object.objectID
        outer.beforeFailing.withLock {
            $0 = {
                var record = try #require(try inner.inner.records(for: [id])[id])
                record.attributes[innerKey] = .string("theirs")
                _ = try inner.inner.save(StoreChangeset(updated: [record]))
            }
        }
        outer.failsAtCommit.withLock { $0 = true }
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.message.hasSuffix("since): the stores may now disagree") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("another save changed \(id)") == true, "\(error?.message ?? "")")
        let fresh = ManagedObjectContext(coordinator: setup.coordinator)
        #expect(try fresh.all(innerEntity, by: innerKey).map { $0[innerKey] as? String }.contains("theirs"))
    }

    /// One file added twice (for two configurations) would be two stores with one identifier,
    /// which object IDs cannot tell apart: refused.
    package func aStoreFileIsAddedOnce(kind: StoreKind) throws {
        var notes = try kind.makeDescription()
        defer { StoreKind.removeStoreDirectory(of: notes.url) }
        notes.configurationName = "Notes"
        var log = notes
        log.configurationName = "Log"
        let coordinator = PersistentStoreCoordinator(schema: Self.model, storeTypes: kind.storeTypes)
        let first = try coordinator.addStore(notes)
        let error = #expect(throws: StrataError.self) { try coordinator.addStore(log) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message == "the coordinator already has this store (UUID \(first.storeIdentifier), '\(notes.url!.path)'); a store is added once: give each configuration its own file, or add the file once without a configuration")
        #expect(coordinator.stores.count == 1)
    }
}

/// The two store kinds of one test.
package struct StorePair: Sendable, CustomTestStringConvertible {
    package let notes: StoreKind
    package let log: StoreKind
    package var testDescription: String { "\(notes.name)+\(log.name)" }
}

/// What the two stores hold, by name.
struct Contents: Equatable {
    var notes: [String]
    var links: [String: [String]]
    var entries: [String]
}

/// A coordinator with the notes in one store and the log in another, each behind a
/// ``FailingStore``.
final class TwoStores {
    let pair: StorePair
    let descriptions: [StoreDescription]
    let coordinator: PersistentStoreCoordinator
    let failingStores: [FailingStore]

    init(_ pair: StorePair) throws {
        self.pair = pair
        var notes = try pair.notes.makeDescription()
        notes.configurationName = "Notes"
        var log = try pair.log.makeDescription()
        log.configurationName = "Log"
        descriptions = [notes, log]
        coordinator = try Self.coordinator(pair, [notes, log], failing: true)
        failingStores = coordinator.stores.map { $0 as! FailingStore }
    }

    deinit {
        for description in descriptions { StoreKind.removeStoreDirectory(of: description.url) }
    }

    private static func coordinator(_ pair: StorePair, _ descriptions: [StoreDescription], failing: Bool) throws -> PersistentStoreCoordinator {
        var types = StoreTypeRegistry()
        for kind in [pair.notes, pair.log] {
            for factory in kind.storeTypes.factories {
                types.register(failing ? FailingStoreFactory(inner: factory) : factory)
            }
        }
        let coordinator = PersistentStoreCoordinator(schema: MultiStoreSaveChecks.model, storeTypes: types)
        for var description in descriptions {
            if failing { description.type = FailingStoreFactory.type(wrapping: description.type) }
            try coordinator.addStore(description)
        }
        return coordinator
    }

    /// What a fresh context of the test's coordinator sees.
    func contents() throws -> Contents {
        try Self.contents(ManagedObjectContext(coordinator: coordinator))
    }

    /// What a new coordinator on the same files sees (the stores that persist).
    func reopenedContents() throws -> Contents {
        guard pair.notes.persists && pair.log.persists else { return try contents() }
        return try Self.contents(ManagedObjectContext(coordinator: Self.coordinator(pair, descriptions, failing: false)))
    }

    private static func contents(_ context: ManagedObjectContext) throws -> Contents {
        let notes = try context.all("Note", by: "title")
        let links = Dictionary(uniqueKeysWithValues: notes.map { ($0["title"] as! String, $0.sortedNames("tags")) })
        return Contents(
            notes: notes.map { $0["title"] as! String }, links: links,
            entries: try context.all("Entry", by: "text").map { $0["text"] as! String })
    }
}
