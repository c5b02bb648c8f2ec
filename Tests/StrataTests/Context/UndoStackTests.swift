import Foundation
import Strata
import Testing

/// A context with an undo stack and one saved person with a book, a pet and an ordered list of
/// tags on the book.
private func stack(levels: Int = 0) throws -> (ManagedObjectContext, Person, Book, [Tag]) {
    let context = ManagedObjectContext(coordinator: TestModel.coordinator())
    let ann = context.person("Ann", "Lee")
    let book = context.book("Dune", by: ann)
    let tags = ["a", "b", "c"].map { name in
        let tag = context.insert(Tag.self)
        tag.name = name
        return tag
    }
    book.tags = tags
    let pet = Pet(context: context)
    pet.name = "Rex"
    ann.pet = pet
    try context.save()
    context.undoManager = UndoStack(levelsOfUndo: levels)
    return (context, ann, book, tags)
}

@Suite struct UndoStackTests {
    @Test func undoAndRedoAnAttributeChange() throws {
        let (context, ann, _, _) = try stack()
        let undo = try #require(context.undoManager)
        #expect(!undo.canUndo && !undo.canRedo)
        ann.firstName = "Anne"
        ann.lastName = "Smith"
        #expect(undo.canUndo)
        context.undo()
        #expect(ann.fullName == "Anne Lee")
        context.undo()
        #expect(ann.fullName == "Ann Lee")
        #expect(!ann.hasChanges && !context.hasChanges)
        #expect(!undo.canUndo && undo.canRedo)
        context.redo()
        #expect(ann.fullName == "Anne Lee")
        context.redo()
        #expect(ann.fullName == "Anne Smith")
        #expect(!undo.canRedo)
        #expect(ann.changedValues() == ["firstName": .attribute(.string("Anne")), "lastName": .attribute(.string("Smith"))])
        context.undo()
        context.undo()
        context.undo()        // nothing left: no effect
        #expect(ann.fullName == "Ann Lee")
    }

    @Test func aNewChangeClearsRedo() throws {
        let (context, ann, _, _) = try stack()
        ann.firstName = "Anne"
        context.undo()
        #expect(context.undoManager?.canRedo == true)
        ann.lastName = "Smith"
        #expect(context.undoManager?.canRedo == false)
        context.redo()
        #expect(ann.fullName == "Ann Smith")
    }

    @Test func undoAndRedoAnInsert() throws {
        let (context, _, _, _) = try stack()
        let bare = try context.insertObject(entityName: "Tag")
        context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(bare.managedObjectContext == nil)
        // An insert with its first values, as one group.
        let bob = context.perform { context.person("Bob") }
        #expect(context.insertedObjects == [bob])
        context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(bob.managedObjectContext == nil)
        #expect(!context.hasChanges)
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 1)
        context.redo()
        #expect(context.insertedObjects == [bob])
        #expect(bob.managedObjectContext === context)
        #expect(context.object(with: bob.objectID) === bob)
        #expect(bob.fullName == "Bob Doe")
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 2)
    }

    @Test func aDeleteWithItsCascadeIsOneGroup() throws {
        let (context, ann, book, tags) = try stack()
        let pet = try #require(ann.pet)
        context.delete(ann)
        #expect(context.deletedObjects == [ann, book, pet])
        #expect(tags.allSatisfy { $0.books.isEmpty })
        context.undo()
        #expect(context.deletedObjects.isEmpty)
        #expect(!context.hasChanges)
        #expect(ann.books == [book] && book.author === ann)
        #expect(ann.pet === pet && pet.owner === ann)
        #expect(book.tags == tags)
        #expect(tags.allSatisfy { $0.books == [book] })
        context.redo()
        #expect(context.deletedObjects == [ann, book, pet])
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Book")) == 0)
        #expect(try context.count(for: FetchRequest(entityName: "Tag")) == 3)
    }

    @Test func relationshipChangesUndoOnBothSides() throws {
        let (context, ann, book, tags) = try stack()
        let bob = context.perform { context.person("Bob") }
        let pet = try #require(ann.pet)
        pet.owner = bob                       // moves the pet: ann loses it
        #expect(ann.pet == nil && bob.pet === pet)
        book.tags = [tags[2], tags[0]]        // removes b, reorders
        book.insertObject(tags[1], at: 1, forKey: "tags")
        #expect(book.tags.map(\.name) == ["c", "b", "a"])
        context.undo()
        #expect(book.tags.map(\.name) == ["c", "a"])
        context.undo()
        #expect(book.tags.map(\.name) == ["a", "b", "c"])
        #expect(tags[1].books == [book])
        context.undo()
        #expect(ann.pet === pet && bob.pet == nil && pet.owner === ann)
        context.undo()                        // the insert of bob
        #expect(!context.hasChanges)
        context.redo()
        context.redo()
        #expect(bob.pet === pet && ann.pet == nil)
        context.redo()
        context.redo()
        #expect(book.tags.map(\.name) == ["c", "b", "a"])
    }

    @Test func groupsMakeOneStep() throws {
        let (context, ann, book, _) = try stack()
        let undo = try #require(context.undoManager)
        undo.group {
            ann.firstName = "Anne"
            book.title = "Dune Messiah"
            undo.group { ann.age = 40 }       // nested groups join the outer one
        }
        context.perform { ann.lastName = "Smith" }
        context.undo()
        #expect(ann.fullName == "Anne Lee")
        context.undo()
        #expect(ann.firstName == "Ann" && ann.age == nil && book.title == "Dune")
        #expect(!undo.canUndo)
        context.redo()
        #expect(ann.firstName == "Anne" && ann.age == 40 && book.title == "Dune Messiah")
    }

    @Test func undoWorksAcrossASave() throws {
        let (context, ann, _, _) = try stack()
        ann.firstName = "Anne"
        try context.save()
        context.undo()
        #expect(ann.firstName == "Ann")
        #expect(ann.isUpdated)
        #expect(ann.changedValues() == ["firstName": .attribute(.string("Ann"))])
    }

    @Test func undoingASavedInsertDeletesAndRedoInsertsAgain() throws {
        let (context, _, _, _) = try stack()
        let other = ManagedObjectContext(coordinator: context.coordinator)
        let bob = context.perform { context.person("Bob") }
        try context.save()
        let id = bob.objectID
        context.undo()
        #expect(context.deletedObjects == [bob])
        try context.save()
        #expect(try other.count(for: FetchRequest(entityName: "Person")) == 1)
        context.redo()
        #expect(context.insertedObjects == [bob])
        try context.save()
        #expect(bob.objectID == id)
        #expect(try other.existingObject(with: id)["firstName"] as? String == "Bob")
    }

    @Test func undoingASavedDeleteInsertsTheObjectsAgain() throws {
        let (context, ann, book, tags) = try stack()
        let pet = try #require(ann.pet)
        let ids = [ann, book, pet].map(\.objectID)
        context.delete(ann)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.coordinator)
        #expect(try other.count(for: FetchRequest(entityName: "Person")) == 0)
        context.undo()
        #expect(context.insertedObjects == [ann, book, pet])
        #expect(ann.books == [book] && ann.pet === pet && book.tags == tags)
        try context.save()
        #expect([ann, book, pet].map(\.objectID) == ids)
        let stored = try #require(try other.existingObject(with: ids[0]) as? Person)
        #expect(stored.fullName == "Ann Lee")
        #expect(stored.books.map(\.objectID) == [ids[1]])
        #expect(stored.pet?.objectID == ids[2])
        #expect(stored.books.first?.tags.map(\.name) == ["a", "b", "c"])
        #expect(try other.count(for: FetchRequest(entityName: "Tag", predicate: where_("books.@count", .equal, 1))) == 3)
        // And redo deletes them again.
        context.redo()
        #expect(context.deletedObjects == [ann, book, pet])
        try context.save()
        #expect(try ManagedObjectContext(coordinator: context.coordinator).count(for: FetchRequest(entityName: "Book")) == 0)
    }

    @Test func undoingTheDeleteOfAnInsertASaveDroppedInsertsItAgain() throws {
        let (context, _, _, _) = try stack()
        var tag: Tag? = context.perform {
            let tag = context.insert(Tag.self)
            tag.name = "d"
            return tag
        }
        context.delete(try #require(tag))
        // Inserted and deleted: the save never sends it, and it leaves the context.
        try context.save()
        #expect(tag?.managedObjectContext == nil)
        context.undo()
        // Back in its context, as an insert to save.
        #expect(tag?.managedObjectContext === context)
        #expect(context.insertedObjects == [try #require(tag)])
        try context.save()
        let id = try #require(tag?.objectID)
        #expect(!id.isTemporary)
        // A registered object must belong to its context: it leaves the registry when freed
        // (checked before freeing it, so that a failure does not read freed memory).
        try #require(tag?.managedObjectContext === context)
        context.undoManager?.removeAll()
        tag = nil
        #expect(!context.registeredObjects.contains { $0.objectID == id })
        let stored = try #require(try ManagedObjectContext(coordinator: context.coordinator).existingObject(with: id) as? Tag)
        #expect(stored.name == "d")
    }

    @Test func anInsertBroughtBackByUndoRefersToObjectsSavedMeanwhile() throws {
        let (context, _, _, _) = try stack()
        let (bob, pet) = context.perform {
            let pet = Pet(context: context)
            pet.name = "Tom"
            let bob = context.person("Bob")
            bob.pet = pet
            return (bob, pet)
        }
        context.delete(pet)
        #expect(bob.pet == nil)
        // Bob is saved and gets a permanent ID; Tom, inserted and deleted, is dropped.
        try context.save()
        context.undo()
        #expect(pet.managedObjectContext === context)
        #expect(pet.owner === bob && bob.pet === pet)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.coordinator)
        #expect(try other.existingObject(with: pet.objectID).object(forKey: "owner")?.objectID == bob.objectID)
    }

    @Test func undoingARelationshipChangeToANewObjectAfterItsSave() throws {
        let (context, ann, book, _) = try stack()
        let (bob, pet) = context.perform {
            let pet = Pet(context: context)
            pet.name = "Tom"
            return (context.person("Bob"), pet)
        }
        ann.friends = [bob]
        ann.pet = pet
        try context.save()
        // bob and Tom now have permanent IDs; undoing still finds them.
        context.undo()
        #expect(ann.pet?.name == "Rex")
        #expect(pet.owner == nil)
        context.undo()
        #expect(ann.friends.isEmpty)
        #expect(bob.friends.isEmpty)
        #expect(ann.hasChanges && bob.hasChanges)
        context.redo()
        #expect(ann.friends == [bob])
        context.redo()
        #expect(ann.pet === pet && pet.owner === ann)
        #expect(book.author === ann)

        // A to-one that held a new object before a save, set back to it after.
        let cat = context.perform {
            let cat = Pet(context: context)
            cat.name = "Cat"
            return cat
        }
        ann.pet = cat
        ann.pet = pet
        try context.save()
        context.undo()
        #expect(ann.pet === cat && cat.owner === ann && pet.owner == nil)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.coordinator)
        #expect(try other.existingObject(with: ann.objectID).object(forKey: "pet")?.objectID == cat.objectID)
    }

    @Test func levelsOfUndoDropTheOldest() throws {
        let (context, ann, _, _) = try stack(levels: 2)
        for age in [1, 2, 3] { ann.age = Int16(age) }
        context.undo()
        context.undo()
        #expect(ann.age == 1)
        #expect(context.undoManager?.canUndo == false)
    }

    @Test func rollbackAndRemoveAllClearTheHistory() throws {
        let (context, ann, _, _) = try stack()
        ann.firstName = "Anne"
        context.rollback()
        #expect(context.undoManager?.canUndo == false)
        context.undo()
        #expect(ann.firstName == "Ann")
        ann.firstName = "Anne"
        context.undo()
        context.undoManager?.removeAll()
        #expect(context.undoManager?.canRedo == false)
        context.redo()
        #expect(ann.firstName == "Ann")
    }

    @Test func noUndoStackKeepsNoHistory() throws {
        let (context, ann, _, _) = try stack()
        context.undoManager = nil
        ann.firstName = "Anne"
        context.undo()
        #expect(ann.firstName == "Anne")
    }
}
