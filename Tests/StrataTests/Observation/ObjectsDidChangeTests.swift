import Strata
import Testing

@Suite struct ObjectsDidChangeTests {
    @Test(.timeLimit(.minutes(1)))
    func reportsLocalChangesMergesAndRefreshes() async throws {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        var changes = context.changes.makeAsyncIterator()

        let (book, tag) = try context.perform {
            let book = try context.insertObject(entityName: "Book")
            book["title"] = "Dune"
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = "sf"
            return (book, tag)
        }
        #expect(await changes.next() == ObjectsDidChange(inserted: [book.objectID, tag.objectID]))

        // Changed again before the save: an update of an object already reported inserted.
        book["pages"] = 412
        context.processPendingChanges()
        #expect(await changes.next() == ObjectsDidChange(updated: [book.objectID]))
        try context.save()

        context.perform { book["title"] = "Dune Messiah" }
        #expect(await changes.next() == ObjectsDidChange(updated: [book.objectID]))
        context.perform { context.delete(tag) }
        #expect(await changes.next() == ObjectsDidChange(deleted: [tag.objectID]))
        try context.save()

        // Another context's save, merged: inserted, deleted, and updated objects as refreshed.
        let other = ManagedObjectContext(coordinator: coordinator)
        let received = Locked<[SaveNotification]>([])
        let token = coordinator.addSaveObserver { notification in received.withLock { $0.append(notification) } }
        let otherBook = try other.existingObject(with: book.objectID)
        otherBook["pages"] = 500
        let person = try other.insertObject(entityName: "Person")
        person["firstName"] = "Frank"
        person["lastName"] = "Herbert"
        try other.save()
        coordinator.removeObserver(token)
        for notification in received.withLock({ $0 }) { context.mergeChanges(from: notification) }
        #expect(await changes.next() == ObjectsDidChange(inserted: [person.objectID], refreshed: [book.objectID]))

        context.refresh(book, mergeChanges: false)
        #expect(await changes.next() == ObjectsDidChange(refreshed: [book.objectID]))
    }

    @Test func unobservedContextKeepsNothing() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let book = try context.insertObject(entityName: "Book")
        book["title"] = "x"
        // No reader: processing reports nothing and the save goes on as always.
        context.processPendingChanges()
        try context.save()
        #expect(!book.objectID.isTemporary)
    }
}
