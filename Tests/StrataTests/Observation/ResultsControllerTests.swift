import Strata
import StrataTestKit
import Testing

/// Records every diff a controller reports, and checks each against the snapshots.
private final class DiffRecorder: ResultsControllerDelegate {
    var diffs: [ResultsDiff] = []
    var replayed: ResultsSnapshot
    var mismatches = 0

    init(_ start: ResultsSnapshot) {
        replayed = start
    }

    func resultsController(_ controller: ResultsController, didChange diff: ResultsDiff, from old: ResultsSnapshot) {
        if old != replayed { mismatches += 1 }
        diffs.append(diff)
        replayed = diff.applied(to: old)
        if replayed != controller.snapshot { mismatches += 1 }
    }
}

@Suite struct ResultsControllerTests {
    /// Books with more than 30 pages, by rating then title.
    private static let request = FetchRequest(
        entityName: "Book", predicate: .key("pages") > 30,
        sortDescriptors: [FetchSortDescriptor("rating"), FetchSortDescriptor("title")])

    /// The results as a fresh context fetches them, in sections of `rating` when asked.
    private static func fresh(_ coordinator: PersistentStoreCoordinator, sections: Bool) throws -> ResultsSnapshot {
        let books = try ManagedObjectContext(coordinator: coordinator).fetch(request)
        guard sections else { return ResultsSnapshot(sections: [ResultsSnapshot.Section(name: nil, objectIDs: books.map(\.objectID))]) }
        var result: [ResultsSnapshot.Section] = []
        for book in books {
            let name = (book["rating"] as? Double).map { String(describing: $0) }
            if let index = result.firstIndex(where: { $0.name == name }) {
                result[index].objectIDs.append(book.objectID)
            } else {
                result.append(ResultsSnapshot.Section(name: name, objectIDs: [book.objectID]))
            }
        }
        return ResultsSnapshot(sections: result)
    }

    /// One random change of a book in `context`: an insert, an update of its pages, rating or
    /// title, or a deletion.
    private static func randomChange(in context: ManagedObjectContext, _ random: inout SeededGenerator, counter: inout Int) throws {
        let books = try context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("title")]))
        let roll = Int.random(in: 0..<10, using: &random)
        if roll < 4 || books.isEmpty {
            counter += 1
            let book = try context.insertObject(entityName: "Book")
            book["title"] = "t\(counter)"
            book["pages"] = Int32.random(in: 1...60, using: &random)
            book["rating"] = random.pick([nil, 1.0, 2.0, 3.0])
            return
        }
        let book = random.pick(books)
        switch roll {
        case 4, 5: book["pages"] = Int32.random(in: 1...60, using: &random)
        case 6: book["rating"] = random.pick([nil, 1.0, 2.0, 3.0])
        case 7:
            counter += 1
            book["title"] = "t\(counter)"
        default: context.delete(book)
        }
    }

    @Test(arguments: [false, true])
    func keepsCurrentThroughRandomSavesOfTwoContexts(sections: Bool) throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let controller = ResultsController(request: Self.request, context: context, sectionKeyPath: sections ? "rating" : nil)
        try controller.performFetch()
        let recorder = DiffRecorder(controller.snapshot)
        controller.delegate = recorder
        var random = SeededGenerator(seed: sections ? 1402 : 1401)
        var counter = 0
        for step in 0..<150 {
            let here = random.chance(0.5)
            // The other context is new each time: it never holds objects older than the store.
            let saving = here ? context : ManagedObjectContext(coordinator: coordinator)
            let before = controller.snapshot
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                try Self.randomChange(in: saving, &random, counter: &counter)
            }
            if here {
                // Unsaved changes show at once, when the context reports them.
                context.processPendingChanges()
                #expect(recorder.replayed == controller.snapshot, "step \(step), unsaved")
            }
            // Objects updated for real (a value set to what it was is no change).
            let changedIDs = Set(saving.updatedObjects.map(\.objectID))
            try saving.save()
            try controller.processChanges()
            let expected = try Self.fresh(coordinator, sections: sections)
            #expect(controller.snapshot == expected, "step \(step)")
            #expect(recorder.replayed == expected, "step \(step)")
            #expect(controller.fetchedObjects.map(\.objectID) == expected.objectIDs)
            if !here {
                // Every object the save changed that stayed in the results is reported
                let stayed = changedIDs.intersection(before.objectIDs).intersection(expected.objectIDs)
                // (updated or moved; or, when its section changed for a new one or it came from a
                // deleted section, inserted again).
                let last = recorder.diffs.last
                let reported = Set(
                    (last?.updated.map(\.objectID) ?? []) + (last?.moved.map(\.objectID) ?? []) + (last?.inserted.map(\.objectID) ?? [])
                        + (last?.insertedSections.flatMap(\.objectIDs) ?? []))
                #expect(stayed.isSubset(of: reported) || before == expected && stayed.isEmpty, "step \(step)")
            }
        }
        #expect(recorder.mismatches == 0)
        #expect(recorder.diffs.count > 50)
    }

    @Test func unrelatedSavesDoNotFetch() throws {
        let factory = try CountingStoreFactory(schema: TestModel.schema)
        let coordinator = PersistentStoreCoordinator(schema: TestModel.schema, storeTypes: StoreTypeRegistry([factory]))
        try coordinator.addStore(StoreDescription(type: CountingStoreFactory.type))
        let context = ManagedObjectContext(coordinator: coordinator)
        let controller = ResultsController(request: Self.request, context: context)
        try controller.performFetch()
        let recorder = DiffRecorder(controller.snapshot)
        controller.delegate = recorder
        let fetches = factory.count("fetch") + factory.count("fetchObjectIDs")

        let other = ManagedObjectContext(coordinator: coordinator)
        let settings = try other.insertObject(entityName: "Settings")
        settings["name"] = "dark"
        let circle = try other.insertObject(entityName: "Circle")
        circle["name"] = "round"
        try other.save()
        #expect(try controller.processChanges() == false)
        #expect(factory.count("fetch") + factory.count("fetchObjectIDs") == fetches)

        // A book that does not match: fetched again, no change reported.
        let thin = try other.insertObject(entityName: "Book")
        thin["title"] = "thin"
        thin["pages"] = 3
        try other.save()
        #expect(try controller.processChanges() == false)
        #expect(recorder.diffs.isEmpty)

        let thick = try other.insertObject(entityName: "Book")
        thick["title"] = "thick"
        thick["pages"] = 300
        try other.save()
        #expect(try controller.processChanges() == true)
        #expect(recorder.diffs.map(\.inserted) == [[ResultsDiff.ItemChange(path: ResultsIndexPath(section: 0, item: 0), objectID: thick.objectID)]])
    }

    @Test func ownInsertIsUpdatedWithItsPermanentID() throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let controller = ResultsController(request: Self.request, context: context)
        try controller.performFetch()
        let recorder = DiffRecorder(controller.snapshot)
        controller.delegate = recorder
        let book = context.perform {
            let book = try! context.insertObject(entityName: "Book")
            book["title"] = "new"
            book["pages"] = 100
            return book
        }
        let temporary = book.objectID
        #expect(temporary.isTemporary)
        #expect(recorder.diffs.last?.inserted == [ResultsDiff.ItemChange(path: ResultsIndexPath(section: 0, item: 0), objectID: temporary)])
        try context.save()
        #expect(!book.objectID.isTemporary)
        #expect(recorder.diffs.last?.updated == [ResultsDiff.ItemChange(path: ResultsIndexPath(section: 0, item: 0), objectID: book.objectID)])
        #expect(controller.snapshot.objectIDs == [book.objectID])
        #expect(controller.indexPath(of: book) == ResultsIndexPath(section: 0, item: 0))
        #expect(recorder.mismatches == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func snapshotsFollowOtherContextsSaves() async throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let controller = ResultsController(request: Self.request, context: context, sectionKeyPath: "rating")
        var snapshots = controller.snapshots.makeAsyncIterator()
        #expect(try await snapshots.next() == ResultsSnapshot(sections: []))
        let other = ManagedObjectContext(coordinator: coordinator)
        let book = try other.insertObject(entityName: "Book")
        book["title"] = "one"
        book["pages"] = 40
        book["rating"] = 2.0
        try other.save()
        #expect(try await snapshots.next() == ResultsSnapshot(sections: [ResultsSnapshot.Section(name: "2.0", objectIDs: [book.objectID])]))
        book["rating"] = 3.0
        try other.save()
        #expect(try await snapshots.next() == ResultsSnapshot(sections: [ResultsSnapshot.Section(name: "3.0", objectIDs: [book.objectID])]))
    }
}
