import Foundation
import Strata
import Testing

/// Change tracking of to-many members against the saved state: whatever sequence of adds,
/// removes and inserts leads to a state, the object is updated exactly when that state differs
/// from the saved one, and a save writes it.
@Suite struct RelationshipMembersTests {
    /// A saved book with the ordered tags a, b, c, in a context on a new in-memory store.
    private func savedBook() throws -> (PersistentStoreCoordinator, ManagedObjectContext, Book, [Tag]) {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = context.book("Dune")
        let tags = ["a", "b", "c"].map { name in
            let tag = context.insert(Tag.self)
            tag.name = name
            return tag
        }
        book.tags = tags
        try context.save()
        return (coordinator, context, book, tags)
    }

    private func storedTagNames(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = try #require(try context.fetch(Book.self).first)
        return book.tags.map(\.name)
    }

    @Test func takingMembersOffTheEndAndAppendingThemInAnotherOrderIsAChange() throws {
        let (coordinator, context, book, tags) = try savedBook()
        // Each removal takes the last member, each add appends: no insert before the end and no
        // removal from the middle, yet the order is now c, b, a.
        for tag in tags.reversed() { book.removeObject(tag, forKey: "tags") }
        for tag in tags.reversed() { book.addObject(tag, forKey: "tags") }
        #expect(book.tags.map(\.name) == ["c", "b", "a"])
        #expect(book.isUpdated)
        #expect(book.changedValues() == ["tags": .toMany(tags.reversed().map(\.objectID))])
        try context.save()
        #expect(book.tags.map(\.name) == ["c", "b", "a"])
        #expect(book.committedValues(forKeys: ["tags"]) == ["tags": .toMany(tags.reversed().map(\.objectID))])
        let stored = try storedTagNames(coordinator)
        #expect(stored == ["c", "b", "a"])
    }

    @Test func aMemberTakenOffTheEndAndAppendedAfterAnotherIsAChange() throws {
        let (coordinator, context, book, tags) = try savedBook()
        let d = context.insert(Tag.self)
        d.name = "d"
        try context.save()
        book.removeObject(tags[2], forKey: "tags")
        book.addObject(d, forKey: "tags")
        book.addObject(tags[2], forKey: "tags")
        book.removeObject(d, forKey: "tags")
        // a, b, c again, as saved.
        #expect(book.tags.map(\.name) == ["a", "b", "c"])
        #expect(!book.isUpdated)
        book.removeObject(tags[2], forKey: "tags")
        book.removeObject(tags[1], forKey: "tags")
        book.addObject(tags[2], forKey: "tags")
        book.addObject(tags[1], forKey: "tags")
        #expect(book.tags.map(\.name) == ["a", "c", "b"])
        #expect(book.isUpdated)
        try context.save()
        let stored = try storedTagNames(coordinator)
        #expect(stored == ["a", "c", "b"])
    }

    @Test func takingTheLastMemberOffAndAppendingItAgainIsNoChange() throws {
        let (_, context, book, tags) = try savedBook()
        book.removeObject(tags[2], forKey: "tags")
        #expect(book.isUpdated)
        book.addObject(tags[2], forKey: "tags")
        #expect(!book.isUpdated && !book.hasChanges && !context.hasChanges)
    }
}
