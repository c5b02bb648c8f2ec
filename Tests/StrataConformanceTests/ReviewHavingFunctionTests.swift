import Foundation
import Strata
import Testing

/// Review: a having predicate that applies an aggregate function (max:, min:, sum:, average:)
/// to an array holding an aggregate column. The evaluator compares each group's count; SQLite
/// finds no group at all (the count is taken again inside the function's subquery, over one
/// row).
@Suite struct ReviewHavingFunctionTests {
    @Test(arguments: StoreKind.all, ["max:({c}) > 1", "sum:({c, 0}) > 1", "average:({c}) > 1"])
    func aFunctionOfAnAggregateColumnInHaving(_ kind: StoreKind, _ having: String) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchTests.populate(fixture)
        var request = FetchRequest(entityName: "Book", resultType: .dictionaries)
        request.expressionsToFetch = [.key("author.name"), .count(as: "c")]
        request.propertiesToGroupBy = ["author.name"]
        request.havingPredicate = try FetchPredicate(format: having)
        let rows = try fixture.context().fetchDictionaries(request)
        // The groups of two books: Ursula's and Zed's (as `c > 1` finds them).
        var plain = request
        plain.havingPredicate = try FetchPredicate(format: "c > 1")
        let expected = try fixture.context().fetchDictionaries(plain)
        #expect(expected.count == 2)
        #expect(rows == expected)
    }
}
