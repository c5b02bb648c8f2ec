import Foundation
@testable import Strata
import Testing

/// A context with a few unsaved objects, and the evaluator contexts use.
private final class Graph {
    let context = ManagedObjectContext(coordinator: TestModel.coordinator())
    lazy var evaluator = context.objectEvaluator()

    /// Whether the predicate holds; an error is a test failure.
    func holds(_ predicate: FetchPredicate, _ object: ManagedObject) -> Bool {
        do {
            return try evaluator.evaluate(predicate, on: object)
        } catch {
            Issue.record("evaluating \(predicate): \(error)")
            return false
        }
    }

    func book(_ title: String, pages: Int32?, rating: Double? = nil, price: String? = nil, tags: [String] = []) -> Book {
        let book = context.book(title)
        book["pages"] = pages.map { Int64($0) }
        book.rating = rating
        book.price = price.map { Decimal(string: $0)! }
        for name in tags {
            let tag = context.insert(Tag.self)
            tag.name = name
            book.addObject(tag, forKey: "tags")
        }
        return book
    }
}

/// One comparison of constants; an error is a test failure.
private func compare(_ l: PredicateValue, _ op: ComparisonOperator, _ r: PredicateValue, _ options: ComparisonOptions = []) -> Bool {
    do {
        return try PredicateEvaluator<ManagedObject>.compare(l, op, r, options)
    } catch {
        Issue.record("comparing \(l) \(op.rawValue) \(r): \(error)")
        return false
    }
}

@Suite struct PredicateEvaluatorTests {
    @Test func nilRules() {
        let graph = Graph()
        let book = graph.book("T", pages: nil)
        #expect(!graph.holds(where_("pages", .lessThan, 100), book))
        #expect(graph.holds(.not(where_("pages", .lessThan, 100)), book))
        #expect(!graph.holds(where_("pages", .greaterThanOrEqual, 100), book))
        #expect(graph.holds(where_("pages", .equal, .null), book))
        #expect(!graph.holds(where_("pages", .notEqual, .null), book))
        #expect(graph.holds(where_("pages", .notEqual, 5), book))
        #expect(!graph.holds(where_("pages", .equal, 5), book))
        #expect(!graph.holds(where_("pages", .between, [0, 1000]), book))
        #expect(!graph.holds(where_("pages", .lessThanOrEqual, .null), book))
        // Strings: nil matches no string operator; negated, it does.
        #expect(!graph.holds(where_("rating", .greaterThan, .double(-.infinity)), book))
        let person = graph.context.person("Ann")
        #expect(person.nickname == "new")
        person.nickname = nil
        for op in [ComparisonOperator.beginsWith, .endsWith, .contains, .like, .matches] {
            #expect(!graph.holds(where_("nickname", op, ""), person), "\(op)")
            #expect(graph.holds(.not(where_("nickname", op, "")), person), "NOT \(op)")
        }
        // Through a nil to-one: the key path is nil.
        #expect(graph.holds(where_("author.firstName", .equal, .null), book))
        #expect(!graph.holds(where_("author.firstName", .equal, "Ann"), book))
        #expect(graph.holds(where_("author.firstName", .notEqual, "Ann"), book))
        #expect(graph.holds(where_("author", .equal, .null), book))
        // Constants.
        #expect(compare(.null, .equal, .null))
        #expect(!compare(.null, .lessThan, .integer(1)))
        #expect(!compare(.integer(1), .greaterThan, .null))
        #expect(compare(.string("a"), .notEqual, .null))
    }

    @Test func anyAllNoneIncludingEmptyCollections() {
        let graph = Graph()
        let empty = graph.context.person("Empty")
        let reader = graph.context.person("Reader")
        for (title, pages) in [("Dune Messiah", 10), ("Emma", 200)] {
            graph.book(title, pages: Int32(pages)).author = reader
        }
        let cases: [(String, FetchPredicate, Bool, Bool)] = [
            ("ANY", where_("books.pages", .greaterThan, 100, .any), false, true),
            ("ALL", where_("books.pages", .greaterThan, 100, .all), true, false),
            ("NONE", where_("books.pages", .greaterThan, 100, .none), true, false),
            ("ALL >5", where_("books.pages", .greaterThan, 5, .all), true, true),
            ("NONE >500", where_("books.pages", .greaterThan, 500, .none), true, true),
            ("implicit ANY", where_("books.pages", .greaterThan, 100), false, true),
            ("NOT ANY", .not(where_("books.pages", .greaterThan, 100, .any)), true, false),
            ("@count", where_("books.@count", .equal, 0), true, false),
            // CONTAINS on a collection is membership; with ANY it is a substring test.
            ("collection CONTAINS", where_("books.title", .contains, "Dune"), false, false),
            ("collection CONTAINS member", where_("books.title", .contains, "Emma"), false, true),
            ("ANY CONTAINS", where_("books.title", .contains, "Dune", .any), false, true),
            ("ALL BEGINSWITH", where_("books.title", .beginsWith, "E", .all), true, false),
        ]
        for (name, predicate, onEmpty, onReader) in cases {
            #expect(graph.holds(predicate, empty) == onEmpty, "\(name) on empty")
            #expect(graph.holds(predicate, reader) == onReader, "\(name) on reader")
        }
        let inKeyPath = FetchPredicate.comparison(Comparison(.constant("Emma"), .in, .key("books.title")))
        #expect(graph.holds(inKeyPath, reader))
        #expect(!graph.holds(inKeyPath, empty))
        let book = reader.books.first { $0.title == "Emma" }!
        #expect(graph.holds(where_("books", .contains, .object(book.objectID)), reader))
        #expect(!graph.holds(where_("books", .contains, .object(book.objectID)), empty))
        #expect(graph.holds(.comparison(Comparison(.evaluatedObject, .equal, .constant(.object(reader.objectID)))), reader))
        #expect(graph.holds(.and([]), empty) && !graph.holds(.or([]), empty))
    }

    @Test func numbersCompareByValueAcrossTypes() {
        #expect(compare(.integer(3), .equal, .double(3.0)))
        #expect(compare(.integer(1), .lessThan, .double(1.5)))
        #expect(compare(.double(-0.0), .equal, .integer(0)))
        #expect(compare(.decimal(Decimal(string: "0.1")!), .equal, .double(0.1)))
        #expect(compare(.decimal(Decimal(string: "2.5")!), .greaterThan, .integer(2)))
        #expect(compare(.decimal(Decimal(string: "9007199254740993")!), .equal, .integer(9_007_199_254_740_993)))
        #expect(!compare(.decimal(Decimal(string: "9007199254740993")!), .equal, .integer(9_007_199_254_740_992)))
        // No rounding through Double: 2^53 + 1 is not 2^53, Int64.max is below 2^63.
        #expect(!compare(.integer(9_007_199_254_740_993), .equal, .double(9_007_199_254_740_992)))
        #expect(compare(.integer(9_007_199_254_740_993), .greaterThan, .double(9_007_199_254_740_992)))
        #expect(compare(.integer(.max), .lessThan, .double(9.223372036854775807e18)))
        #expect(compare(.integer(.min), .equal, .double(-9.223372036854775808e18)))
        #expect(compare(.double(.infinity), .greaterThan, .integer(.max)))
        #expect(compare(.bool(true), .equal, .integer(1)))
        #expect(compare(.bool(false), .lessThan, .double(0.5)))
        // NaN equals NaN (so a stored NaN can be found) and is not ordered against numbers.
        #expect(compare(.double(.nan), .equal, .double(.nan)))
        #expect(!compare(.double(.nan), .lessThan, .integer(1)))
        #expect(!compare(.double(.nan), .greaterThan, .integer(1)))
        #expect(!compare(.double(.nan), .equal, .integer(1)))
        #expect(compare(.double(.nan), .notEqual, .integer(1)))
        // Different kinds do not compare.
        #expect(!compare(.string("1"), .equal, .integer(1)))
        #expect(compare(.string("1"), .notEqual, .integer(1)))

        let graph = Graph()
        let book = graph.book("b", pages: 100, rating: 4.0, price: "9.99")
        #expect(graph.holds(where_("rating", .equal, 4), book))
        #expect(graph.holds(where_("pages", .equal, 100.0), book))
        #expect(graph.holds(where_("price", .greaterThan, 9.98), book))
        #expect(graph.holds(where_("price", .lessThan, 10), book))
        #expect(graph.holds(where_("price", .equal, .decimal(Decimal(string: "9.990")!)), book))
        #expect(graph.holds(where_("pages", .between, [100, 100.5]), book))
        #expect(graph.holds(where_("pages", .in, [1, 100.0, "x"]), book))
    }

    @Test func canonicalEquivalenceAndOptions() {
        let graph = Graph()
        let precomposed = graph.book("\u{C9}cole", pages: 1)
        let decomposed = graph.book("E\u{301}cole", pages: 1)
        for book in [precomposed, decomposed] {
            #expect(graph.holds(where_("title", .equal, "\u{C9}cole"), book))
            #expect(graph.holds(where_("title", .equal, "E\u{301}cole"), book))
            #expect(graph.holds(where_("title", .beginsWith, "\u{C9}"), book))
            #expect(!graph.holds(where_("title", .beginsWith, "E"), book))
            #expect(graph.holds(where_("title", .beginsWith, "E", .direct, .diacriticInsensitive), book))
            #expect(graph.holds(where_("title", .like, "?cole"), book))
        }
        let cases: [(String, String, ComparisonOptions, Bool)] = [
            ("Saint-Étienne", "saint-etienne", [.caseInsensitive, .diacriticInsensitive], true),
            ("Saint-Étienne", "saint-etienne", .caseInsensitive, false),
            ("Saint-Étienne", "saint-etienne", .diacriticInsensitive, false),
            ("Saint-Étienne", "saint-étienne", .caseInsensitive, true),
            ("Saint-Étienne", "Saint-Etienne", .diacriticInsensitive, true),
            ("Saint-Étienne", "Saint-Etienne", [], false),
            ("Århus", "arhus", [.caseInsensitive, .diacriticInsensitive], true),
            ("Århus", "Arhus", .diacriticInsensitive, true),
            ("Århus", "århus", .caseInsensitive, true),
            ("Århus", "arhus", .caseInsensitive, false),
            ("Århus", "A\u{30A}rhus", [], true),
            ("Århus", "arhus", .normalized, false),
        ]
        for (left, right, options, expected) in cases {
            #expect(compare(.string(left), .equal, .string(right), options) == expected, "\(left) == \(right) \(options)")
        }
    }

    @Test func stringOperatorsWithOptions() {
        let graph = Graph()
        let book = graph.book("Saint-Étienne", pages: 1)
        let cases: [(ComparisonOperator, String, ComparisonOptions, Bool)] = [
            (.like, "Sa?nt-*", [], true),
            (.like, "saint*", [], false),
            (.like, "SAINT*", .caseInsensitive, true),
            (.like, "*ETIENNE", [.caseInsensitive, .diacriticInsensitive], true),
            (.like, "*ETIENNE", .caseInsensitive, false),
            (.matches, "S.*e", [], true),
            (.matches, "Saint", [], false),
            (.matches, "saint-.*", .caseInsensitive, true),
            (.matches, "Saint-Etienne", .diacriticInsensitive, true),
            (.matches, "Saint-Etienne", [], false),
            (.beginsWith, "SAINT-E", [.caseInsensitive, .diacriticInsensitive], true),
            (.beginsWith, "SAINT-E", .caseInsensitive, false),
            (.beginsWith, "", [], true),
            (.endsWith, "Etienne", .diacriticInsensitive, true),
            (.endsWith, "Etienne", [], false),
            (.endsWith, "ÉTIENNE", .caseInsensitive, true),
            (.contains, "ÉTI", .caseInsensitive, true),
            (.contains, "eti", [], false),
            (.contains, "eti", [.caseInsensitive, .diacriticInsensitive], true),
            (.in, "Saint-Étienne and more", [], true),
            (.in, "Saint", [], false),
        ]
        for (op, operand, options, expected) in cases {
            #expect(graph.holds(where_("title", op, .string(operand), .direct, options), book) == expected, "\(op) \(operand) \(options)")
        }
        // `IN` with a string on the right is a substring test of the left in the right.
        let inString = FetchPredicate.comparison(Comparison(.constant("Étienne"), .in, .key("title")))
        #expect(graph.holds(inString, book))
    }

    @Test func aggregates() {
        let graph = Graph()
        let reader = graph.context.person("Reader")
        let empty = graph.context.person("Empty")
        for (title, pages, rating, price) in [("B", Int32?(10), Double?(4.5), "0.1"), ("A", 200, nil, "0.2"), ("C", nil, 3.5, nil)] {
            graph.book(title, pages: pages, rating: rating, price: price).author = reader
        }
        let cases: [(String, FetchPredicate, Bool, Bool)] = [
            ("@count", where_("books.@count", .equal, 3), true, false),
            ("@sum skips nil", where_("books.@sum.pages", .equal, 210), true, false),
            ("@sum empty is 0", where_("books.@sum.pages", .equal, 0), false, true),
            ("@sum of decimals is exact", where_("books.@sum.price", .equal, .decimal(Decimal(string: "0.3")!)), true, false),
            ("@avg skips nil", where_("books.@avg.pages", .equal, 105), true, false),
            ("@avg of doubles", where_("books.@avg.rating", .equal, 4), true, false),
            ("@avg empty is nil", where_("books.@avg.pages", .equal, .null), false, true),
            ("@avg empty is not 0", where_("books.@avg.pages", .equal, 0), false, false),
            ("@min", where_("books.@min.pages", .equal, 10), true, false),
            ("@max", where_("books.@max.pages", .equal, 200), true, false),
            ("@min of strings", where_("books.@min.title", .equal, "A"), true, false),
            ("@max empty is nil", where_("books.@max.title", .equal, .null), false, true),
        ]
        for (name, predicate, onReader, onEmpty) in cases {
            #expect(graph.holds(predicate, reader) == onReader, "\(name) on reader")
            #expect(graph.holds(predicate, empty) == onEmpty, "\(name) on empty")
        }
    }

    @Test func subqueries() {
        let graph = Graph()
        let reader = graph.context.person("Reader")
        graph.book("short", pages: 10, tags: ["sf"]).author = reader
        graph.book("long", pages: 900, tags: ["sf", "classic"]).author = reader
        graph.book("mid", pages: 300, tags: ["classic"]).author = reader
        let friend = graph.context.person("Friend")
        reader.addObject(friend, forKey: "friends")
        graph.book("other", pages: 50).author = friend
        let lonely = graph.context.person("Lonely")
        lonely.addObject(reader, forKey: "friends")

        func count(_ collection: String, _ inner: FetchPredicate) -> FetchExpression {
            .subquery(collection: .key(collection), variable: "x", predicate: inner, keyPath: ["@count"])
        }
        func xKey(_ path: String) -> FetchExpression { .variable("x", path.split(separator: ".").map(String.init)) }
        let long = FetchPredicate.comparison(Comparison(count("books", .comparison(Comparison(xKey("pages"), .greaterThan, .constant(100)))), .equal, .constant(2)))
        #expect(graph.holds(long, reader))
        let sfAndLong = FetchPredicate.comparison(Comparison(count("books", .and([
            .comparison(Comparison(xKey("pages"), .greaterThan, .constant(100))),
            .comparison(Comparison(xKey("tags.name"), .equal, .constant("sf"), modifier: .any)),
        ])), .equal, .constant(1)))
        #expect(graph.holds(sfAndLong, reader))
        let readingFriends = FetchPredicate.comparison(Comparison(count("friends", .comparison(Comparison(xKey("books.@count"), .greaterThan, .constant(0)))), .equal, .constant(1)))
        let hermit = graph.context.person("Hermit")
        hermit.addObject(lonely, forKey: "friends")
        #expect(graph.holds(readingFriends, reader))   // Friend reads, Lonely does not
        #expect(graph.holds(readingFriends, friend))   // Reader reads
        #expect(!graph.holds(readingFriends, hermit))  // Lonely does not
        // The inner predicate's plain key paths are on the member.
        let innerKey = FetchPredicate.comparison(Comparison(count("books", where_("pages", .lessThan, 100)), .equal, .constant(1)))
        #expect(graph.holds(innerKey, reader))
        #expect(graph.holds(innerKey, friend))
    }
}

/// Arithmetic, functions, subscripts and distinct values on objects.
extension PredicateEvaluatorTests {
    private func parsed(_ format: String) -> FetchPredicate {
        do {
            return try FetchPredicate(format: format)
        } catch {
            Issue.record("\(format): \(error)")
            return .false
        }
    }

    @Test func arithmeticAndFunctionsOnObjects() {
        let graph = Graph()
        let dune = graph.book("Dune", pages: 412, rating: 4.5, price: "9.99", tags: ["SF", "Classic"])
        let blank = graph.book("Blank", pages: nil)
        let cases: [(String, Bool, Bool)] = [
            ("pages * 2 > 800", true, false),
            ("pages / 4 == 103", true, false),
            ("pages / 8 == 51.5", true, false),
            ("price * 3 == CAST('29.97', 'NSDecimalNumber')", true, false),
            ("price + rating == 14.49", true, false),
            ("-pages < 0", true, false),
            ("pages - 412 == 0 AND modulus:by:(pages, 2) == 1", false, false),
            ("modulus:by:(pages, 10) == 2", true, false),
            ("pages / 0 == nil", true, true),
            ("pages + 1 == nil", false, true),
            ("NOT pages + 1 > 0", false, true),
            ("lowercase:(title) == 'dune'", true, false),
            ("uppercase:(title) BEGINSWITH 'BL'", false, true),
            ("length:(title) == 4", true, false),
            ("abs:(rating - 5) == 0.5", true, false),
            ("floor:(rating) == 4 AND ceiling:(rating) == 5 AND trunc:(-rating) == -4", true, false),
            ("ANY lowercase:(tags.name) == 'sf'", true, false),
            ("lowercase:(tags.name) == 'classic'", true, false),
            ("ALL length:(tags.name) >= 2", true, true),
            ("count:(tags) == 2", true, false),
            ("count:(tags) == 0", false, true),
            ("sum:({pages, 8}) == 420", true, false),
            ("average:({1, 2, pages}) == 1.5", false, true),
            ("max:(tags.name) == 'SF'", true, false),
            ("median:({3, pages, 1}) == 3", true, false),
            ("now() > CAST(0, 'NSDate')", true, true),
            ("noindex:(title) == 'Dune'", true, false),
        ]
        for (format, onDune, onBlank) in cases {
            #expect(graph.holds(parsed(format), dune) == onDune, "\(format) on Dune")
            #expect(graph.holds(parsed(format), blank) == onBlank, "\(format) on Blank")
        }
        // Through a nil relationship: an aggregate key path is nil, an aggregate function of the
        // (empty) collection is 0.
        #expect(graph.holds(parsed("author.books.@count == nil"), dune))
        #expect(graph.holds(parsed("count:(author.books) == 0"), dune))
        #expect(graph.holds(parsed("sum:(author.books.pages) == 0"), dune))
    }

    @Test func subscriptsFollowTheStoredOrder() {
        let graph = Graph()
        let book = graph.book("T", pages: 1, tags: ["c", "a", "b"])
        let untagged = graph.book("U", pages: 1)
        let cases: [(String, Bool, Bool)] = [
            ("tags[FIRST].name == 'c'", true, false),
            ("tags[LAST].name == 'b'", true, false),
            ("tags[SIZE] == 3", true, false),
            ("tags[SIZE] == 0", false, true),
            ("tags[1].name == 'a'", true, false),
            ("tags[1.0].name == 'a'", true, false),
            ("tags[3].name == nil", true, true),
            ("tags[-1].name == nil", true, true),
            ("tags[0.5].name == nil", true, true),
            ("tags[FIRST].name == nil", false, true),
            ("{10, 20, 30}[LAST] == 30", true, true),
            ("{10, 20, 30}[pages] == 20", true, true),
            ("title[FIRST] == 'T'", true, false),
        ]
        for (format, onBook, onUntagged) in cases {
            #expect(graph.holds(parsed(format), book) == onBook, "\(format) on tagged")
            #expect(graph.holds(parsed(format), untagged) == onUntagged, "\(format) on untagged")
        }
    }

    @Test func distinctUnionOfObjects() {
        let graph = Graph()
        let reader = graph.context.person("Reader")
        for (title, tags) in [("A", ["x", "y"]), ("B", ["x"]), ("C", [])] {
            graph.book(title, pages: 100, tags: tags).author = reader
        }
        graph.book("D", pages: 100).author = reader
        let cases: [(String, Bool)] = [
            ("count:(books.tags.name) == 3", true),
            ("count:(books.@distinctUnionOfObjects.pages) == 1", true),
            // Like every collection operator, it applies to the members of the last to-many
            // before it: here each book's tags, whose distinct names are then joined.
            ("count:(books.tags.@distinctUnionOfObjects.name) == 3", true),
            ("ANY books.@distinctUnionOfObjects.title == 'C'", true),
            ("'D' IN books.@distinctUnionOfObjects.title", true),
            ("sum:(books.@distinctUnionOfObjects.pages) == 100", true),
        ]
        for (format, expected) in cases {
            #expect(graph.holds(parsed(format), reader) == expected, "\(format)")
        }
    }

    @Test func anUnboundVariableIsAnError() {
        let graph = Graph()
        let book = graph.book("T", pages: 1)
        #expect(throws: StrataError.self) {
            try graph.evaluator.evaluate(parsed("pages > $minimum"), on: book)
        }
        do {
            _ = try graph.evaluator.evaluate(parsed("pages > $minimum"), on: book)
        } catch {
            #expect(error.message.contains("$minimum"))
            #expect(error.message.contains("withSubstitutionVariables"))
        }
        // A SUBQUERY's own variable is bound.
        #expect(graph.holds(parsed("SUBQUERY(tags, $t, $t.name == 'x').@count == 0"), book))
    }
}
