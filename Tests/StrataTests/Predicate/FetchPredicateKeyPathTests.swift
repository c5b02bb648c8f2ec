import Foundation
@testable import Strata
import Testing

/// Predicates from the key paths of typed subclasses are the trees their format strings parse to.
@Suite struct FetchPredicateKeyPathTests {
    @Test func comparisonsOfTypedAttributes() throws {
        #expect((\Book.pages > 100) == (try FetchPredicate(format: "pages > 100")))
        #expect((\Book.title == "Dune") == (try FetchPredicate(format: "title == 'Dune'")))
        #expect((\Book.rating != nil) == (try FetchPredicate(format: "rating != nil")))
        #expect((\Person.age <= 30) == (try FetchPredicate(format: "age <= 30")))
        #expect((\Book.price >= Decimal(string: "9.99")!) == (try FetchPredicate(format: "price >= %@", Decimal(string: "9.99")!)))
        #expect((\Person.nickname < "m") == (try FetchPredicate(format: "nickname < 'm'")))
        let combined: FetchPredicate = \Book.pages > 100 && !(\Book.title == "Dune") || \Book.rating >= 4.5
        #expect(combined == (try FetchPredicate(format: "pages > 100 AND NOT title == 'Dune' OR rating >= 4.5")))
    }

    @Test func expressionsAndSortDescriptors() throws {
        #expect((FetchExpression.key(\Book.pages) * 2 > .key(\Book.rating)) == (try FetchPredicate(format: "pages * 2 > rating")))
        #expect((FetchExpression.key(\Book.title).beginsWith("D", options: .caseInsensitive)) == (try FetchPredicate(format: "title BEGINSWITH[c] 'D'")))
        #expect(FetchSortDescriptor(\Book.pages, ascending: false) == FetchSortDescriptor("pages", ascending: false))
        #expect(FetchSortDescriptor(\Person.lastName, comparison: .caseInsensitive) == FetchSortDescriptor("lastName", comparison: .caseInsensitive))
        // A property that hands on an attribute's value unchanged reads that attribute.
        #expect(FetchExpression.key(\Person.firstName) == .key("firstName"))
    }

    @Test func fetchesWithThem() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        for (title, pages) in [("A", 50), ("B", 150), ("C", 250)] {
            context.book(title).pages = Int32(pages)
        }
        try context.save()
        var request = FetchRequest(entityName: "Book")
        request.predicate = \Book.pages > 100 && \Book.title != "C"
        request.sortDescriptors = [FetchSortDescriptor(\Book.title)]
        #expect(try context.fetch(request).map { ($0 as? Book)?.title } == ["B"])
    }
}
