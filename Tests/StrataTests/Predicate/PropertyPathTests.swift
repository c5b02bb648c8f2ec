import Foundation
@testable import Strata
import Testing

/// Predicates and sort descriptors from the projected key paths of typed subclasses
/// (`\Book.$author.$lastName`): the trees their format strings parse to, and fetches with them.
/// (A `$` key path of a property that is not `@Attribute`, `@Relationship` or `@ToMany` does
/// not compile: `\Person.$fullName` has no projected value.)
@Suite struct PropertyPathTests {
    @Test func attributesAndPathsThroughToOneRelationships() throws {
        #expect((\Book.$pages > 100) == (try FetchPredicate(format: "pages > 100")))
        #expect((\Book.$rating != nil) == (try FetchPredicate(format: "rating != nil")))
        #expect((\Book.$author.$lastName == "Doe") == (try FetchPredicate(format: "author.lastName == 'Doe'")))
        #expect((\Book.$author.$pet.$name >= "M") == (try FetchPredicate(format: "author.pet.name >= 'M'")))
        #expect(FetchExpression.key(\Book.$author.$age) == .keyPath(["author", "age"]))
        #expect(FetchSortDescriptor(\Book.$author.$lastName, ascending: false) == FetchSortDescriptor("author.lastName", ascending: false))
    }

    @Test func toOneComparedWithObjectsOrNil() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let ann = context.person("Ann")
        #expect((\Book.$author == ann) == (try FetchPredicate(format: "author == %@", ann.objectID)))
        #expect((\Book.$author != nil) == (try FetchPredicate(format: "author != nil")))
        #expect((\Book.$author == nil) == (try FetchPredicate(format: "author == nil")))
        #expect((\Pet.$owner != ann) == (try FetchPredicate(format: "owner != %@", ann.objectID)))
    }

    @Test func toManyCountsContainsAndAggregates() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let book = context.book("Dune")
        #expect((\Person.$books.count >= 2) == (try FetchPredicate(format: "books.@count >= 2")))
        #expect(FetchExpression.key(\Person.$books).contains(book) == (try FetchPredicate(format: "books CONTAINS %@", book.objectID)))
        #expect((\Person.$books.$pages.max < 300) == (try FetchPredicate(format: "books.@max.pages < 300")))
        #expect((\Person.$books.$pages.sum > 10) == (try FetchPredicate(format: "books.@sum.pages > 10")))
        #expect((\Person.$books.$rating.average >= 4.0) == (try FetchPredicate(format: "books.@avg.rating >= 4.0")))
        #expect((\Book.$author.$books.count > 1) == (try FetchPredicate(format: "author.books.@count > 1")))
    }

    @Test func fetchesWithThem() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let ann = context.person("Ann", "Lee")
        let bob = context.person("Bob", "Ray")
        for (title, pages, author) in [("A", 50, ann), ("B", 150, ann), ("C", 250, bob), ("D", 350, nil)] as [(String, Int32, Person?)] {
            let book = context.book(title)
            book.pages = pages
            book.author = author
        }
        try context.save()
        func titles(_ predicate: FetchPredicate) throws -> [String?] {
            var request = FetchRequest(entityName: "Book", predicate: predicate)
            request.sortDescriptors = [FetchSortDescriptor(\Book.$title)]
            return try context.fetch(request).map { ($0 as? Book)?.title }
        }
        #expect(try titles(\Book.$author == ann) == ["A", "B"])
        #expect(try titles(\Book.$author == nil) == ["D"])
        #expect(try titles(\Book.$author != ann) == ["C", "D"])
        #expect(try titles(\Book.$author.$lastName == "Ray" || \Book.$pages < 100) == ["A", "C"])
        #expect(try titles(\Book.$author.$books.count >= 2) == ["A", "B"])
        var people = FetchRequest(entityName: "Person", predicate: \Person.$books.$pages.max > 200)
        people.sortDescriptors = [FetchSortDescriptor(\Person.$firstName)]
        #expect(try context.fetch(people).map { ($0 as? Person)?.firstName } == ["Bob"])
        let b = try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: \Book.$title == "B")).first)
        people.predicate = FetchExpression.key(\Person.$books).contains(b)
        #expect(try context.fetch(people).map { ($0 as? Person)?.firstName } == ["Ann"])
    }
}
