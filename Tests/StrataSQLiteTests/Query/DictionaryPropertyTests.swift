import Foundation
import Strata
import StrataTestKit
import Testing
import StrataSQL
@testable import StrataSQLite

/// The SQL of dictionary fetches against the in-memory evaluator: seeded random columns,
/// groups, aggregates, having predicates, distinct rows, sorts and windows over the seeded
/// `Library` graph of ``PredicatePropertyTests``, run by the SQLite store (in SQL) and by an
/// in-memory store holding the same records. Every row must be the same — values, their types,
/// and order.
@Suite struct DictionaryPropertyTests {
    static let seeds: [UInt64] = [1, 2, 3]
    static let requestsPerSeed = 300

    @Test(arguments: seeds)
    func sqlAgreesWithTheEvaluator(seed: UInt64) throws {
        let (sqlite, memory, graph) = try LibraryGraph.stores(seed: seed)
        let schema = try LibraryFixture.schema()

        var predicates = PredicateGenerator(
            random: SeededGenerator(seed: seed &* 104_729), items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID))
        var generator = DictionaryGenerator(random: SeededGenerator(seed: seed &* 7_919))
        var failures = 0
        var nonEmpty = 0
        var grouped = 0
        for index in 0..<Self.requestsPerSeed {
            let (request, shape) = try generator.storeRequest(schema: schema, predicates: &predicates)
            let (fetch, plan, entities) = (request.fetch, request.plan, request.fetch.entityNames)
            let expected = try memory.fetchDictionaries(request)
            let actual = try sqlite.fetchDictionaries(request)
            if !expected.isEmpty { nonEmpty += 1 }
            if plan.isGrouped { grouped += 1 }
            if expected != actual {
                failures += 1
                var compiler = sqlite.compiler()
                let sql = (try? compiler.dictionaries(table: sqlite.layout.tables["Item"]!, entityNames: entities, request: request).sql) ?? "(fallback)"
                Issue.record("""
                    seed \(seed) #\(index): \(shape.columns.map(\.description)) group by \(shape.groupBy) having \(shape.having.map { "\($0)" } ?? "-") distinct \(shape.distinct)
                    predicate: \(fetch.predicate.map { "\($0)" } ?? "-")
                    sort: \(fetch.sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc") \($0.comparison)" }) limit \(fetch.fetchLimit) offset \(fetch.fetchOffset)
                    expected \(expected)
                    actual   \(actual)
                    SQL: \(sql)
                    """)
                if failures >= 5 { break }
            }
        }
        #expect(failures == 0)
        #expect(sqlite.inMemoryFallbacks.load(ordering: .relaxed) == 0)
        #expect(nonEmpty > Self.requestsPerSeed / 2)
        #expect(grouped > Self.requestsPerSeed / 3)
    }
}

extension DictionaryPropertyTests {
    /// Objects sorted through to-many aggregates (`tags.@count`, `parts.@sum.cost`, …): the
    /// SQL order is the evaluator's.
    @Test(arguments: seeds)
    func sortingByAggregatesAgrees(seed: UInt64) throws {
        let (sqlite, memory, graph) = try LibraryGraph.stores(seed: seed)
        var predicates = PredicateGenerator(
            random: SeededGenerator(seed: seed &* 31), items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID))
        let keys = ["tags.@count", "parts.@sum.cost", "tags.@sum.rank", "tags.@avg.weight", "tags.@max.label", "related.@min.when", "owner.items.@count", "parts.@max.size"]
        var failures = 0
        for index in 0..<200 {
            var request = StoreFetchRequest(entityNames: ["Item", "SpecialItem"])
            if predicates.random.chance(0.5) { request.predicate = predicates.predicate() }
            request.sortDescriptors = (0..<Int.random(in: 1...2, using: &predicates.random)).map { _ in
                FetchSortDescriptor(predicates.random.pick(keys), ascending: predicates.random.chance(0.5),
                                    comparison: predicates.random.pick([.default, .caseInsensitive, .localizedStandard]))
            }
            if predicates.random.chance(0.3) { request.fetchLimit = Int.random(in: 1...8, using: &predicates.random) }
            let expected = try memory.fetch(request).map(\.objectID)
            let actual = try sqlite.fetchObjectIDs(request)
            if expected != actual {
                failures += 1
                Issue.record("seed \(seed) #\(index): sort \(request.sortDescriptors.map(\.keyPath)) \(request.predicate.map { "\($0)" } ?? "")\nexpected \(expected)\nactual   \(actual)")
                if failures >= 5 { break }
            }
        }
        #expect(failures == 0)
        #expect(sqlite.inMemoryFallbacks.load(ordering: .relaxed) == 0)
    }
}
