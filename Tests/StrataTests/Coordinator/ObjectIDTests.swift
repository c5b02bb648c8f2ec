import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct ObjectIDTests {
    @Test func temporaryIDsAreDistinctInTheirTextsAndOrderedAsMade() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let people = (0..<300).map { context.person("P\($0)") }
        let ids = people.map(\.objectID)
        // Error messages name new objects by this text: two objects never share it.
        #expect(Set(ids.map(\.description)).count == ids.count)
        #expect(Set(ids).count == ids.count)
        #expect(ids == ids.sorted())
        // The URI form round-trips to the same ID.
        for id in ids.prefix(5) {
            #expect(context.coordinator.objectID(forURIRepresentation: id.uriRepresentation) == id)
        }
    }

    @Test func temporaryIDsBecomePermanentOnSave() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let ann = context.person("Ann")
        let temporary = ann.objectID
        #expect(temporary.isTemporary)
        #expect(temporary.primaryKey == nil)
        #expect(temporary.storeIdentifier == nil)
        #expect(temporary.entityName == "Person")
        #expect(temporary.uriRepresentation.absoluteString.hasPrefix("strata://temporary/Person/t"))
        #expect(temporary.description.hasPrefix("Person/t"))
        try context.save()
        let permanent = ann.objectID
        let store = try #require(coordinator.stores.first).metadata.storeIdentifier
        #expect(!permanent.isTemporary)
        #expect(permanent.primaryKey == 1)
        #expect(permanent.storeIdentifier == store)
        #expect(permanent.uriRepresentation.absoluteString == "strata://\(store)/Person/p1")
        #expect(permanent.description == "Person/p1")
        #expect(try coordinator.objectID(entityName: "Person", primaryKey: 1) == permanent)
        #expect(permanent != temporary)
    }

    @Test func uriRepresentationRoundTrips() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let ann = context.person("Ann")
        let temporaryURI = ann.objectID.uriRepresentation
        #expect(coordinator.objectID(forURIRepresentation: temporaryURI) == ann.objectID)
        try context.save()
        let uri = ann.objectID.uriRepresentation
        let id = try #require(coordinator.objectID(forURIRepresentation: uri))
        #expect(id == ann.objectID)
        #expect(id.hashValue == ann.objectID.hashValue)
        let other = ManagedObjectContext(coordinator: coordinator)
        #expect(try other.existingObject(with: id)["firstName"] as? String == "Ann")
        // Through text, as an app would keep it.
        let text = uri.absoluteString
        #expect(coordinator.objectID(forURIRepresentation: try #require(URL(string: text))) == ann.objectID)
    }

    @Test(arguments: [
        "https://example.com/Person/p1",         // not strata
        "strata://STORE/Person/1",               // no p
        "strata://STORE/Person/pone",            // not a number
        "strata://STORE/Person",                 // no key
        "strata://STORE/Person/p1/extra",        // too long
        "strata://STORE/Nobody/p1",              // no such entity
        "strata://STORE/9Person/p1",             // not an entity name
        "strata://temporary/Person/p1",          // temporary needs t<UUID>
        "strata://temporary/Person/tnot-a-uuid",
        "strata://00000000-0000-0000-0000-000000000000/Person/p1", // another store
    ])
    func foreignOrMalformedURIsAreRefused(_ text: String) throws {
        let coordinator = TestModel.coordinator()
        let store = try #require(coordinator.stores.first).metadata.storeIdentifier
        let uri = try #require(URL(string: text.replacingOccurrences(of: "STORE", with: store)))
        #expect(coordinator.objectID(forURIRepresentation: uri) == nil)
    }

    @Test func orderIsEntityThenKeyWithTemporaryLast() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let people = (0..<3).map { context.person("p\($0)") }
        let book = context.book("b")
        try context.save()
        let newPerson = context.person("new")
        let ids = [newPerson.objectID, people[2].objectID, book.objectID, people[0].objectID, people[1].objectID]
        #expect(ids.sorted() == [book.objectID, people[0].objectID, people[1].objectID, people[2].objectID, newPerson.objectID])
        #expect(people[0].objectID < people[1].objectID)
        #expect(!(people[1].objectID < people[0].objectID))
        #expect(!(people[0].objectID < people[0].objectID))
    }

    @Test func primaryKeysFollowTheOrderOfInserts() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let people = (0..<10).map { context.person("p\($0)") }
        let shapes = try ["Square", "Circle", "Square", "Circle", "Circle"].map { try context.insertObject(entityName: $0) }
        for shape in shapes { shape["name"] = "s" }
        try context.save()
        #expect(people.map(\.objectID.primaryKey) == Array(1...10))
        #expect(shapes.map(\.objectID.primaryKey) == Array(1...5))
    }

    @Test func objectIDForAnEntityWithoutAStore() throws {
        let coordinator = PersistentStoreCoordinator(schema: TestModel.schema)
        let error = expectError(.noStore) { _ = try coordinator.objectID(entityName: "Person", primaryKey: 1) }
        #expect(error?.message == "the coordinator has no store; add one with addStore(_:)")
        expectError(.unknownEntity) { _ = try TestModel.coordinator().objectID(entityName: "Persn", primaryKey: 1) }
    }
}
