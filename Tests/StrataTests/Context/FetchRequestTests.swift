import Foundation
import Strata
import StrataTestKit
import Testing

/// Fetching through a context: defaults, the typed API, pending changes, prefetching,
/// dictionaries, subentities, and refused requests.
@Suite struct FetchRequestTests {
    /// Three people with books; Cat's book is unsaved.
    private static func stack() throws -> (ManagedObjectContext, [String: Person]) {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        var people: [String: Person] = [:]
        for (first, age, titles) in [("Ann", 30, ["Dune", "Emma"]), ("Bob", 25, ["Ulysses"]), ("Cat", 41, [])] {
            let person = context.person(first)
            person.age = Int16(age)
            for title in titles { context.book(title, by: person).pages = Int32(title.count * 100) }
            people[first] = person
        }
        try context.save()
        return (context, people)
    }

    @Test func defaults() {
        let request = FetchRequest(entityName: "Book")
        #expect(request.predicate == nil)
        #expect(request.sortDescriptors.isEmpty)
        #expect(request.fetchLimit == 0 && request.fetchOffset == 0)
        #expect(request.resultType == .objects)
        #expect(request.propertiesToFetch == nil)
        #expect(request.includesSubentities)
        #expect(request.includesPendingChanges)
        #expect(request.relationshipKeyPathsForPrefetching.isEmpty)
    }

    @Test func typedFetch() throws {
        let (context, people) = try Self.stack()
        let older = try context.fetch(Person.self, where: where_("age", .greaterThan, 26), sortedBy: [FetchSortDescriptor("age", ascending: false)])
        #expect(older.map(\.firstName) == ["Cat", "Ann"])
        #expect(older[1] === people["Ann"])
        let first = try context.fetch(Book.self, sortedBy: [FetchSortDescriptor("title")], limit: 2)
        #expect(first.map(\.title) == ["Dune", "Emma"])
        #expect(try context.fetch(Book.self, where: where_("author.firstName", .equal, "Bob")).map(\.title) == ["Ulysses"])
    }

    @Test func unsortedResultsComeInIDOrder() throws {
        let (context, _) = try Self.stack()
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Book"))
        #expect(ids == ids.sorted())
        let extra = context.book("Zed")
        let withPending = try context.fetchObjectIDs(FetchRequest(entityName: "Book"))
        #expect(withPending == ids + [extra.objectID])
    }

    @Test func pendingChangesTakePart() throws {
        let (context, people) = try Self.stack()
        let ann = try #require(people["Ann"])
        let bob = try #require(people["Bob"])
        ann.age = 20
        context.delete(bob)
        let dan = context.person("Dan")
        dan.age = 22
        func names(_ pending: Bool) throws -> [String] {
            var request = FetchRequest(entityName: "Person", predicate: where_("age", .lessThan, 26), sortDescriptors: [FetchSortDescriptor("age")])
            request.includesPendingChanges = pending
            return try context.fetch(request).map { $0["firstName"] as! String }
        }
        #expect(try names(true) == ["Ann", "Dan"])
        #expect(try names(false) == ["Bob"])
        // A relationship change in memory counts for key paths through it; Bob's book went
        // with him (cascade).
        let emma = try #require(try context.fetch(Book.self, where: where_("title", .equal, "Emma")).first)
        emma.author = dan
        #expect(try context.fetch(Book.self, where: where_("author.firstName", .equal, "Dan")).map(\.title) == ["Emma"])
        #expect(try context.count(for: FetchRequest(entityName: "Book", predicate: where_("author.firstName", .equal, "Ann"))) == 1)
        #expect(try context.count(for: FetchRequest(entityName: "Book")) == 2)
        var stored = FetchRequest(entityName: "Book", predicate: where_("author.firstName", .equal, "Ann"))
        stored.includesPendingChanges = false
        #expect(try context.count(for: stored) == 2)
        stored.predicate = nil
        #expect(try context.count(for: stored) == 3)
    }

    /// A coordinator on the counting store: every coordinator made from one factory shares its
    /// data, each with a cold row cache.
    static func coordinator(counting factory: CountingStoreFactory) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: TestModel.schema, storeTypes: StoreTypeRegistry([factory]), classes: [Person.self, Book.self])
        try coordinator.addStore(StoreDescription(type: CountingStoreFactory.type))
        return coordinator
    }

    @Test func prefetchingLoadsDestinationsInOneRequest() throws {
        let factory = try CountingStoreFactory(schema: TestModel.schema)
        func coordinator() throws -> PersistentStoreCoordinator { try Self.coordinator(counting: factory) }
        let saving = ManagedObjectContext(coordinator: try coordinator())
        for index in 0..<4 { saving.book("b\(index)", by: saving.person("p\(index)")) }
        try saving.save()

        // A cold coordinator: without prefetching, each author is one more request.
        factory.resetCounts()
        let plain = ManagedObjectContext(coordinator: try coordinator())
        let unloaded = try plain.fetch(Book.self)
        #expect(unloaded.compactMap { $0.author?.firstName }.sorted() == ["p0", "p1", "p2", "p3"])
        #expect(factory.count("fetch") == 1)
        #expect(factory.count("records") == 4)

        factory.resetCounts()
        let context = ManagedObjectContext(coordinator: try coordinator())
        var request = FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("title")])
        request.relationshipKeyPathsForPrefetching = ["author"]
        let books = try context.fetch(request)
        #expect(factory.count("fetch") == 1)
        #expect(factory.count("records") == 1)
        #expect(books.compactMap { ($0 as? Book)?.author?.firstName } == ["p0", "p1", "p2", "p3"])
        #expect(factory.count("records") == 1)

        request.relationshipKeyPathsForPrefetching = ["title"]
        expectError(.invalidPredicate) { _ = try context.fetch(request) }
    }

    /// Ten people p0…p9 saved in a counting store, its counts reset, and a maker of fresh
    /// coordinators on it.
    private static func tenPeople() throws -> (CountingStoreFactory, () throws -> PersistentStoreCoordinator) {
        let factory = try CountingStoreFactory(schema: TestModel.schema)
        let coordinator = { () throws -> PersistentStoreCoordinator in try Self.coordinator(counting: factory) }
        let saving = ManagedObjectContext(coordinator: try coordinator())
        for index in 0..<10 { _ = saving.person("p\(index)") }
        try saving.save()
        factory.resetCounts()
        return (factory, coordinator)
    }

    @Test func batchedResultsFetchIDsFirstAndRecordsABatchAtATime() throws {
        let (factory, coordinator) = try Self.tenPeople()
        let context = ManagedObjectContext(coordinator: try coordinator())
        var request = FetchRequest(entityName: "Person", sortDescriptors: [FetchSortDescriptor("firstName")])
        request.fetchBatchSize = 4
        let results = try context.fetchResults(request)
        #expect(results.count == 10)
        // Only the IDs so far: no record was read.
        #expect(factory.count("fetchObjectIDs") == 1)
        #expect(factory.count("fetch") == 0)
        #expect(factory.count("records") == 0)
        #expect(results.map { $0.value(forKey: "firstName", as: String.self) } == (0..<10).map { "p\($0)" })
        // Three batches: 4, 4 and 2 records.
        #expect(factory.count("records") == 3)
        #expect(factory.count("fetch") == 0)
    }

    /// `fetch(_:)` with a batch size reads the IDs, then the records a batch per request; with
    /// faults, only the IDs, and each object's record when it is first used.
    @Test func fetchHonoursBatchSizeAndFaults() throws {
        let (factory, coordinator) = try Self.tenPeople()
        var request = FetchRequest(entityName: "Person", sortDescriptors: [FetchSortDescriptor("firstName")])
        request.fetchBatchSize = 4
        let batched = try ManagedObjectContext(coordinator: try coordinator()).fetch(request)
        #expect(factory.count("fetchObjectIDs") == 1)
        #expect(factory.count("records") == 3)
        #expect(factory.count("fetch") == 0)
        #expect(batched.map { $0.value(forKey: "firstName", as: String.self) } == (0..<10).map { "p\($0)" })
        #expect(factory.count("records") == 3)

        factory.resetCounts()
        request.fetchBatchSize = 0
        request.returnsObjectsAsFaults = true
        let context = ManagedObjectContext(coordinator: try coordinator())
        let faults = try context.fetch(request)
        #expect(faults.count == 10)
        #expect(faults.allSatisfy { $0.isFault })
        #expect(factory.count("fetchObjectIDs") == 1)
        #expect(factory.count("records") == 0)
        #expect(faults[3].value(forKey: "firstName", as: String.self) == "p3")
        #expect(factory.count("records") == 1)
    }

    @Test func dictionariesWithPendingChanges() throws {
        let (context, people) = try Self.stack()
        people["Ann"]?.nickname = "annie"
        var request = FetchRequest(entityName: "Person", sortDescriptors: [FetchSortDescriptor("firstName")], fetchLimit: 1)
        #expect(try context.fetchDictionaries(request) == [[
            "firstName": .attribute(.string("Ann")), "lastName": .attribute(.string("Doe")),
            "age": .attribute(.integer(30)), "nickname": .attribute(.string("annie")),
        ]])
        request.propertiesToFetch = ["firstName", "pet", "pet.name"]
        #expect(try context.fetchDictionaries(request) == [["firstName": .attribute(.string("Ann")), "pet": .toOne(nil), "pet.name": .attribute(nil)]])
    }

    @Test func subentitiesOfAnAbstractEntity() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        for (entity, name) in [("Circle", "c1"), ("Square", "s1"), ("Circle", "c2")] {
            try context.insertObject(entityName: entity)["name"] = name
        }
        try context.save()
        context.rollback()
        var request = FetchRequest(entityName: "Shape", sortDescriptors: [FetchSortDescriptor("name")])
        #expect(try context.fetch(request).map(\.entity.name) == ["Circle", "Circle", "Square"])
        request.includesSubentities = false
        #expect(try context.fetch(request).isEmpty)
        #expect(try context.count(for: request) == 0)
        #expect(try context.fetchObjectIDs(request).isEmpty)
        // The same with an unsaved object in the context.
        try context.insertObject(entityName: "Square")["name"] = "s2"
        #expect(try context.fetch(request).isEmpty)
        request.includesSubentities = true
        #expect(try context.fetch(request).map { $0["name"] as? String } == ["c1", "c2", "s1", "s2"])
    }

    @Test func refusedRequestsNameTheProblem() throws {
        let (context, _) = try Self.stack()
        let misspelled = expectError(.invalidPredicate) {
            _ = try context.fetch(FetchRequest(entityName: "Person", predicate: where_("firstname", .equal, "Ann")))
        }
        #expect(misspelled?.message == "entity 'Person' has no property 'firstname' (in key path 'firstname'); did you mean 'firstName'?")
        let toMany = expectError(.invalidPredicate) {
            _ = try context.fetch(FetchRequest(entityName: "Person", sortDescriptors: [FetchSortDescriptor("books.title")]))
        }
        #expect(toMany?.message.contains("'books' is a to-many relationship") == true)
        expectError(.invalidPredicate) {
            _ = try context.fetch(FetchRequest(entityName: "Book", predicate: where_("title.length", .equal, 1)))
        }
        expectError(.invalidPredicate) {
            _ = try context.fetch(FetchRequest(entityName: "Book", predicate: where_("tags.@median", .equal, 1)))
        }
        expectError(.invalidPredicate) {
            _ = try context.fetch(FetchRequest(entityName: "Book", predicate: .comparison(Comparison(.variable("x", []), .equal, .constant(1)))))
        }
        expectError(.invalidPredicate) {
            _ = try context.fetch(FetchRequest(entityName: "Book", predicate: where_("pages", .between, [1])))
        }
        expectError(.unknownEntity) { _ = try context.count(for: FetchRequest(entityName: "Nope")) }
    }
}
