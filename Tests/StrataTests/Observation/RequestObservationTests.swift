import Strata
import StrataTestKit
import Testing

@Suite struct RequestObservationTests {
    private static let request = FetchRequest(
        entityName: "Book", predicate: .key("pages") > 30, sortDescriptors: [FetchSortDescriptor("title")])

    private static func fresh(_ coordinator: PersistentStoreCoordinator) throws -> [ObjectID] {
        try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(request)
    }

    @Test(.timeLimit(.minutes(1)))
    func emitsOnRelevantSavesOnly() async throws {
        let coordinator = TestModel.coordinator()
        var values = coordinator.observeObjectIDs(Self.request).makeAsyncIterator()
        #expect(try await values.next() == [])
        let context = ManagedObjectContext(coordinator: coordinator)
        // Unrelated entities, and a book that does not match: nothing to emit.
        let settings = try context.insertObject(entityName: "Settings")
        settings["name"] = "dark"
        try context.save()
        let thin = try context.insertObject(entityName: "Book")
        thin["title"] = "thin"
        thin["pages"] = 3
        try context.save()
        thin["pages"] = 4
        try context.save()
        let thick = try context.insertObject(entityName: "Book")
        thick["title"] = "thick"
        thick["pages"] = 300
        try context.save()
        #expect(try await values.next() == [thick.objectID])
        // A change of a matching book's values emits the same IDs again.
        thick["pages"] = 301
        try context.save()
        #expect(try await values.next() == [thick.objectID])
        thin["pages"] = 31
        try context.save()
        #expect(try await values.next() == [thick.objectID, thin.objectID])
    }

    @Test(.timeLimit(.minutes(1)))
    func missesNoChangeInRandomSaves() async throws {
        let coordinator = TestModel.coordinator()
        var values = coordinator.observeObjectIDs(Self.request).makeAsyncIterator()
        var last = try await values.next()
        #expect(last == [])
        var random = SeededGenerator(seed: 1405)
        var counter = 0
        for step in 0..<100 {
            let context = ManagedObjectContext(coordinator: coordinator)
            let books = try context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("title")]))
            if books.isEmpty || random.chance(0.4) {
                counter += 1
                let book = try context.insertObject(entityName: "Book")
                book["title"] = "t\(counter)"
                book["pages"] = Int32.random(in: 1...60, using: &random)
            } else if random.chance(0.7) {
                random.pick(books)["pages"] = Int32.random(in: 1...60, using: &random)
            } else {
                context.delete(random.pick(books))
            }
            try context.save()
            let expected = try Self.fresh(coordinator)
            guard expected != last else { continue }
            // The next values end at the result now; before it, at most the last result again
            // (a save that changed a matching book's values).
            let previous = last
            while last != expected {
                last = try await values.next()
                #expect(last == expected || last == previous, "step \(step)")
                if last == nil { return }
            }
        }
    }
}
