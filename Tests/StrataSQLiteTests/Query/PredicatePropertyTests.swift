import Foundation
import Strata
import StrataTestKit
import Testing
import StrataSQL
@testable import StrataSQLite

/// The SQL compiler against the in-memory evaluator: thousands of seeded random predicates and
/// sort orders over seeded data, run by the SQLite store and by an in-memory store holding the
/// same records. Every answer must be the same, in the same order.
@Suite struct PredicatePropertyTests {
    static let seeds: [UInt64] = [1, 2, 3]
    static let predicatesPerSeed = 1_000

    @Test(arguments: seeds)
    func sqlAgreesWithTheEvaluator(seed: UInt64) throws {
        let (sqlite, memory, graph) = try LibraryGraph.stores(seed: seed)

        let requests = PredicateGenerator.fetchRequests(
            seed: seed, items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID), count: Self.predicatesPerSeed)
        var failures = 0
        var matched = 0
        for (index, request) in requests.enumerated() {
            let (predicate, entities) = (request.predicate!, request.entityNames)
            let expected = try memory.fetch(request).map(\.objectID)
            let actual = try sqlite.fetch(request).map(\.objectID)
            let actualIDs = try sqlite.fetchObjectIDs(request)
            let expectedCount = expected.count
            let actualCount = try sqlite.count(request)
            if !expected.isEmpty { matched += 1 }
            if expected != actual || expected != actualIDs || expectedCount != actualCount {
                failures += 1
                var compiler = sqlite.compiler()
                let sql = (try? compiler.fetch(
                    table: sqlite.layout.tables["Item"]!, entityNames: entities, predicate: predicate,
                    sortDescriptors: request.sortDescriptors, limit: request.fetchLimit, offset: request.fetchOffset).select) ?? "(fallback)"
                Issue.record("""
                    seed \(seed) #\(index): \(predicate)
                    sort: \(request.sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc") \($0.comparison)" })
                    limit \(request.fetchLimit) offset \(request.fetchOffset)
                    expected \(expected.map(\.description)) (count \(expectedCount))
                    actual   \(actual.map(\.description)) (count \(actualCount))
                    SQL: \(sql)
                    """)
                if failures >= 5 { break }
            }
        }
        #expect(failures == 0)
        #expect(sqlite.inMemoryFallbacks.load(ordering: .relaxed) == 0)
        // The generated predicates are not trivially empty: many select something.
        #expect(matched > Self.predicatesPerSeed / 4)
    }
}
