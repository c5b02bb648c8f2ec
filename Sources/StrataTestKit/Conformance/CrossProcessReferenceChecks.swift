import Foundation
import Strata
import Testing

/// An object deleted by another save — another coordinator on the same file, as another
/// process, which sends this one no notification; or another context that this one does not
/// merge — since this context read it: a save here that refers to it must not store a
/// reference to nothing.
package struct CrossProcessReferenceChecks {
    package init() {}

    /// `target` deleted through a context of the coordinator `deleter` gives (after the first save); then `relate` and this context's save
    /// under `policy`. Returns the save's error, if any.
    private func saveAfterDelete(
        _ fixture: StoreFixture, deleter: () throws -> PersistentStoreCoordinator, policy: ManagedObjectContext.MergePolicy = .error,
        make: (ManagedObjectContext) throws -> (target: ManagedObject, source: ManagedObject),
        relate: (_ source: ManagedObject, _ target: ManagedObject) -> Void
    ) throws -> (ManagedObjectContext, StrataError?) {
        let context = fixture.context()
        context.mergePolicy = policy
        let (target, source) = try make(context)
        try context.save()
        let other = ManagedObjectContext(coordinator: try deleter())
        other.delete(try other.existingObject(with: target.objectID))
        try other.save()
        relate(source, target)
        do {
            try context.save()
            return (context, nil)
        } catch {
            return (context, error)
        }
    }

    private func people(_ context: ManagedObjectContext) throws -> (ManagedObject, ManagedObject) {
        (try context.make("Person", ["name": "ann"]), try context.make("Person", ["name": "bob"]))
    }

    /// What a fresh coordinator on the store finds: each person's name and mentor's name.
    private func storedMentors(_ fixture: StoreFixture) throws -> [String] {
        let context = ManagedObjectContext(coordinator: fixture.kind.persists ? try fixture.reopen() : fixture.coordinator)
        return try context.all("Person").map { person in
            "\(person["name"] as? String ?? "?") -> \((person.object(forKey: "mentor")?["name"] as? String) ?? "nil")"
        }.sorted()
    }

    /// A relationship without an inverse: the deleting save cannot know of the reference.
    package func aToOneWithoutInverseToAnObjectAnotherProcessDeleted(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let (_, error) = try saveAfterDelete(fixture, deleter: { try fixture.reopen() }, make: people) { bob, ann in
            bob.setObject(ann, forKey: "mentor")
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.message == "the save would store references to objects another save deleted; nothing was written")
        #expect(error?.failures.map(\.description) == [
            "Person/p2.mentor: refers to Person/p1, which the store no longer holds (another save deleted it)",
        ])
        #expect(error?.failures.first?.relatedObjectID?.primaryKey == 1)
        #expect(try storedMentors(fixture) == ["bob -> nil"])
    }

    /// The same within one coordinator, by a context this one does not merge (every store).
    package func aToOneWithoutInverseToAnObjectAnotherContextDeleted(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let (_, error) = try saveAfterDelete(fixture, deleter: { fixture.coordinator }, make: people) { bob, ann in
            bob.setObject(ann, forKey: "mentor")
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.key) == ["mentor"])
        #expect(try storedMentors(fixture) == ["bob -> nil"])
    }

    /// A new object given a to-one whose inverse is a to-many, and a many-to-many member: the
    /// object referred to is gone, whichever way the store finds out.
    package func referencesThroughInversesToObjectsAnotherProcessDeleted(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let sales = try context.make("Department", ["name": "sales"])
        let chess = try context.make("Club", ["name": "chess"])
        try context.save()
        let other = ManagedObjectContext(coordinator: try fixture.reopen())
        other.delete(try other.existingObject(with: sales.objectID))
        other.delete(try other.existingObject(with: chess.objectID))
        try other.save()

        let cat = try context.make("Person", ["name": "cat"])
        cat.setObject(sales, forKey: "department")
        cat.addObject(chess, forKey: "clubs")
        #expect(throws: StrataError.self) { try context.save() }
        let stored = ManagedObjectContext(coordinator: try fixture.reopen())
        #expect(try stored.all("Person").isEmpty)
        #expect(try stored.all("Department").isEmpty)
        #expect(try stored.all("Club").isEmpty)
    }

    /// Object trump writes a whole record: it must not write back a reference the deleting
    /// save cleared.
    package func anOverwriteDoesNotBringBackAClearedReference(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        context.mergePolicy = .overwrite
        let sales = try context.make("Department", ["name": "sales"])
        let dan = try context.make("Person", ["name": "dan"])
        dan.setObject(sales, forKey: "department")
        try context.save()
        let other = ManagedObjectContext(coordinator: try fixture.reopen())
        other.delete(try other.existingObject(with: sales.objectID))  // nullifies dan's department
        try other.save()

        dan["name"] = "daniel"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.key) == ["department"])
        let stored = ManagedObjectContext(coordinator: try fixture.reopen())
        let people = try stored.all("Person")
        #expect(people.map { $0["name"] as? String } == ["dan"])
        #expect(people.first?.object(forKey: "department") == nil)
    }

    /// Store trump: the deletion wins — the object leaves the context, the reference goes, and
    /// the rest of the save is stored.
    package func storeTrumpTakesTheDeletion(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        var ann: ManagedObject?
        let (context, error) = try saveAfterDelete(fixture, deleter: { try fixture.reopen() }, policy: .rollback, make: people) { bob, target in
            ann = target
            bob.setObject(target, forKey: "mentor")
            bob["name"] = "bobby"
        }
        #expect(error == nil)
        #expect(ann?.isDeleted == true)
        #expect(context.hasChanges == false)
        #expect(try storedMentors(fixture) == ["bobby -> nil"])
    }
}

/// Deleting an object that others refer to through a relationship without an inverse (a
/// person's mentor): nothing on the deleted object's side knows of those references, so the
/// save looks for them (as `nullify` would through an inverse), and the store refuses a
/// deletion that leaves one behind.
package struct OneWayReferenceDeletionChecks {
    package init() {}

    private func mentorAndPupil(_ fixture: StoreFixture) throws -> (context: ManagedObjectContext, ann: ManagedObject, bob: ManagedObject) {
        let context = fixture.context()
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        bob.setObject(ann, forKey: "mentor")
        try context.save()
        return (context, ann, bob)
    }

    package func deletingTheMentorClearsTheStoredReference(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let (context, ann, bob) = try mentorAndPupil(fixture)
        // A fresh context: the pupil is not registered, only stored.
        let other = fixture.context()
        other.delete(try other.existingObject(with: ann.objectID))
        try other.save()
        let stored = try fixture.store.fetch(StoreFetchRequest(entityNames: ["Person"]))
        #expect(stored.map { $0.attributes["name"] } == [.string("bob")])
        #expect(stored.first?.toOne["mentor"] == nil)
        #expect(stored.first?.version == 2)
        _ = (context, bob)
    }

    package func aReferenceSetButNotSavedIsClearedToo(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let ann = try context.make("Person", ["name": "ann"])
        let cat = try context.make("Person", ["name": "cat"])
        try context.save()
        cat.setObject(ann, forKey: "mentor")
        context.delete(ann)
        try context.save()
        #expect(cat.object(forKey: "mentor") == nil)
        let stored = try fixture.store.fetch(StoreFetchRequest(entityNames: ["Person"]))
        #expect(stored.map { $0.attributes["name"] } == [.string("cat")])
        #expect(stored.first?.toOne["mentor"] == nil)
    }

    /// The store's own guard: a changeset that deletes the mentor without clearing the pupil's
    /// reference (as a save prepared before another process saved the reference would).
    package func theStoreRefusesADeletionThatLeavesAReference(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let (_, ann, _) = try mentorAndPupil(fixture)
        let error = #expect(throws: StrataError.self) {
            _ = try fixture.store.save(StoreChangeset(deleted: [(ann.objectID, 1)]), beforeCommit: {})
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.description) == [
            "Person/p2.mentor: refers to Person/p1, which this save deletes (the reference was saved by another save since this one looked for references)",
        ])
        let stored = try fixture.store.fetch(StoreFetchRequest(entityNames: ["Person"]))
        #expect(stored.count == 2)
    }

    package func aBatchDeleteClearsTheReference(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        _ = try mentorAndPupil(fixture)
        let context = fixture.context()
        let result = try context.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "name == 'ann'")))
        #expect(result.count == 1)
        let stored = try fixture.store.fetch(StoreFetchRequest(entityNames: ["Person"]))
        #expect(stored.map { $0.attributes["name"] } == [.string("bob")])
        #expect(stored.first?.toOne["mentor"] == nil)
    }
}
