import Foundation
import Strata
import Testing

/// Relationship upkeep is linear: filling or emptying a to-many of n members one change at a
/// time, from either side, touches O(n) elements in all — never a copy or a comparison of the
/// whole set per change (which made a 3,000-book genre cost 3,000² element copies).
@Suite struct RelationshipUpkeepTests {
    static let members = 100_000

    private func coordinator() throws -> PersistentStoreCoordinator {
        let schema = try Schema(data: Data("""
            { "name": "Upkeep", "entities": [
              { "name": "Shelf", "attributes": [ { "name": "name", "type": "string", "optional": true } ],
                "relationships": [
                  { "name": "books", "destination": "Book", "inverse": "shelf", "toMany": true },
                  { "name": "queue", "destination": "Book", "inverse": "queuedOn", "toMany": true, "ordered": true } ] },
              { "name": "Book", "attributes": [ { "name": "number", "type": "int64" } ],
                "relationships": [
                  { "name": "shelf", "destination": "Shelf", "inverse": "books", "optional": true },
                  { "name": "queuedOn", "destination": "Shelf", "inverse": "queue", "optional": true } ] } ] }
            """.utf8))
        let coordinator = PersistentStoreCoordinator(schema: schema)
        try coordinator.addStore(.inMemory())
        return coordinator
    }

    private func books(_ count: Int, from start: Int = 0, in context: ManagedObjectContext) throws -> [ManagedObject] {
        try (start..<(start + count)).map { number in
            let book = try context.insertObject(entityName: "Book")
            book["number"] = Int64(number)
            return book
        }
    }

    @Test func fillingAToManyFromTheToOneSideIsLinear() throws {
        let context = ManagedObjectContext(coordinator: try coordinator())
        let shelf = try context.insertObject(entityName: "Shelf")
        for book in try books(Self.members, in: context) { book.setObject(shelf, forKey: "shelf") }
        #expect(shelf.objects(forKey: "books").count == Self.members)
        let work = shelf.relationshipWork(forKey: "books")
        // One insert (and its duplicate check) per member, plus one read of all of them above.
        #expect(work <= 4 * Self.members, "filling \(Self.members) members touched \(work) elements")
    }

    @Test func fillingAndEmptyingASavedToManyIsLinear() throws {
        let context = ManagedObjectContext(coordinator: try coordinator())
        let shelf = try context.insertObject(entityName: "Shelf")
        let first = try books(Self.members / 2, in: context)
        for book in first { shelf.addObject(book, forKey: "books") }
        try context.save()
        #expect(!shelf.isUpdated)

        // A saved shelf tracks what changed against its saved members: each change must still
        // cost O(1), not a comparison with the saved set.
        let before = shelf.relationshipWork(forKey: "books")
        let second = try books(Self.members / 2, from: Self.members / 2, in: context)
        for book in second { shelf.addObject(book, forKey: "books") }
        #expect(shelf.isUpdated)
        for book in first { book.setObject(nil, forKey: "shelf") }
        #expect(shelf.isUpdated)
        for book in second { shelf.removeObject(book, forKey: "books") }
        // Back to no members at all, which differs from the saved half.
        #expect(shelf.isUpdated)
        for book in first { shelf.addObject(book, forKey: "books") }
        // The saved members again (in another order, which an unordered relationship ignores).
        #expect(!shelf.isUpdated)
        #expect(Set(shelf.objects(forKey: "books").map { $0["number"] as? Int64 }) == Set((0..<Int64(Self.members / 2)).map { Optional($0) }))
        let work = shelf.relationshipWork(forKey: "books") - before
        #expect(work <= 8 * Self.members, "\(2 * Self.members) changes to a saved to-many touched \(work) elements")
    }

    @Test func appendingToAnOrderedToManyIsLinear() throws {
        let context = ManagedObjectContext(coordinator: try coordinator())
        let shelf = try context.insertObject(entityName: "Shelf")
        let queued = try books(Self.members, in: context)
        for (index, book) in queued.enumerated() {
            if index.isMultiple(of: 2) {
                shelf.addObject(book, forKey: "queue")
            } else {
                book.setObject(shelf, forKey: "queuedOn")
            }
        }
        let order = shelf.objects(forKey: "queue").map { $0["number"] as? Int64 }
        #expect(order == (0..<Int64(Self.members)).map { Optional($0) })
        try context.save()
        // Taking members off the end of a saved ordered relationship shifts nothing.
        for book in queued.reversed().prefix(Self.members / 2) { book.setObject(nil, forKey: "queuedOn") }
        #expect(shelf.objects(forKey: "queue").count == Self.members / 2)
        #expect(shelf.isUpdated)
        let work = shelf.relationshipWork(forKey: "queue")
        #expect(work <= 8 * Self.members, "\(Self.members) appends and \(Self.members / 2) removals touched \(work) elements")
    }
}
