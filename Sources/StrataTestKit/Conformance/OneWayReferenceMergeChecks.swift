import Foundation
import Strata
import Testing

/// Relationships without an inverse whose destination is an abstract parent (a shelf's
/// favourite item, its items, its ordered picks; books and films are items), declared by an
/// entity with a subentity.
private let shelves = Models.load("""
{ "name": "Shelves", "entities": [
  { "name": "Item", "abstract": true, "attributes": [ { "name": "name", "type": "string" } ] },
  { "name": "Book", "parent": "Item", "attributes": [ { "name": "pages", "type": "int64", "optional": true } ] },
  { "name": "Film", "parent": "Item", "attributes": [ { "name": "minutes", "type": "int64", "optional": true } ] },
  { "name": "Shelf", "attributes": [ { "name": "name", "type": "string" } ],
    "relationships": [
      { "name": "favorite", "destination": "Item", "optional": true },
      { "name": "items", "destination": "Item", "toMany": true },
      { "name": "picks", "destination": "Item", "toMany": true, "ordered": true } ] },
  { "name": "BigShelf", "parent": "Shelf", "attributes": [ { "name": "width", "type": "int64", "optional": true } ] }
] }
""")

/// Deleted objects leave relationships without an inverse whatever the relationship's shape,
/// and a context that merges a deletion lets go of the object even where it never made an
/// object of it (a member known by its ID only).
package struct OneWayReferenceMergeChecks {
    package init() {}

    private func names(_ objects: [ManagedObject]) -> [String] {
        objects.map { $0["name"] as? String ?? "?" }
    }

    /// A saved book, and a new shelf of a second context given it as an item, the second
    /// context keeping no object of the book.
    private func bookOnANewShelf(_ fixture: StoreFixture) throws -> (ManagedObjectContext, ManagedObject, ManagedObjectContext, ManagedObject) {
        let context = fixture.context()
        let book = try context.make("Book", ["name": "b"])
        try context.save()
        let second = fixture.context()
        let shelf = try second.make("Shelf", ["name": "s"])
        do { shelf.addObject(try second.existingObject(with: book.objectID), forKey: "items") }
        return (context, book, second, shelf)
    }

    /// A subentity's to-one and to-manys (ordered or not) to an abstract parent lose a deleted
    /// subentity object; the other members stay, in order.
    package func aDeletedObjectLeavesEveryShapeOfRelationshipToItsParentEntity(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, shelves)
        let context = fixture.context()
        let book = try context.make("Book", ["name": "b"])
        let film = try context.make("Film", ["name": "f"])
        let shelf = try context.make("BigShelf", ["name": "s"])
        shelf.setObject(book, forKey: "favorite")
        shelf.addObject(book, forKey: "items")
        shelf.addObject(film, forKey: "items")
        shelf.addObject(film, forKey: "picks")
        shelf.addObject(book, forKey: "picks")
        try context.save()
        let other = fixture.context()
        other.delete(try other.existingObject(with: book.objectID))
        try other.save()
        try fixture.verifyStored { context in
            let stored = try context.existingObject(with: shelf.objectID)
            #expect(stored.object(forKey: "favorite") == nil)
            #expect(names(stored.objects(forKey: "items")) == ["f"])
            #expect(names(stored.objects(forKey: "picks")) == ["f"])
        }
    }

    /// A new shelf given a book by a context that did not keep the book's object: another
    /// context deletes the book, and the merged deletion takes it out of the shelf's items.
    package func aMergedDeletionLeavesAToManyWhoseMemberTheContextDidNotKeep(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, shelves)
        let (context, book, second, shelf) = try bookOnANewShelf(fixture)
        second.automaticallyMergesChangesFromParent = true
        context.delete(book)
        try context.save()
        try second.save()
        #expect(shelf.objects(forKey: "items").isEmpty)
        try fixture.verifyStored { context in
            let stored = try context.all("Shelf")
            #expect(stored.map { names($0.objects(forKey: "items")) } == [[]])
        }
    }

    /// The same with another process deleting the book: store trump takes the deletion, and
    /// the shelf is saved without it.
    package func storeTrumpTakesADeletionOfAMemberTheContextDidNotKeep(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, shelves)
        let (_, book, second, shelf) = try bookOnANewShelf(fixture)
        second.mergePolicy = .rollback
        let other = ManagedObjectContext(coordinator: try fixture.reopen())
        other.delete(try other.existingObject(with: book.objectID))
        try other.save()
        try second.save()
        #expect(shelf.objects(forKey: "items").isEmpty)
        let stored = ManagedObjectContext(coordinator: try fixture.reopen())
        let storedShelves = try stored.all("Shelf")
        #expect(storedShelves.map { names($0.objects(forKey: "items")) } == [[]])
        #expect(try stored.all("Book").isEmpty)
    }
}

/// A context that read the referring object before another context gave it the reference:
/// the deleting save looks at the object as stored, not as this context last read it.
package struct OneWayReferenceStaleReferrerChecks {
    package init() {}

    package func aDeletionClearsAReferenceSetSinceTheContextReadTheReferrer(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        try context.save()
        let other = fixture.context()
        try other.existingObject(with: bob.objectID).setObject(try other.existingObject(with: ann.objectID), forKey: "mentor")
        try other.save()
        context.delete(ann)
        try context.save()
        #expect(bob.object(forKey: "mentor") == nil)
        try fixture.verifyStored { context in
            let people = try context.all("Person")
            #expect(people.map { $0["name"] as? String } == ["bob"])
            #expect(people.first?.object(forKey: "mentor") == nil)
        }
    }
}

/// Undoing a saved deletion of an object that others referred to through a relationship
/// without an inverse: the save took the references away (as `nullify` does through an
/// inverse, in the deletion's own undo group), and one undo brings back both.
package struct OneWayReferenceUndoChecks {
    package init() {}

    package func undoingASavedDeletionBringsBackTheObjectAndTheReferencesToIt(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        context.undoManager = UndoStack()
        let ann = try context.make("Person", ["name": "ann"])
        let bob = try context.make("Person", ["name": "bob"])
        bob.setObject(ann, forKey: "mentor")
        try context.save()
        context.delete(ann)
        try context.save()
        #expect(bob.object(forKey: "mentor") == nil)
        context.undo()
        try context.save()
        #expect(bob.object(forKey: "mentor") === ann)
        try fixture.verifyStored { context in
            let people = try context.all("Person")
            #expect(people.map { "\($0["name"] as? String ?? "?") -> \($0.object(forKey: "mentor")?["name"] as? String ?? "nil")" } == ["ann -> nil", "bob -> ann"])
        }
    }
}
