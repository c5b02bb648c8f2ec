import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// The SQL compiler with PostgreSQL's dialect against the in-memory evaluator: the generated
/// predicates, sort orders and windows of the SQLite store's property test (the same seeds),
/// run by a PostgreSQL store and by an in-memory store holding the same seeded `Library` graph.
/// Every answer must be the same, in the same order, whether the request went to SQL or, for
/// what PostgreSQL does differently, to the evaluator.
@Suite struct PostgresPredicatePropertyTests {
    static let seeds: [UInt64] = [1, 2, 3]
    /// The first requests of each seed's sequence (the SQLite test runs 1,000): each runs on a
    /// server, several statements apiece.
    static let predicatesPerSeed = 300

    @Test(arguments: seeds)
    func sqlAgreesWithTheEvaluator(seed: UInt64) throws {
        let location = try TestSchema()
        defer { location.drop() }
        let (postgres, memory, graph) = try location.libraryStores(seed: seed)

        let requests = PredicateGenerator.fetchRequests(
            seed: seed, items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID), count: Self.predicatesPerSeed)
        var failures = 0
        var matched = 0
        var inSQL = 0
        for (index, request) in requests.enumerated() {
            let (predicate, entities) = (request.predicate!, request.entityNames)
            let expected = try memory.fetch(request).map(\.objectID)
            let actual = try postgres.fetch(request).map(\.objectID)
            let actualCount = try postgres.count(request)
            if !expected.isEmpty { matched += 1 }
            let compiled = postgres.compiled(request, ("Item", entities))
            if compiled != nil { inSQL += 1 }
            if expected != actual || expected.count != actualCount {
                failures += 1
                Issue.record("""
                    seed \(seed) #\(index): \(predicate)
                    sort: \(request.sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc") \($0.comparison)" })
                    limit \(request.fetchLimit) offset \(request.fetchOffset)
                    expected \(expected.map(\.description)) (count \(expected.count))
                    actual   \(actual.map(\.description)) (count \(actualCount))
                    SQL: \(compiled.map { PostgresStore.statement($0.select, $0.arguments).0 } ?? "(evaluator)")
                    """)
                if failures >= 5 { break }
            }
        }
        #expect(failures == 0)
        // The generated predicates are not trivially empty, and a good share of them is SQL's.
        #expect(matched > Self.predicatesPerSeed / 4)
        print("seed \(seed): \(inSQL) of \(Self.predicatesPerSeed) in SQL")
        #expect(inSQL > Self.predicatesPerSeed / 5)
    }
}
