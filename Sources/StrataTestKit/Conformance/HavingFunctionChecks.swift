import Foundation
import Strata
import Testing

/// A having predicate that applies an aggregate function (max:, min:, sum:, average:)
/// to an array holding an aggregate column. SQLite must find the groups the evaluator finds
/// (inside the function's subquery, the group's count would count that subquery's one row:
/// such a having is evaluated in memory).
package struct HavingFunctionChecks {
    package init() {}

    /// The HAVING clauses the check runs.
    package static let havings = ["max:({c}) > 1", "sum:({c, 0}) > 1", "average:({c}) > 1"]

    package func aFunctionOfAnAggregateColumnInHaving(_ kind: StoreKind, _ having: String) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try FetchChecks.populate(fixture)
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
