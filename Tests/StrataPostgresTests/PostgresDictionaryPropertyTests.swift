import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// Dictionary fetches of a PostgreSQL store against the in-memory evaluator: the seeded columns,
/// groups, aggregates, having predicates, distinct rows, sorts and windows of the SQLite store's
/// property test, over the seeded `Library` graph. Every row must be the same — values, their
/// types, and order — whether the request went to SQL or, for what PostgreSQL cannot compute as
/// the evaluator does, to the evaluator.
@Suite struct PostgresDictionaryPropertyTests {
    static let seeds: [UInt64] = [1, 2, 3]
    /// The first requests of each seed's sequence (the SQLite test runs 300).
    static let requestsPerSeed = 150

    @Test(arguments: seeds)
    func sqlAgreesWithTheEvaluator(seed: UInt64) throws {
        let location = try TestSchema()
        defer { location.drop() }
        let (postgres, memory, graph) = try location.libraryStores(seed: seed)
        let schema = try LibraryFixture.schema()

        var predicates = PredicateGenerator(
            random: SeededGenerator(seed: seed &* 104_729), items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID))
        var generator = DictionaryGenerator(random: SeededGenerator(seed: seed &* 7_919))
        var failures = 0
        var inSQL = 0
        var groupedInSQL = 0
        for index in 0..<Self.requestsPerSeed {
            let (request, shape) = try generator.storeRequest(schema: schema, predicates: &predicates)
            let fetch = request.fetch
            let compiled = postgres.compiledDictionaries(request, ("Item", fetch.entityNames))
            if compiled != nil {
                inSQL += 1
                if request.plan.isGrouped { groupedInSQL += 1 }
            }
            let expected = try memory.fetchDictionaries(request)
            let actual = try postgres.fetchDictionaries(request)
            if expected != actual {
                failures += 1
                Issue.record("""
                    seed \(seed) #\(index): \(shape.columns.map(\.description)) group by \(shape.groupBy) having \(shape.having.map { "\($0)" } ?? "-") distinct \(shape.distinct)
                    predicate: \(fetch.predicate.map { "\($0)" } ?? "-")
                    sort: \(fetch.sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc") \($0.comparison)" }) limit \(fetch.fetchLimit) offset \(fetch.fetchOffset)
                    expected \(expected)
                    actual   \(actual)
                    SQL: \(compiled.map { PostgresStore.statement($0.sql, $0.arguments).0 } ?? "(evaluator)")
                    """)
                if failures >= 5 { break }
            }
        }
        #expect(failures == 0)
        print("seed \(seed): \(inSQL) of \(Self.requestsPerSeed) dictionary fetches in SQL, \(groupedInSQL) of them grouped")
        // Some requests are SQL's, groups among them (most of the generated ones compare or
        // group strings, or aggregate otherwise than by counting: the evaluator's).
        #expect(inSQL > 0)
        #expect(groupedInSQL > 0)
    }
}
