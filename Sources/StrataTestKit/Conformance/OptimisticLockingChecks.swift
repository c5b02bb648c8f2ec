import Foundation
import Strata
import Testing

/// Two contexts change the same object: the second save conflicts, and the merge policy
/// decides.
package struct OptimisticLockingChecks {
    package init() {}

    /// A stored book and two contexts that have both read it.
    static func setUp(_ kind: StoreKind) throws -> (StoreFixture, ObjectID, ManagedObject, ManagedObject, ManagedObjectContext, ManagedObjectContext) {
        let fixture = try StoreFixture(kind, Models.catalog)
        let setup = fixture.context()
        let book = try setup.make("Book", ["title": "Germinal", "pages": 592])
        try setup.save()
        let first = fixture.context(), second = fixture.context()
        let a = try first.existingObject(with: book.objectID), b = try second.existingObject(with: book.objectID)
        #expect(a.attribute("pages") == .integer(592))
        #expect(b.attribute("pages") == .integer(592))
        return (fixture, book.objectID, a, b, first, second)
    }

    package func errorPolicyRefusesTheSecondSave(_ kind: StoreKind) throws {
        let (fixture, id, a, b, first, second) = try Self.setUp(kind)
        a["pages"] = 600
        try first.save()
        b["pages"] = 700
        let tag = try second.make("Tag", ["name": "new"])
        let before = try fixture.snapshot()
        let error = expectError(.mergeConflict) { try second.save() }
        #expect(error?.failureSet == [Failure(.conflict, id, nil)])
        #expect(try fixture.snapshot() == before)
        #expect(second.hasChanges)
        #expect(b.attribute("pages") == .integer(700))
        #expect(tag.objectID.isTemporary)
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: id).attribute("pages") == .integer(600))
            #expect(try context.all("Tag").isEmpty)
        }

        // Refreshing while keeping the changes takes the new version; the save then succeeds.
        second.refresh(b, mergeChanges: true)
        #expect(b.attribute("pages") == .integer(700))
        try second.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: id).attribute("pages") == .integer(700))
            #expect(try context.all("Tag").map { $0["name"] as? String } == ["new"])
        }
    }

    /// A delete of many objects, one of which another context changed after this one read it:
    /// the whole save is refused, naming that object, and every object stays (the SQLite
    /// store deletes rows a hundred per statement and checks their versions after).
    package func aDeleteOfManyWithOneChangedElsewhereDeletesNothing(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let setup = fixture.context()
        for page in 1...250 { _ = try setup.make("Book", ["title": "b\(page)", "pages": page]) }
        try setup.save()
        let deleting = fixture.context()
        let books = try deleting.all("Book", by: "pages")
        #expect(books.count == 250)
        let other = fixture.context()
        let changed = try other.existingObject(with: books[180].objectID)
        changed["pages"] = 1000
        try other.save()
        for book in books { deleting.delete(book) }
        let error = expectError(.mergeConflict) { try deleting.save() }
        #expect(error?.failureSet == [Failure(.conflict, books[180].objectID, nil)])
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").count == 250)
        }
        // Without the conflict, every one goes.
        deleting.refresh(books[180], mergeChanges: false)
        deleting.delete(books[180])
        try deleting.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").isEmpty)
        }
    }

    package func deletedElsewhereIsAConflict(_ kind: StoreKind) throws {
        let (fixture, id, a, b, first, second) = try Self.setUp(kind)
        first.delete(a)
        try first.save()
        b["pages"] = 700
        second.mergePolicy = .overwrite
        let error = expectError(.mergeConflict) { try second.save() }
        #expect(error?.failureSet == [Failure(.conflict, id, nil)])
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").isEmpty)
        }
    }

    package func objectTrumpOverwritesTheStoredValues(_ kind: StoreKind) throws {
        let (fixture, id, a, b, first, second) = try Self.setUp(kind)
        a["pages"] = 600
        try first.save()
        b["pages"] = 700
        second.mergePolicy = .overwrite
        try second.save()
        #expect(!second.hasChanges)
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: id)
            #expect(stored.attribute("pages") == .integer(700))
            #expect(stored.attribute("title") == .string("Germinal"))
        }
        // The first context is now the stale one.
        a["pages"] = 800
        expectError(.mergeConflict) { try first.save() }
    }

    package func storeTrumpKeepsTheStoredValuesAndSavesTheRest(_ kind: StoreKind) throws {
        let (fixture, id, a, b, first, second) = try Self.setUp(kind)
        a["pages"] = 600
        try first.save()
        b["pages"] = 700
        let tag = try second.make("Tag", ["name": "kept"])
        second.mergePolicy = .rollback
        try second.save()
        #expect(!second.hasChanges)
        #expect(b.attribute("pages") == .integer(600))
        #expect(!tag.objectID.isTemporary)
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: id).attribute("pages") == .integer(600))
            #expect(try context.all("Tag").map(\.objectID) == [tag.objectID])
        }
    }

    /// A to-many change kept through a merge stays a change even when the merged record leaves
    /// the relationship to load later (the SQLite store does): the saved members are read to
    /// compare with, not taken as none.
    package func aToManyRemovalSurvivesARefreshThatKeepsChanges(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let (book, tag) = try fixture.savedTaggedBook()
        let first = fixture.context(), second = fixture.context()
        let a = try first.existingObject(with: book), t = try first.existingObject(with: tag)
        a.removeObject(t, forKey: "tags")
        #expect(a.isUpdated && t.isUpdated)
        let b = try second.existingObject(with: book), u = try second.existingObject(with: tag)
        b["pages"] = 700
        u["name"] = "classics"
        try second.save()
        first.refresh(a, mergeChanges: true)
        first.refresh(t, mergeChanges: true)
        #expect(a.attribute("pages") == .integer(700))
        #expect(t["name"] as? String == "classics")
        #expect(a.isUpdated && t.isUpdated)
        #expect(a.changedValues() == ["tags": .toMany([])])
        #expect(a.committedValues(forKeys: ["tags"]) == ["tags": .toMany([tag])])
        try first.save()
        try fixture.verifyStored { context throws in
            let stored = try context.existingObject(with: book)
            #expect(stored.objects(forKey: "tags").isEmpty)
            #expect(stored.attribute("pages") == .integer(700))
            #expect(try context.existingObject(with: tag).objects(forKey: "books").isEmpty)
        }
    }
}
