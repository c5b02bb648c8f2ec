import Foundation
import Testing
@testable import Strata

@Suite struct PredicateBuilderTests {
    /// Each builder expression, and the format whose parse it must equal.
    static let cases: [(FetchPredicate, String, [PredicateValue])] = [
        (FetchExpression.key("priority") >= 3, "priority >= 3", []),
        (FetchExpression.key("priority") > 3, "priority > 3", []),
        (FetchExpression.key("priority") <= -3, "priority <= -3", []),
        (FetchExpression.key("priority") < 2.5, "priority < 2.5", []),
        (FetchExpression.key("title") == "Buy", "title == 'Buy'", []),
        (FetchExpression.key("title") != "Buy", "title != \"Buy\"", []),
        (FetchExpression.key("done") == true, "done == YES", []),
        (FetchExpression.key("author.name") == "Ann", "author.name == 'Ann'", []),
        (FetchExpression.key("books.@count") > 2, "books.@count > 2", []),
        (FetchExpression.key("books.@sum.price") < 10, "books.@sum.price < 10", []),
        (FetchExpression.key("a") == FetchExpression.key("b"), "a == b", []),
        (FetchExpression.key("a") != FetchExpression.key("b"), "a != b", []),
        (FetchExpression.key("a") < FetchExpression.key("b"), "a < b", []),
        (FetchExpression.key("a") <= FetchExpression.variable("limit", []), "a <= $limit", []),
        (FetchExpression.key("a") > FetchExpression.evaluatedObject, "a > SELF", []),
        (FetchExpression.key("a") >= FetchExpression.value(1), "a >= 1", []),
        (FetchExpression.evaluatedObject == ObjectID(entityName: "Todo", storeIdentifier: "S", primaryKey: 1), "SELF == %@",
         [.object(ObjectID(entityName: "Todo", storeIdentifier: "S", primaryKey: 1))]),
        (FetchExpression.key("createdAt") < Date(timeIntervalSinceReferenceDate: 86400), "createdAt < CAST(86400, 'NSDate')", []),
        (FetchExpression.key("price") == Decimal(string: "9.99")!, "price == CAST('9.99', 'NSDecimalNumber')", []),
        (FetchExpression.key("id") == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
         "id == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", []),
        (FetchExpression.key("blob") == Data([1, 2, 255]), "blob == %@", [.data(Data([1, 2, 255]))]),
        (FetchExpression.key("notes") == String?.none, "notes == NIL", []),
        (FetchExpression.key("notes").isNil, "notes == nil", []),
        (FetchExpression.key("notes").isNotNil, "notes != NIL", []),
        (FetchExpression.key("name").equal("x", options: [.caseInsensitive, .diacriticInsensitive]), "name ==[cd] 'x'", []),
        (FetchExpression.key("name").notEqual("x", options: .caseInsensitive), "name !=[c] 'x'", []),
        (FetchExpression.key("title").beginsWith("Buy"), "title BEGINSWITH 'Buy'", []),
        (FetchExpression.key("title").beginsWith("Buy", options: .caseInsensitive), "title BEGINSWITH[c] 'Buy'", []),
        (FetchExpression.key("title").beginsWith(FetchExpression.key("prefix")), "title BEGINSWITH prefix", []),
        (FetchExpression.key("title").endsWith("milk", options: .diacriticInsensitive), "title ENDSWITH[d] 'milk'", []),
        (FetchExpression.key("title").endsWith(FetchExpression.variable("s", [])), "title ENDSWITH $s", []),
        (FetchExpression.key("title").contains("il", options: .normalized), "title CONTAINS[n] 'il'", []),
        (FetchExpression.key("tags").contains(FetchExpression.variable("tag", [])), "tags CONTAINS $tag", []),
        (FetchExpression.key("title").like("B?y*"), "title LIKE 'B?y*'", []),
        (FetchExpression.key("title").matches("^B.*$", options: [.caseInsensitive]), "title MATCHES[c] '^B.*$'", []),
        (FetchExpression.key("priority").in([1, 2, 3]), "priority IN %@", [[1, 2, 3]]),
        (FetchExpression.key("tag").in(Set(["work", "home"])), "tag IN CAST({'home', 'work'}, 'NSArray')", []),
        (FetchExpression.key("priority").in(.array([.value(1), .key("max")])), "priority IN {1, max}", []),
        (FetchExpression.key("name").in(.key("aliases"), options: .caseInsensitive), "name IN[c] aliases", []),
        (FetchExpression.key("priority").between(1, 5), "priority BETWEEN {1, 5}", []),
        (FetchExpression.key("price").between(1, 2.5), "price BETWEEN {1, 2.5}", []),
        (FetchExpression.key("date").between(.variable("start", []), .key("end")), "date BETWEEN {$start, end}", []),
        (FetchExpression.key("x").compare(.like, .value("a*"), options: .caseInsensitive), "x LIKE[c] 'a*'", []),
        (.any(FetchExpression.key("tags.name") == "home"), "ANY tags.name == 'home'", []),
        (.any(FetchExpression.key("tags.name").in(["home", "work"])), "SOME tags.name IN %@", [["home", "work"]]),
        (.all(FetchExpression.key("items.price") > 0), "ALL items.price > 0", []),
        (.none(FetchExpression.key("tags.name").beginsWith("x", options: .caseInsensitive)), "NONE tags.name BEGINSWITH[c] 'x'", []),
        (FetchExpression.subquery(
            collection: .key("tags"), variable: "t", predicate: FetchExpression.variable("t", ["name"]) == "home", keyPath: ["@count"]
        ) > 0, "SUBQUERY(tags, $t, $t.name == 'home').@count > 0", []),
    ]

    @Test func builderMatchesParser() throws {
        for (built, format, arguments) in Self.cases {
            #expect(try FetchPredicate(format: format, argumentArray: arguments) == built, "\(format)")
        }
    }

    @Test func logic() throws {
        let a = FetchExpression.key("a") == 1
        let b = FetchExpression.key("b") == 2
        let c = FetchExpression.key("c") == 3
        #expect(try FetchPredicate(format: "a == 1 AND b == 2") == (a && b))
        #expect(try FetchPredicate(format: "a == 1 AND b == 2 AND c == 3") == (a && b && c))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2 OR c == 3") == (a || b || c))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2 AND c == 3") == (a || b && c))
        #expect(try FetchPredicate(format: "a == 1 AND b == 2 OR c == 3") == (a && b || c))
        #expect(try FetchPredicate(format: "a == 1 AND (b == 2 AND c == 3)") == (a && (b && c)))
        #expect(try FetchPredicate(format: "a == 1 OR (b == 2 OR c == 3)") == (a || (b || c)))
        #expect(try FetchPredicate(format: "(a == 1 OR b == 2) AND c == 3") == ((a || b) && c))
        #expect(try FetchPredicate(format: "NOT a == 1 AND b == 2") == (!a && b))
        #expect(try FetchPredicate(format: "NOT (a == 1 OR b == 2)") == !(a || b))
        #expect(try FetchPredicate(format: "NOT NOT a == 1") == !(!a))
        #expect(try FetchPredicate(format: "TRUEPREDICATE AND NOT FALSEPREDICATE") == (.true && !.false))
    }

    @Test func leadingDotSyntax() throws {
        let p: FetchPredicate = .key("priority") >= 3 && !(.key("done") == true)
        #expect(p == (try FetchPredicate(format: "priority >= 3 AND NOT done == TRUE")))
        let q: FetchPredicate = .any(.key("tags.name") == "home") || .key("a") == .key("b")
        #expect(q == (try FetchPredicate(format: "ANY tags.name == 'home' OR a == b")))
    }

    /// The examples in the documentation comments, verbatim.
    @Test func documentedExamples() throws {
        let p1: FetchPredicate = .key("priority") >= 3 && FetchExpression.key("title").beginsWith("Buy", options: .caseInsensitive)
        #expect(p1 == (try FetchPredicate(format: "priority >= %@ AND title BEGINSWITH[c] %@", 3, "Buy")))
        let q: FetchPredicate = .any(FetchExpression.key("tags.name").in(["home", "work"])) || !(.key("done") == true)
        #expect(q == (try FetchPredicate(format: "ANY tags.name IN %@ OR NOT done == TRUE", ["home", "work"])))
        #expect((FetchExpression.key("priority") >= 3 && !(FetchExpression.key("done") == true)).description
            == "priority >= 3 AND NOT done == TRUE")
        let q2 = FetchExpression.key("tags.name").in(["home", "work"])
        #expect(q2 == (try FetchPredicate(format: "tags.name IN %@", ["home", "work"])))
        // A Swift array is one constant; an array literal in the format is an array of expressions.
        #expect(q2 != (try FetchPredicate(format: "tags.name IN {'home', 'work'}")))
        #expect(q2.description == #"tags.name IN CAST({"home", "work"}, "NSArray")"#)
    }

    @Test func expressionEqualityStillMeansEquality() {
        let same: Bool = FetchExpression.key("a") == FetchExpression.key("a")
        let different: Bool = FetchExpression.key("a") != FetchExpression.key("b")
        #expect(same)
        #expect(different)
    }

    @Test func quantifyingSomethingOtherThanAComparisonTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = FetchPredicate.any(.and([.true, .false]))
        }
        await #expect(processExitsWith: .failure) {
            _ = FetchPredicate.all(.any(FetchExpression.key("a") == 1))
        }
    }
}
