import Foundation
import Strata
import StrataTestKit
import Testing

/// Change tracking of to-many members against the saved state: whatever sequence of adds,
/// removes and inserts leads to a state, the object is updated exactly when that state differs
/// from the saved one, and a save writes it.
/// New tags with these names.
private func makeTags(_ names: [String], in context: ManagedObjectContext) -> [Tag] {
    names.map { name in
        let tag = context.insert(Tag.self)
        tag.name = name
        return tag
    }
}

@Suite struct RelationshipMembersTests {
    /// A saved book with the ordered tags a, b, c, in a context on a new in-memory store.
    private func savedBook() throws -> (PersistentStoreCoordinator, ManagedObjectContext, Book, [Tag]) {
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = context.book("Dune")
        let tags = makeTags(["a", "b", "c"], in: context)
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

/// Random sequences of changes to a saved ordered and a saved unordered to-many, with undo:
/// after every step each object is updated exactly when its members differ from the saved ones
/// (in order, for the ordered one), and a save stores what the objects hold.
@Suite struct RelationshipMembersRandomTests {
    @Test(arguments: 0..<40)
    func updatedExactlyWhenMembersDifferFromTheSavedOnes(_ seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let coordinator = TestModel.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = context.book("Dune")
        let ann = context.person("Ann")
        let tags = makeTags((0..<5).map { "t\($0)" }, in: context)
        let friends = (0..<5).map { context.person("F\($0)") }
        book.tags = Array(tags.prefix(3))
        ann.friends = Set(friends.prefix(3))
        try context.save()
        context.undoManager = UndoStack()
        for round in 0..<3 {
            for _ in 0..<25 {
                let tag = tags[Int.random(in: 0..<tags.count, using: &random)]
                let friend = friends[Int.random(in: 0..<friends.count, using: &random)]
                switch Int.random(in: 0..<8, using: &random) {
                case 0: book.addObject(tag, forKey: "tags")
                case 1: book.removeObject(tag, forKey: "tags")
                case 2:
                    let count = book.tags.count
                    if !book.tags.contains(tag) { book.insertObject(tag, at: Int.random(in: 0...count, using: &random), forKey: "tags") }
                case 3: book.setObjects(tags.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random)).map { $0 }, forKey: "tags")
                case 4: ann.addObject(friend, forKey: "friends")
                case 5: ann.removeObject(friend, forKey: "friends")
                case 6: context.undo()
                default: context.redo()
                }
                let savedTags = book.committedValues(forKeys: ["tags"])["tags"]
                #expect(book.isUpdated == (savedTags != .toMany(book.tags.map(\.objectID))), "round \(round): \(book.tags.map(\.name)) against \(String(describing: savedTags))")
                guard case .toMany(let savedFriends) = ann.committedValues(forKeys: ["friends"])["friends"] else {
                    Issue.record("no saved friends")
                    return
                }
                let changedFriends = Set(savedFriends) != Set(ann.friends.map(\.objectID))
                #expect(ann.changedValues().keys.contains("friends") == changedFriends)
            }
            try context.save()
            let check = ManagedObjectContext(coordinator: coordinator)
            let storedBook = try #require(try check.existingObject(with: book.objectID) as? Book)
            #expect(storedBook.tags.map(\.objectID) == book.tags.map(\.objectID))
            let storedAnn = try #require(try check.existingObject(with: ann.objectID) as? Person)
            #expect(Set(storedAnn.friends.map(\.objectID)) == Set(ann.friends.map(\.objectID)))
        }
    }
}

/// Random changes in two contexts, the second's saves merged into the first while it keeps its
/// own changes: the first's objects stay updated exactly when they differ from the merged saved
/// state, and its saves store what it holds.
@Suite struct RelationshipMembersMergeTests {
    @Test(arguments: 0..<30)
    func mergedChangesKeepTheTracking(_ seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let coordinator = TestModel.coordinator()
        let setup = ManagedObjectContext(coordinator: coordinator)
        let book = setup.book("Dune")
        let tags = makeTags((0..<5).map { "t\($0)" }, in: setup)
        book.tags = Array(tags.prefix(3))
        try setup.save()
        let first = ManagedObjectContext(coordinator: coordinator), second = ManagedObjectContext(coordinator: coordinator)
        first.automaticallyMergesChangesFromParent = true
        second.automaticallyMergesChangesFromParent = true
        func objects(in context: ManagedObjectContext) throws -> (Book, [Tag]) {
            (try #require(try context.existingObject(with: book.objectID) as? Book),
             try tags.map { try #require(try context.existingObject(with: $0.objectID) as? Tag) })
        }
        let (mine, myTags) = try objects(in: first)
        let (theirs, theirTags) = try objects(in: second)
        for _ in 0..<30 {
            let index = Int.random(in: 0..<tags.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0: mine.addObject(myTags[index], forKey: "tags")
            case 1: mine.removeObject(myTags[index], forKey: "tags")
            case 2: mine.setObjects(myTags.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random)).map { $0 }, forKey: "tags")
            case 3: mine.pages = Int32.random(in: 1...3, using: &random)
            case 4:
                theirs.setObjects(theirTags.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random)).map { $0 }, forKey: "tags")
                theirs.pages = Int32.random(in: 1...3, using: &random)
                try second.save()
            case 5: theirTags[index].name = "t\(index)-\(Int.random(in: 0...2, using: &random))"; try second.save()
            default:
                first.mergePolicy = .overwrite
                try first.save()
                let check = ManagedObjectContext(coordinator: coordinator)
                let stored = try #require(try check.existingObject(with: book.objectID) as? Book)
                #expect(stored.tags.map(\.objectID) == mine.tags.map(\.objectID))
                #expect(stored.pages == mine.pages)
            }
            _ = try first.count(for: FetchRequest(entityName: "Book"))   // takes pending merges
            let saved = mine.committedValues(forKeys: ["tags", "pages"])
            let differs = saved["tags"] != .toMany(mine.tags.map(\.objectID)) || saved["pages"] != .attribute(.integer(Int64(mine.pages)))
            #expect(mine.isUpdated == differs, "\(mine.tags.map(\.name)) against \(String(describing: saved["tags"]))")
        }
    }
}
