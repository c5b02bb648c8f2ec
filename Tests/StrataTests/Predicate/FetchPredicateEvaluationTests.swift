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

    /// The functions and operators of Apple's predicate grammar, each written as the
    /// documentation writes it, hold.
    @Test(arguments: [
        "1 + 2 * 3 == 7", "(1 + 2) * 3 == 9", "10 / 4 == 2.5", "2 ** 3 == 8", "-2 < 0", "- -2 == 2", "7 - 2 - 1 == 4",
        "sum:({1, 2, 3}) == 6", "count:({1, 2, 3}) == 3", "min:({4, 2, 3}) == 2", "max:({1, 5, 3}) == 5",
        "average:({1, 2, 3}) == 2", "median:({5, 1, 3}) == 3", "stddev:({2, 4, 4, 4, 5, 5, 7, 9}) == 2",
        "add:to:(1, 2) == 3", "from:subtract:(5, 2) == 3", "multiply:by:(2, 3) == 6", "divide:by:(6, 4) == 1.5",
        "modulus:by:(7, 3) == 1", "raise:toPower:(2, 10) == 1024", "sqrt:(16) == 4", "abs:(-3) == 3", "floor:(2.5) == 2",
        "ceiling:(2.5) == 3", "trunc:(-2.5) == -2", "exp:(0) == 1", "ln:(1) == 0", "log:(100) == 2",
        "uppercase:('abc') == 'ABC'", "lowercase:('ABC') == 'abc'", "length:('abc') == 3", "now() > CAST(0, 'NSDate')",
        "sum({1, 2}) == 3", "{1, 2, 3}[FIRST] == 1", "{1, 2, 3}[LAST] == 3", "{1, 2, 3}[SIZE] == 3", "{1, 2, 3}[1] == 2",
        "noindex:(1) == 1", "1 / 0 == nil",
    ])
    func appleGrammarExamples(format: String) throws {
        #expect(try FetchPredicate(format: format).evaluate(with: [:]))
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
