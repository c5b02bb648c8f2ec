import Foundation
import Strata
import Testing

/// An aggregate function of a nil collection is that of an empty one (`count:(author.books)` is
/// 0 without an author): a dictionary column gives what the predicate compares, on every store.
package struct CountOfNilCollectionChecks {
    package init() {}

    package func aColumnAgreesWithThePredicate(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let context = fixture.context()
        _ = try context.make("Book", ["title": "Anonymous"])
        try context.save()
        // The predicate: 0.
        let matched = try context.fetch(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "count:(author.books) == 0")))
        #expect(matched.count == 1)
        // The column.
        guard case .comparison(let comparison) = try FetchPredicate(format: "count:(author.books) == nil") else {
            Issue.record("not a comparison")
            return
        }
        var request = FetchRequest(entityName: "Book", resultType: .dictionaries)
        request.expressionsToFetch = [ExpressionDescription(name: "n", expression: comparison.left)]
        let rows = try context.fetchDictionaries(request)
        #expect(rows.first?["n"] == .attribute(.integer(0)))
    }
}
