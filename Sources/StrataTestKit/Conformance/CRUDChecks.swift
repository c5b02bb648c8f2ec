import Foundation
import Strata
import Testing

package struct CRUDChecks {
    package init() {}

    package func insertFetchUpdateDelete(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let context = fixture.context()
        let author = try context.make("Author", ["name": "Ursula", "country": "US"])
        let first = try context.make("Book", ["title": "The Dispossessed", "pages": 387])
        let second = try context.make("Book", ["title": "Lathe of Heaven"])
        first.setObject(author, forKey: "author")
        second.setObject(author, forKey: "author")
        #expect(first.objectID.isTemporary)
        try context.save()

        // Inserted: IDs are permanent, distinct, of this store, and the defaults were stored.
        let ids = [author.objectID, first.objectID, second.objectID]
        #expect(ids.allSatisfy { !$0.isTemporary && $0.storeIdentifier == fixture.store.metadata.storeIdentifier })
        #expect(Set([first.objectID.primaryKey, second.objectID.primaryKey]).count == 2)
        #expect(!context.hasChanges)
        try fixture.verifyStored { context throws in
            let books = try context.all("Book", by: "title")
            #expect(books.map(\.objectID) == [second.objectID, first.objectID])
            #expect(books.map { $0.attribute("title") } == [.string("Lathe of Heaven"), .string("The Dispossessed")])
            #expect(books.map { $0.attribute("pages") } == [nil, .integer(387)])
            #expect(books.map { $0.attribute("inPrint") } == [.bool(true), .bool(true)])
            #expect(books.map { $0.object(forKey: "author")?.objectID } == [author.objectID, author.objectID])
            let stored = try context.existingObject(with: author.objectID)
            #expect(stored.attribute("country") == .string("US"))
            #expect(Set(stored.objects(forKey: "books").map(\.objectID)) == [first.objectID, second.objectID])
        }

        // Updated: changed values replace the stored ones; a value set to nil is stored as nil.
        first["pages"] = 400
        author["country"] = nil
        second["inPrint"] = false
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.existingObject(with: first.objectID).attribute("pages") == .integer(400))
            #expect(try context.existingObject(with: author.objectID).attribute("country") == nil)
            #expect(try context.existingObject(with: second.objectID).attribute("inPrint") == .bool(false))
            #expect(try context.existingObject(with: second.objectID).attribute("title") == .string("Lathe of Heaven"))
        }

        // Deleted: the object is gone and the inverse no longer lists it.
        context.delete(second)
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").map(\.objectID) == [first.objectID])
            expectError(.objectNotFound) { _ = try context.existingObject(with: second.objectID) }
            let stored = try context.existingObject(with: author.objectID)
            #expect(stored.objects(forKey: "books").map(\.objectID) == [first.objectID])
        }
        #expect(try fixture.snapshot().objects.count == 2)
    }

    package func primaryKeysAreNotReusedAndRequestedKeysAreKept(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let context = fixture.context()
        let a = try context.make("Tag", ["name": "a"])
        let b = try context.make("Tag", ["name": "b"])
        try context.save()
        let keys: [Int64] = [a.objectID.primaryKey!, b.objectID.primaryKey!]
        context.delete(b)
        try context.save()
        let c = try context.make("Tag", ["name": "c"])
        let imported = try context.insertObject(entityName: "Tag", primaryKey: 1000)
        imported["name"] = "imported"
        try context.save()
        #expect(!keys.contains(c.objectID.primaryKey!))
        #expect(imported.objectID.primaryKey == 1000)
        try fixture.verifyStored { context throws in
            #expect(try context.all("Tag").map(\.objectID) == [a.objectID, c.objectID, imported.objectID])
        }
        // A new object after re-opening gets a key never used before either.
        let again = fixture.kind.persists ? try fixture.reopen() : fixture.coordinator
        let later = ManagedObjectContext(coordinator: again)
        let d = try later.make("Tag", ["name": "d"])
        try later.save()
        let used: [Int64?] = [a, b, c, imported].map { $0.objectID.primaryKey }
        #expect(!used.contains(d.objectID.primaryKey))
    }

    package func emptyStoreAndFailedLookups(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let context = fixture.context()
        #expect(try context.fetch(FetchRequest(entityName: "Book")).isEmpty)
        #expect(try context.count(for: FetchRequest(entityName: "Book")) == 0)
        let missing = try fixture.coordinator.objectID(entityName: "Book", primaryKey: 42)
        expectError(.objectNotFound) { _ = try context.existingObject(with: missing) }
        expectError(.unknownEntity) { _ = try context.fetch(FetchRequest(entityName: "Bok")) }
        try fixture.verifyStored { context throws in
            #expect(try context.count(for: FetchRequest(entityName: "Author")) == 0)
        }
    }
}
