import Foundation
import Strata
import StrataTestKit
import Testing

/// A context's registry (its own hash table of unowned objects, each knowing its slot) and the
/// references objects keep to their context (cleared by the context, not weak).
@Suite struct ObjectRegistryTests {
    @Test func objectsStayUniqueThroughGrowthAndSaveAndLeaveWhenFreed() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        var people = (0..<5_000).map { context.person("P\($0)") }
        // Found by their temporary IDs while the table grows from 16 slots to thousands.
        for person in people.prefix(100) { #expect(context.object(with: person.objectID) === person) }
        try context.save()
        // Re-keyed under their permanent IDs: found by them, and only by them.
        #expect(people.allSatisfy { !$0.objectID.isTemporary })
        for person in people { #expect(context.object(with: person.objectID) === person) }
        #expect(context.registeredObjects.count == 5_000)
        // Their saved versions were recorded (found by key for a block of new keys): saving
        // changes to them again passes the store's version check.
        for person in [people[0], people[2_500], people[4_999]] { person.firstName += "!" }
        try context.save()
        #expect(context.object(with: people[4_999].objectID).value(forKey: "firstName") as? String == "P4999!")
        let ids = people.map(\.objectID)
        // Saved objects are not kept alive by the context: freed, they leave the registry.
        people.removeAll()
        #expect(context.registeredObjects.isEmpty)
        // A fetch registers them again, once each: looking one up gives the fetched object.
        let fetched = try context.fetch(FetchRequest(entityName: "Person"))
        #expect(fetched.count == 5_000)
        #expect(Set(fetched.map(\.objectID)) == Set(ids))
        for object in fetched.prefix(100) { #expect(context.object(with: object.objectID) === object) }
        #expect(try context.fetch(FetchRequest(entityName: "Person")).elementsEqual(fetched, by: ===))
        #expect(context.registeredObjects.count == 5_000)
    }

    @Test func halfTheObjectsFreedLeaveTheOthersFindable() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<2_000 { _ = context.person("P\(index)") }
        try context.save()
        var objects = try context.fetch(FetchRequest(entityName: "Person", sortDescriptors: [FetchSortDescriptor("firstName")]))
        let kept = objects.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        objects.removeAll()
        #expect(context.registeredObjects.count == 1_000)
        for object in kept { #expect(context.object(with: object.objectID) === object) }
        // New objects fill the slots the freed ones left.
        let more = (0..<1_500).map { context.person("Q\($0)") }
        for object in kept + more { #expect(context.object(with: object.objectID) === object) }
        #expect(context.registeredObjects.count == 2_500)
    }

    @Test func objectsNoLongerNameAContextThatWasFreed() throws {
        let coordinator = TestModel.coordinator()
        var context: ManagedObjectContext? = ManagedObjectContext(coordinator: coordinator)
        let saved = context!.person("Ann")
        try context!.save()
        let unsaved = context!.person("Bob")
        #expect(saved.managedObjectContext === context)
        #expect(unsaved.managedObjectContext === context)
        context = nil
        #expect(saved.managedObjectContext == nil)
        #expect(unsaved.managedObjectContext == nil)
    }

    @Test func resetObjectsNameNoContextAndAreNotFound() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let ann = context.person("Ann")
        try context.save()
        let id = ann.objectID
        context.reset()
        #expect(ann.managedObjectContext == nil)
        let again = context.object(with: id)
        #expect(again !== ann)
        #expect(again.value(forKey: "firstName") as? String == "Ann")
    }

    @Test func idsMadeApartAreEqualAndIDsOfTwoStoresDiffer() throws {
        let first = TestModel.coordinator()
        let second = TestModel.coordinator()
        for coordinator in [first, second] {
            let context = ManagedObjectContext(coordinator: coordinator)
            _ = context.person("Ann")
            try context.save()
        }
        let a = try first.objectID(entityName: "Person", primaryKey: 1)
        let b = try #require(first.objectID(forURIRepresentation: a.uriRepresentation))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        let other = try second.objectID(entityName: "Person", primaryKey: 1)
        #expect(other.primaryKey == a.primaryKey && other.entityName == a.entityName)
        #expect(other != a)
        #expect(try first.objectID(entityName: "Book", primaryKey: 1) != a)
    }

    @Test func anInt32OutOfItsRangeIsStillRefused() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let book = context.book("Long")
        book["pages"] = Int64(Int32.max) + 1
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.failures.map(\.code) == [.outOfRange])
        #expect(error?.failures.first?.key == "pages")
    }
}
