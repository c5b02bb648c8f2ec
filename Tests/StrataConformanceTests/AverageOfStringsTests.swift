import Foundation
import Strata
import Testing

/// `@avg`/`average:` of strings is 0 (the values that are not numbers are left out of
/// the total but counted), so `tags.@avg.name == 0` holds for every book with tags; the
/// dictionary path refuses the same aggregate ("@avg takes numbers").
@Suite struct AverageOfStringsTests {
    @Test(arguments: StoreKind.all)
    func averagingStringsIsAnError(_ kind: StoreKind) throws {
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
