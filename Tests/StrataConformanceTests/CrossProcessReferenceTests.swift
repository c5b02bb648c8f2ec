import Foundation
import Strata
import Testing

/// An object deleted by another save — another coordinator on the same file, as another
/// process, which sends this one no notification; or another context that this one does not
/// merge — since this context read it: a save here that refers to it must not store a
/// reference to nothing.
@Suite struct CrossProcessReferenceTests {
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
    @Test(arguments: StoreKind.all.filter(\.persists))
    func aToOneWithoutInverseToAnObjectAnotherProcessDeleted(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let (_, error) = try saveAfterDelete(fixture, deleter: { try fixture.reopen() }, make: people) { bob, ann in
            bob.setObject(ann, forKey: "mentor")
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.message == "the save would store references to objects another save deleted; nothing was written")
        #expect(error?.failures.map(\.description) == [
            "Person/p2.mentor: refers to Person/p1, which is not in the store (deleted by another save since it was read)",
        ])
        #expect(error?.failures.first?.relatedObjectID?.primaryKey == 1)
        #expect(try storedMentors(fixture) == ["bob -> nil"])
    }

    /// The same within one coordinator, by a context this one does not merge (every store).
    @Test(arguments: StoreKind.all)
    func aToOneWithoutInverseToAnObjectAnotherContextDeleted(_ kind: StoreKind) throws {
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
    @Test(arguments: StoreKind.all.filter(\.persists))
    func referencesThroughInversesToObjectsAnotherProcessDeleted(_ kind: StoreKind) throws {
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
    @Test(arguments: StoreKind.all.filter(\.persists))
    func anOverwriteDoesNotBringBackAClearedReference(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        context.mergePolicy = .objectTrump
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
    @Test(arguments: StoreKind.all.filter(\.persists))
    func storeTrumpTakesTheDeletion(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        var ann: ManagedObject?
        let (context, error) = try saveAfterDelete(fixture, deleter: { try fixture.reopen() }, policy: .storeTrump, make: people) { bob, target in
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
