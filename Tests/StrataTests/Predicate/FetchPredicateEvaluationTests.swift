import Foundation
@testable import Strata
import Testing

@Suite struct FetchPredicateEvaluationTests {
    @Test func onAnObjectWithItsUnsavedValues() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let author = context.person("Ann")
        let book = context.book("Dune", by: author)
        book.pages = 412
        #expect(try FetchPredicate(format: "pages * 2 > 800 AND author.firstName == 'Ann'").evaluate(with: book))
        #expect(try !FetchPredicate(format: "title == 'Emma'").evaluate(with: book))
        book.title = "Emma"
        #expect(try FetchPredicate(format: "title == 'Emma'").evaluate(with: book))
        #expect(try FetchPredicate(format: "books.@count == 1").evaluate(with: author))
        #expect(try FetchPredicate(format: "pages > $min").withSubstitutionVariables(["min": 400]).evaluate(with: book))
    }

    @Test func onAnObjectBadPredicatesAreErrors() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let book = context.book("Dune")
        let person = context.person("Ann")
        func message(_ format: String, _ object: ManagedObject) -> String? {
            do {
                _ = try FetchPredicate(format: format).evaluate(with: object)
                return nil
            } catch let error as StrataError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("pags > 1", book) == "entity 'Book' has no property 'pags' (in key path 'pags'); did you mean 'pages'?")
        #expect(message("pages > $min", book)?.contains("$min") == true)
        #expect(message("books[FIRST].title == 'x'", person)?.contains("'Person.books' is unordered") == true)
        #expect(message("books[SIZE] == 0", person) == nil)
        #expect(message("tags[FIRST].name == 'x'", book) == nil)
        #expect(message("tags[FIRST].nam == 'x'", book) == "entity 'Tag' has no property 'nam' (in key path 'nam'); did you mean 'name'?")
        #expect(message("books.@distinctUnionOfObjects.title.@count == 1", person)?.contains("write count:(…) around the key path") == true)
        #expect(message("sum:(books.pags) == 1", person) == "entity 'Book' has no property 'pags' (in key path 'books.pags'); did you mean 'pages'?")
        let wrongArity = FetchPredicate.comparison(Comparison(.function(.add, [.key("pages")]), .equal, .constant(1)))
        #expect(throws: StrataError.self) { try wrongArity.evaluate(with: book) }
    }

    @Test func onADictionary() throws {
        let values: [String: any PredicateArgument] = ["age": 20, "name": "Ann", "tags": ["a", "b"], "address.city": "Oslo", "score": Double?.none]
        let cases: [(String, Bool)] = [
            ("age >= 18 AND name BEGINSWITH 'A'", true),
            ("tags.@count == 2 AND ANY tags == 'b' AND 'a' IN tags", true),
            ("address.city == 'Oslo'", true),
            ("missing == nil AND score == nil AND name.length == nil", true),
            ("age * 2 + 1 == 41 AND count:(tags) == 2 AND tags[LAST] == 'b'", true),
            ("SUBQUERY(tags, $t, $t != 'a').@count == 1", true),
            ("age > $limit", false),
        ]
        for (format, expected) in cases.dropLast() {
            #expect(try FetchPredicate(format: format).evaluate(with: values) == expected, "\(format)")
        }
        #expect(try FetchPredicate(format: "age > $limit").withSubstitutionVariables(["limit": 30]).evaluate(with: values) == false)
        #expect(throws: StrataError.self) { try FetchPredicate(format: "age > $limit").evaluate(with: values) }
    }
}
