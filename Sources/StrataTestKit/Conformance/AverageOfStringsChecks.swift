import Foundation
import Strata
import Testing

/// `@avg` (and `@sum`) of an attribute that is not a number is an invalid predicate, as the
/// dictionary path's "@avg takes numbers" — not an average of 0 that `tags.@avg.name == 0`
/// would match.
package struct AverageOfStringsChecks {
    package init() {}

    package func averagingStringsIsAnError(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let context = fixture.context()
        let book = try context.make("Book", ["title": "Emma"])
        let tag = try context.make("Tag", ["name": "novel"])
        book.setObjects([tag], forKey: "tags")
        try context.save()
        let outcome: String
        do {
            let found = try context.fetch(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "tags.@avg.name == 0")))
            outcome = "matched \(found.count)"
        } catch {
            outcome = "\((error as? StrataError)?.code.rawValue ?? "\(error)")"
        }
        #expect(outcome == "invalidPredicate")
    }
}
