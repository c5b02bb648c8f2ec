import Foundation
import Testing
@testable import Strata

@Suite struct PredicateBuilderTests {
    /// Each builder expression, and the format whose parse it must equal.
    static let cases: [(Predicate, String, [PredicateValue])] = [
        (Expression.key("priority") >= 3, "priority >= 3", []),
        (Expression.key("priority") > 3, "priority > 3", []),
        (Expression.key("priority") <= -3, "priority <= -3", []),
        (Expression.key("priority") < 2.5, "priority < 2.5", []),
        (Expression.key("title") == "Buy", "title == 'Buy'", []),
        (Expression.key("title") != "Buy", "title != \"Buy\"", []),
        (Expression.key("done") == true, "done == YES", []),
        (Expression.key("author.name") == "Ann", "author.name == 'Ann'", []),
        (Expression.key("books.@count") > 2, "books.@count > 2", []),
        (Expression.key("books.@sum.price") < 10, "books.@sum.price < 10", []),
        (Expression.key("a") == Expression.key("b"), "a == b", []),
        (Expression.key("a") != Expression.key("b"), "a != b", []),
        (Expression.key("a") < Expression.key("b"), "a < b", []),
        (Expression.key("a") <= Expression.variable("limit", []), "a <= $limit", []),
        (Expression.key("a") > Expression.evaluatedObject, "a > SELF", []),
        (Expression.key("a") >= Expression.value(1), "a >= 1", []),
        (Expression.evaluatedObject == ObjectID(entityName: "Todo", storeIdentifier: "S", primaryKey: 1), "SELF == %@",
         [.object(ObjectID(entityName: "Todo", storeIdentifier: "S", primaryKey: 1))]),
        (Expression.key("createdAt") < Date(timeIntervalSinceReferenceDate: 86400), "createdAt < CAST(86400, 'NSDate')", []),
        (Expression.key("price") == Decimal(string: "9.99")!, "price == CAST('9.99', 'NSDecimalNumber')", []),
        (Expression.key("id") == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
         "id == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", []),
        (Expression.key("blob") == Data([1, 2, 255]), "blob == %@", [.data(Data([1, 2, 255]))]),
        (Expression.key("notes") == String?.none, "notes == NIL", []),
        (Expression.key("notes").isNil, "notes == nil", []),
        (Expression.key("notes").isNotNil, "notes != NIL", []),
        (Expression.key("name").equal("x", options: [.caseInsensitive, .diacriticInsensitive]), "name ==[cd] 'x'", []),
        (Expression.key("name").notEqual("x", options: .caseInsensitive), "name !=[c] 'x'", []),
        (Expression.key("title").beginsWith("Buy"), "title BEGINSWITH 'Buy'", []),
        (Expression.key("title").beginsWith("Buy", options: .caseInsensitive), "title BEGINSWITH[c] 'Buy'", []),
        (Expression.key("title").beginsWith(Expression.key("prefix")), "title BEGINSWITH prefix", []),
        (Expression.key("title").endsWith("milk", options: .diacriticInsensitive), "title ENDSWITH[d] 'milk'", []),
        (Expression.key("title").endsWith(Expression.variable("s", [])), "title ENDSWITH $s", []),
        (Expression.key("title").contains("il", options: .normalized), "title CONTAINS[n] 'il'", []),
        (Expression.key("tags").contains(Expression.variable("tag", [])), "tags CONTAINS $tag", []),
        (Expression.key("title").like("B?y*"), "title LIKE 'B?y*'", []),
        (Expression.key("title").matches("^B.*$", options: [.caseInsensitive]), "title MATCHES[c] '^B.*$'", []),
        (Expression.key("priority").in([1, 2, 3]), "priority IN %@", [[1, 2, 3]]),
        (Expression.key("tag").in(Set(["work", "home"])), "tag IN CAST({'home', 'work'}, 'NSArray')", []),
        (Expression.key("priority").in(.array([.value(1), .key("max")])), "priority IN {1, max}", []),
        (Expression.key("name").in(.key("aliases"), options: .caseInsensitive), "name IN[c] aliases", []),
        (Expression.key("priority").between(1, 5), "priority BETWEEN {1, 5}", []),
        (Expression.key("price").between(1, 2.5), "price BETWEEN {1, 2.5}", []),
        (Expression.key("date").between(.variable("start", []), .key("end")), "date BETWEEN {$start, end}", []),
        (Expression.key("x").compare(.like, .value("a*"), options: .caseInsensitive), "x LIKE[c] 'a*'", []),
        (.any(Expression.key("tags.name") == "home"), "ANY tags.name == 'home'", []),
        (.any(Expression.key("tags.name").in(["home", "work"])), "SOME tags.name IN %@", [["home", "work"]]),
        (.all(Expression.key("items.price") > 0), "ALL items.price > 0", []),
        (.none(Expression.key("tags.name").beginsWith("x", options: .caseInsensitive)), "NONE tags.name BEGINSWITH[c] 'x'", []),
        (Expression.subquery(
            collection: .key("tags"), variable: "t", predicate: Expression.variable("t", ["name"]) == "home", keyPath: ["@count"]
        ) > 0, "SUBQUERY(tags, $t, $t.name == 'home').@count > 0", []),
    ]

    @Test func builderMatchesParser() throws {
        for (built, format, arguments) in Self.cases {
            #expect(try Predicate(format: format, argumentArray: arguments) == built, "\(format)")
        }
    }

    @Test func logic() throws {
        let a = Expression.key("a") == 1
        let b = Expression.key("b") == 2
        let c = Expression.key("c") == 3
        #expect(try Predicate(format: "a == 1 AND b == 2") == (a && b))
        #expect(try Predicate(format: "a == 1 AND b == 2 AND c == 3") == (a && b && c))
        #expect(try Predicate(format: "a == 1 OR b == 2 OR c == 3") == (a || b || c))
        #expect(try Predicate(format: "a == 1 OR b == 2 AND c == 3") == (a || b && c))
        #expect(try Predicate(format: "a == 1 AND b == 2 OR c == 3") == (a && b || c))
        #expect(try Predicate(format: "a == 1 AND (b == 2 AND c == 3)") == (a && (b && c)))
        #expect(try Predicate(format: "a == 1 OR (b == 2 OR c == 3)") == (a || (b || c)))
        #expect(try Predicate(format: "(a == 1 OR b == 2) AND c == 3") == ((a || b) && c))
        #expect(try Predicate(format: "NOT a == 1 AND b == 2") == (!a && b))
        #expect(try Predicate(format: "NOT (a == 1 OR b == 2)") == !(a || b))
        #expect(try Predicate(format: "NOT NOT a == 1") == !(!a))
        #expect(try Predicate(format: "TRUEPREDICATE AND NOT FALSEPREDICATE") == (.true && !.false))
    }

    @Test func leadingDotSyntax() throws {
        let p: Predicate = .key("priority") >= 3 && !(.key("done") == true)
        #expect(p == (try Predicate(format: "priority >= 3 AND NOT done == TRUE")))
        let q: Predicate = .any(.key("tags.name") == "home") || .key("a") == .key("b")
        #expect(q == (try Predicate(format: "ANY tags.name == 'home' OR a == b")))
    }

    /// The examples in the documentation comments, verbatim.
    @Test func documentedExamples() throws {
        let p1: Predicate = .key("priority") >= 3 && Expression.key("title").beginsWith("Buy", options: .caseInsensitive)
        #expect(p1 == (try Predicate(format: "priority >= %@ AND title BEGINSWITH[c] %@", 3, "Buy")))
        let q: Predicate = .any(Expression.key("tags.name").in(["home", "work"])) || !(.key("done") == true)
        #expect(q == (try Predicate(format: "ANY tags.name IN %@ OR NOT done == TRUE", ["home", "work"])))
        #expect((Expression.key("priority") >= 3 && !(Expression.key("done") == true)).description
            == "priority >= 3 AND NOT done == TRUE")
        let q2 = Expression.key("tags.name").in(["home", "work"])
        #expect(q2 == (try Predicate(format: "tags.name IN %@", ["home", "work"])))
        // A Swift array is one constant; an array literal in the format is an array of expressions.
        #expect(q2 != (try Predicate(format: "tags.name IN {'home', 'work'}")))
        #expect(q2.description == #"tags.name IN CAST({"home", "work"}, "NSArray")"#)
    }

    @Test func expressionEqualityStillMeansEquality() {
        let same: Bool = Expression.key("a") == Expression.key("a")
        let different: Bool = Expression.key("a") != Expression.key("b")
        #expect(same)
        #expect(different)
    }

    @Test func quantifyingSomethingOtherThanAComparisonTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Predicate.any(.and([.true, .false]))
        }
        await #expect(processExitsWith: .failure) {
            _ = Predicate.all(.any(Expression.key("a") == 1))
        }
    }
}
