import Foundation
import Strata
import Testing

/// `includesPendingChanges`: with it, a fetch sees the context's inserted, updated and deleted
/// objects as they are now; without it, only what the store holds.
package struct PendingChangesChecks {
    package init() {}

    package func fetchesWithAndWithoutPendingChanges(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let ids = try FetchChecks.populate(fixture)
        let context = fixture.context()
        let inserted = try context.make("Book", ["title": "New", "pages": 50])
        let germinal = try context.existingObject(with: ids["Germinal"]!)
        germinal["pages"] = 50
        let saint = try context.existingObject(with: ids["Saint-Étienne"]!)
        saint["pages"] = 500
        context.delete(try context.existingObject(with: ids["file2"]!))
        let before = try fixture.snapshot()

        func titles(_ pending: Bool, _ predicate: FetchPredicate?, sort: [FetchSortDescriptor] = [FetchSortDescriptor("title")], limit: Int = 0, offset: Int = 0) throws -> [String] {
            var request = FetchRequest(entityName: "Book", predicate: predicate, sortDescriptors: sort, fetchLimit: limit, fetchOffset: offset)
            request.includesPendingChanges = pending
            let objects = try context.fetch(request)
            #expect(try context.count(for: request) == objects.count)
            #expect(try context.fetchObjectIDs(request) == objects.map(\.objectID))
            return objects.map { $0["title"] as! String }
        }
        let short = where_("pages", .lessThan, 100)
        #expect(try titles(true, short) == ["Germinal", "New"])
        #expect(try titles(false, short) == ["Saint-Étienne", "file2"])
        #expect(try titles(true, nil) == ["Germinal", "Lathe of Heaven", "New", "Saint-Étienne", "The Dispossessed", "file10", "saint-etienne"])
        #expect(try titles(false, nil) == FetchChecks.all)
        let byPages = [FetchSortDescriptor("pages", ascending: false), FetchSortDescriptor("title")]
        #expect(try titles(true, nil, sort: byPages, limit: 3, offset: 1) == ["The Dispossessed", "Lathe of Heaven", "saint-etienne"])
        #expect(try titles(false, nil, sort: byPages, limit: 3, offset: 1) == ["The Dispossessed", "Lathe of Heaven", "saint-etienne"])
        #expect(try titles(true, nil, sort: byPages, limit: 2) == ["Saint-Étienne", "The Dispossessed"])
        #expect(try titles(false, nil, sort: byPages, limit: 2) == ["Germinal", "The Dispossessed"])
        // The inserted object is found by its temporary ID; the store saw nothing.
        var newOnes = FetchRequest(entityName: "Book", predicate: where_("title", .equal, "New"))
        #expect(try context.fetchObjectIDs(newOnes) == [inserted.objectID])
        newOnes.includesPendingChanges = false
        #expect(try context.fetchObjectIDs(newOnes) == [])
        #expect(try fixture.snapshot() == before)

        // A relationship change counts too: a pending tag makes the book match ANY tags.name.
        let tag = try context.existingObject(with: try context.fetchObjectIDs(FetchRequest(entityName: "Tag", predicate: where_("name", .equal, "unused")))[0])
        inserted.addObject(tag, forKey: "tags")
        #expect(try titles(true, where_("tags.name", .equal, "unused", .any)) == ["New"])
        #expect(try titles(false, where_("tags.name", .equal, "unused", .any)) == [])

        try context.save()
        try fixture.verifyStored { context throws in
            let request = FetchRequest(entityName: "Book", predicate: short, sortDescriptors: [FetchSortDescriptor("title")])
            #expect(try context.fetch(request).map { $0["title"] as? String } == ["Germinal", "New"])
        }
    }
}
