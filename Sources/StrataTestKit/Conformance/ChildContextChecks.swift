import Foundation
import Strata
import Testing

/// Child contexts: reads see the parent's unsaved state, a save hands changes to the parent
/// only, dropping a child leaves the parent as it was, and new objects get their permanent IDs
/// in every context when the root saves.
package struct ChildContextChecks {
    package init() {}

    /// A stored book (Germinal, 592 pages, tagged classic) and a root context that read it.
    static func setUp(_ kind: StoreKind) throws -> (StoreFixture, ManagedObjectContext, ManagedObject) {
        let fixture = try StoreFixture(kind, Models.catalog)
        let (book, _) = try fixture.savedTaggedBook()
        let root = fixture.context()
        let stored = try root.existingObject(with: book)
        stored["pages"] = 592
        try root.save()
        return (fixture, root, stored)
    }

    package func aChildReadsTheParentsUnsavedStateAndSavesIntoItOnly(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        // Unsaved in the root: a new author, a new title, a new tag on the book.
        let zola = try root.make("Author", ["name": "Zola"])
        book["title"] = "Germinal (1885)"
        let naturalism = try root.make("Tag", ["name": "naturalism"])
        book.addObject(naturalism, forKey: "tags")
        let before = try fixture.snapshot()

        let child = ManagedObjectContext(parent: root)
        #expect(child.parent === root)
        let books = try child.all("Book", by: "title")
        try #require(books.count == 1)
        let childBook = books[0]
        #expect(childBook !== book, "each context has its own object")
        #expect(childBook["title"] as? String == "Germinal (1885)")
        #expect(childBook.sortedNames("tags") == ["classic", "naturalism"])
        let authors = try child.all("Author")
        #expect(authors.map(\.objectID) == [zola.objectID])
        #expect(try child.count(for: FetchRequest(entityName: "Tag")) == 2)
        #expect(try child.fetchObjectIDs(FetchRequest(entityName: "Author")) == [zola.objectID])

        // The child's changes: the new author renamed and made the book's author, a new tag,
        // the book's pages.
        let childZola = authors[0]
        childZola["name"] = "Émile Zola"
        childBook.setObject(childZola, forKey: "author")
        childBook["pages"] = 600
        let mine = try child.make("Tag", ["name": "mine"])
        childBook.addObject(mine, forKey: "tags")
        try child.save()
        #expect(!child.hasChanges)
        #expect(try fixture.snapshot() == before, "a child's save writes nothing to the store")

        // The parent has them, unsaved.
        #expect(zola["name"] as? String == "Émile Zola")
        #expect(book.object(forKey: "author") === zola)
        #expect(zola.objects(forKey: "books").map(\.objectID) == [book.objectID])
        #expect(book.attribute("pages") == .integer(600))
        #expect(book.sortedNames("tags") == ["classic", "mine", "naturalism"])
        let parentMine = try root.existingObject(with: mine.objectID)
        #expect(parentMine.isInserted)

        try root.save()
        #expect(!zola.objectID.isTemporary)
        // The child knows its objects by their permanent IDs too.
        #expect(childZola.objectID == zola.objectID)
        #expect(mine.objectID == parentMine.objectID)
        #expect(childBook.object(forKey: "author")?.objectID == zola.objectID)
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: book.objectID)
            #expect(stored["title"] as? String == "Germinal (1885)")
            #expect(stored.attribute("pages") == .integer(600))
            #expect(stored.name("author") == "Émile Zola")
            #expect(stored.sortedNames("tags") == ["classic", "mine", "naturalism"])
        }
    }

    package func droppingAChildLeavesTheParentAsItWas(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        do {
            let sheet = ManagedObjectContext(parent: root)
            let edited = try sheet.existingObject(with: book.objectID)
            edited["title"] = "Draft"
            sheet.delete(try #require(edited.objects(forKey: "tags").first))
            _ = try sheet.make("Author", ["name": "Nobody"])
            // Dropped without saving.
        }
        #expect(!root.hasChanges)
        #expect(book["title"] as? String == "Germinal")
        #expect(book.sortedNames("tags") == ["classic"])
        let rolledBack = ManagedObjectContext(parent: root)
        let again = try rolledBack.existingObject(with: book.objectID)
        again["title"] = "Other"
        rolledBack.rollback()
        try rolledBack.save()
        #expect(!root.hasChanges)
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").map { $0["title"] as? String } == ["Germinal"])
            #expect(try context.all("Author").isEmpty)
        }
    }

    /// Three levels: a grandchild's change reaches the store only when each level has saved.
    package func changesClimbEveryLevelToTheStore(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        let middle = ManagedObjectContext(parent: root)
        let leaf = ManagedObjectContext(parent: middle)
        let leafBook = try leaf.existingObject(with: book.objectID)
        leafBook["title"] = "Leaf"
        let author = try leaf.make("Author", ["name": "Leaf author"])
        leafBook.setObject(author, forKey: "author")
        try leaf.save()
        #expect(!root.hasChanges)
        let middleBook = try middle.existingObject(with: book.objectID)
        #expect(middleBook["title"] as? String == "Leaf")
        #expect(middleBook.name("author") == "Leaf author")
        try middle.save()
        #expect(book["title"] as? String == "Leaf")
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").map { $0["title"] as? String } == ["Germinal"])
        }
        try root.save()
        #expect(!author.objectID.isTemporary, "the leaf learned the permanent ID")
        #expect(author.objectID == book.object(forKey: "author")?.objectID)
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: book.objectID)
            #expect(stored["title"] as? String == "Leaf")
            #expect(stored.name("author") == "Leaf author")
        }
    }

    /// An object the parent deleted (unsaved) is gone for the child; the child's rules see the
    /// parent's state; a refused child save changes nothing in the parent.
    package func aChildSeesTheParentsDeletionsAndItsRefusedSaveChangesNothing(_ kind: StoreKind) throws {
        let (_, root, book) = try Self.setUp(kind)
        let tag = try #require(book.objects(forKey: "tags").first)
        root.delete(tag)
        // The deletion's nullify changed the book in the root too.
        #expect(root.updatedObjects.map(\.objectID) == [book.objectID])
        let child = ManagedObjectContext(parent: root)
        #expect(try child.all("Tag").isEmpty)
        expectError(.objectNotFound) { _ = try child.existingObject(with: tag.objectID) }
        let childBook = try child.existingObject(with: book.objectID)
        #expect(childBook.objects(forKey: "tags").isEmpty)
        childBook["title"] = nil as String?
        let error = expectError(.validationFailed) { try child.save() }
        #expect(error?.failureSet == [Failure(.missingValue, book.objectID, "title")])
        #expect(book["title"] as? String == "Germinal")
        #expect(root.updatedObjects.map(\.objectID) == [book.objectID])
        #expect(root.deletedObjects.map(\.objectID) == [tag.objectID])
        #expect(book.changedValues().keys.sorted() == ["tags"])
    }

    /// With `automaticallyMergesChangesFromParent`, a child takes in what a sibling saves into
    /// their parent; without it, it keeps what it read.
    package func siblingsTakeInEachOthersSavesWhenTheyMergeAutomatically(_ kind: StoreKind) throws {
        let (_, root, book) = try Self.setUp(kind)
        let editor = ManagedObjectContext(parent: root)
        let follower = ManagedObjectContext(parent: root)
        follower.automaticallyMergesChangesFromParent = true
        let loner = ManagedObjectContext(parent: root)
        let followed = try follower.existingObject(with: book.objectID)
        let alone = try loner.existingObject(with: book.objectID)
        let edited = try editor.existingObject(with: book.objectID)
        edited["title"] = "Edited"
        try editor.save()
        #expect(try follower.all("Book", by: "title").first === followed)
        #expect(followed["title"] as? String == "Edited")
        #expect(alone["title"] as? String == "Germinal")
        #expect(book["title"] as? String == "Edited")
    }
}
