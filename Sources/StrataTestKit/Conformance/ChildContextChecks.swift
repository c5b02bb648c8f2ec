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

    /// The parent adds a member to a to-many the child has read; the child adds another. The
    /// child's save hands over its own addition, not its whole list: the parent's member stays
    /// (on both sides of the relationship), and the store gets all three.
    package func aChildsToManyChangeKeepsWhatTheParentAddedSinceTheChildReadIt(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        let tag = try #require(book.objects(forKey: "tags").first)
        let child = ManagedObjectContext(parent: root)
        let childTag = try child.existingObject(with: tag.objectID)
        #expect(childTag.sortedNames("books", by: "title") == ["Germinal"])
        let nana = try root.make("Book", ["title": "Nana"])
        nana.addObject(tag, forKey: "tags")
        let therese = try child.make("Book", ["title": "Thérèse Raquin"])
        therese.addObject(childTag, forKey: "tags")
        try child.save()
        #expect(tag.sortedNames("books", by: "title") == ["Germinal", "Nana", "Thérèse Raquin"])
        #expect(nana.sortedNames("tags") == ["classic"])
        try root.save()
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: tag.objectID)
            #expect(stored.sortedNames("books", by: "title") == ["Germinal", "Nana", "Thérèse Raquin"])
            #expect(try context.all("Book", by: "title").map { $0.sortedNames("tags") } == [["classic"], ["classic"], ["classic"]])
        }
    }

    /// The parent gives a book an author after the child read the book; the child gives it
    /// another. The child's choice wins, and the parent's author lets the book go.
    package func aChildsToOneChangeMovesTheObjectOutOfTheParentsNewerDestination(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        let zola = try root.make("Author", ["name": "Zola"])
        let hugo = try root.make("Author", ["name": "Hugo"])
        try root.save()
        let child = ManagedObjectContext(parent: root)
        let childBook = try child.existingObject(with: book.objectID)
        #expect(childBook.object(forKey: "author") == nil)
        book.setObject(zola, forKey: "author")
        let childHugo = try child.existingObject(with: hugo.objectID)
        childBook.setObject(childHugo, forKey: "author")
        try child.save()
        #expect(book.name("author") == "Hugo")
        #expect(zola.objects(forKey: "books").isEmpty)
        #expect(hugo.sortedNames("books", by: "title") == ["Germinal"])
        try root.save()
        try fixture.verifyStored { context throws in
            let authors = try context.all("Author")
            #expect(authors.map { $0["name"] as? String } == ["Hugo", "Zola"])
            #expect(authors.map { $0.sortedNames("books", by: "title") } == [["Germinal"], []])
            #expect(try context.existingObject(with: book.objectID).name("author") == "Hugo")
        }
    }

    /// The child deletes a tag and an author the parent has given books since the child read
    /// them: the parent's references to them go too (their delete rule, nullify, acts on what
    /// the parent holds), so nothing refers to a deleted object.
    package func aChildsDeletionReleasesWhatTheParentReferredToItSinceTheChildReadIt(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        let tag = try #require(book.objects(forKey: "tags").first)
        let zola = try root.make("Author", ["name": "Zola"])
        try root.save()
        let child = ManagedObjectContext(parent: root)
        let childTag = try child.existingObject(with: tag.objectID)
        let childZola = try child.existingObject(with: zola.objectID)
        #expect(childTag.sortedNames("books", by: "title") == ["Germinal"])
        #expect(childZola.objects(forKey: "books").isEmpty)
        let nana = try root.make("Book", ["title": "Nana"])
        nana.addObject(tag, forKey: "tags")
        book.setObject(zola, forKey: "author")
        child.delete(childTag)
        child.delete(childZola)
        try child.save()
        #expect(tag.isDeleted && zola.isDeleted)
        #expect(book.object(forKey: "author") == nil)
        #expect(book.objects(forKey: "tags").isEmpty)
        #expect(nana.objects(forKey: "tags").isEmpty)
        try root.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Tag").isEmpty)
            #expect(try context.all("Author").isEmpty)
            let books = try context.all("Book", by: "title")
            #expect(books.map { $0["title"] as? String } == ["Germinal", "Nana"])
            #expect(books.map { $0.objects(forKey: "tags").count } == [0, 0])
            #expect(books.map { $0.object(forKey: "author") == nil } == [true, true])
        }
    }

    /// A child adds a new object of the root to a saved book's to-many; the root saves (the
    /// object's ID becomes permanent) before the child does. The child's addition, now under the
    /// permanent ID, still reaches the root, on both sides of the relationship.
    package func aChildsAdditionOfANewObjectSurvivesTheRootSavingIt(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        let fresh = try root.make("Tag", ["name": "fresh"])
        let child = ManagedObjectContext(parent: root)
        let childBook = try child.existingObject(with: book.objectID)
        let childFresh = try child.existingObject(with: fresh.objectID)
        childBook.addObject(childFresh, forKey: "tags")
        try root.save()
        #expect(!childFresh.objectID.isTemporary)
        try child.save()
        #expect(book.sortedNames("tags") == ["classic", "fresh"])
        #expect(fresh.sortedNames("books", by: "title") == ["Germinal"])
        try root.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: book.objectID).sortedNames("tags") == ["classic", "fresh"])
            #expect(try context.existingObject(with: fresh.objectID).sortedNames("books", by: "title") == ["Germinal"])
        }
    }

    /// The parent renames an author (unsaved); a child's fetches of books by their author's
    /// name, and sorted by it, see the new name: the parent's state is the child's store, also
    /// through relationships.
    package func aChildsFetchThroughARelationshipSeesTheParentsUnsavedChange(_ kind: StoreKind) throws {
        let (fixture, root, book) = try Self.setUp(kind)
        defer { withExtendedLifetime(fixture) {} }
        let emile = try root.make("Author", ["name": "Émile"])
        book.setObject(emile, forKey: "author")
        let other = try root.make("Book", ["title": "Les Misérables"])
        other.setObject(try root.make("Author", ["name": "Hugo"]), forKey: "author")
        try root.save()
        emile["name"] = "Zola"
        let child = ManagedObjectContext(parent: root)
        let byZola = FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "author.name == 'Zola'"))
        #expect(try child.fetch(byZola).map(\.objectID) == [book.objectID])
        #expect(try child.count(for: byZola) == 1)
        #expect(try child.fetchObjectIDs(byZola) == [book.objectID])
        let byAuthor = FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("author.name")])
        #expect(try child.fetch(byAuthor).map { $0["title"] as? String } == ["Les Misérables", "Germinal"])
        emile["name"] = "Aaron"
        #expect(try child.fetch(byAuthor).map { $0["title"] as? String } == ["Germinal", "Les Misérables"])
    }

    /// The parent deletes a book after the child read it; the child changes the book and adds
    /// a new tag to it. Under `.error` the child's save fails with a merge conflict naming the
    /// book and hands nothing over; under `.rollback` the deletion wins, as for an object another
    /// save deleted from the store: the book leaves the child, the new tag is handed over
    /// without it, and the root saves.
    package func aChildsChangeOfAnObjectTheParentDeletedIsAConflict(_ kind: StoreKind) throws {
        for policy in [ManagedObjectContext.MergePolicy.error, .rollback] {
            let (fixture, root, book) = try Self.setUp(kind)
            let child = ManagedObjectContext(parent: root)
            child.mergePolicy = policy
            let childBook = try child.existingObject(with: book.objectID)
            root.delete(book)
            childBook["title"] = "Germinal (1885)"
            let tag = try child.make("Tag", ["name": "new"])
            childBook.addObject(tag, forKey: "tags")
            if policy == .error {
                let error = expectError(.mergeConflict) { try child.save() }
                #expect(error?.failureSet == [Failure(.conflict, book.objectID, nil)])
                #expect(child.hasChanges)
                #expect(root.insertedObjects.isEmpty)
                #expect(root.updatedObjects.map { $0["name"] as? String } == ["classic"])
                continue
            }
            try child.save()
            #expect(root.insertedObjects.map { $0["name"] as? String } == ["new"])
            #expect(root.insertedObjects.first?.objects(forKey: "books").isEmpty == true)
            try root.save()
            try fixture.verifyStored { context throws in
                #expect(try context.all("Book", by: "title").isEmpty)
                let tags = try context.all("Tag")
                #expect(tags.map { $0["name"] as? String } == ["classic", "new"])
                #expect(tags.map { $0.objects(forKey: "books").count } == [0, 0])
            }
        }
    }

    /// An album's songs (ordered) read by a child; the parent adds a song, the child moves the
    /// last one to the front. The child's order is handed over with the parent's new song at
    /// the end, on both sides of the relationship.
    package func aChildsReorderingKeepsWhatTheParentAddedSinceTheChildReadIt(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let root = fixture.context()
        let album = try root.make("Album", ["title": "Album"])
        for title in ["1", "2", "3"] {
            try root.make("Track", ["title": title]).setObject(album, forKey: "album")
        }
        try root.save()
        let child = ManagedObjectContext(parent: root)
        let childAlbum = try child.existingObject(with: album.objectID)
        #expect(childAlbum.names("songs", by: "title") == ["1", "2", "3"])
        let four = try root.make("Track", ["title": "4"])
        four.setObject(album, forKey: "album")
        let three = try #require(childAlbum.objects(forKey: "songs").last)
        childAlbum.removeObject(three, forKey: "songs")
        childAlbum.insertObject(three, at: 0, forKey: "songs")
        three.setObject(childAlbum, forKey: "album")
        try child.save()
        #expect(album.names("songs", by: "title") == ["3", "1", "2", "4"])
        #expect(four.object(forKey: "album") === album)
        try root.save()
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: album.objectID)
            #expect(stored.names("songs", by: "title") == ["3", "1", "2", "4"])
        }
    }
}
