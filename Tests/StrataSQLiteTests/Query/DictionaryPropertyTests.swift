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
            let entities = generator.random.pick([["Item", "SpecialItem"], ["Item", "SpecialItem"], ["SpecialItem"], ["Item"]])
            let entity = schema.entity(named: entities == ["SpecialItem"] ? "SpecialItem" : "Item")!
            let shape = generator.request()
            var fetch = StoreFetchRequest(entityNames: entities, sortDescriptors: shape.isGrouped ? shape.sort : predicates.sortDescriptors() + shape.sort)
            if generator.random.chance(0.7) { fetch.predicate = predicates.predicate() }
            if generator.random.chance(0.2) { fetch.fetchLimit = Int.random(in: 1...6, using: &generator.random) }
            if generator.random.chance(0.15) { fetch.fetchOffset = Int.random(in: 0...4, using: &generator.random) }
            let plan = try DictionaryPlan(
                schema: schema, entity: entity, properties: shape.columns, groupBy: shape.groupBy, having: shape.having,
                distinct: shape.distinct, sortDescriptors: fetch.sortDescriptors)
            let request = StoreDictionaryRequest(fetch: fetch, plan: plan)
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

/// Random dictionary requests over the `Item` entity of the `Library` model.
struct DictionaryGenerator {
    var random: SeededGenerator

    struct Shape {
        var columns: [ExpressionDescription]
        var groupBy: [String] = []
        var having: FetchPredicate?
        var distinct = false
        var sort: [FetchSortDescriptor] = []
        var isGrouped: Bool { !groupBy.isEmpty || columns.contains { $0.name.hasPrefix("a") } }
    }

    static let groupKeys = [
        "name", "count", "small", "ratio", "weight", "price", "flag", "when", "blob", "uid", "link",
        "owner.name", "owner.age", "owner", "next.price", "next.owner", "tags.@count",
    ]
    static let numbers = ["count", "small", "ratio", "weight", "price", "flag", "owner.age", "owner.score", "next.ratio", "tags.@count", "parts.@sum.cost", "tags.@sum.rank", "related.@avg.count"]
    static let values = [
        "name", "count", "small", "ratio", "weight", "price", "flag", "when", "blob", "uid", "link", "owner.name", "next.price",
        "tags.@count", "parts.@sum.cost", "tags.@max.label", "related.@min.when", "owner.items.@count", "tags.@avg.weight",
    ]
    static let objects = ["owner", "next", "next.owner"]

    mutating func request() -> Shape {
        random.chance(0.6) ? grouped() : plain()
    }

    mutating func plain() -> Shape {
        var names: [String] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let key = random.chance(0.8) ? random.pick(Self.values) : random.pick(Self.objects)
            if !names.contains(key) { names.append(key) }
        }
        var shape = Shape(columns: names.map(ExpressionDescription.init(keyPath:)))
        if random.chance(0.3) {
            // Arithmetic and functions of each object's values.
            let expression: FetchExpression = random.pick([
                .function(.add, [.key(random.pick(Self.numbers)), .constant(1)]),
                .function(.multiply, [.key(random.pick(Self.numbers)), .key(random.pick(Self.numbers))]),
                .function(.divide, [.key(random.pick(Self.numbers)), .key(random.pick(Self.numbers))]),
                .function(.lowercase, [.key("name")]),
                .function(.sum, [.key("tags.rank")]),
            ])
            shape.columns.append(ExpressionDescription(name: "expression", expression: expression))
        }
        shape.distinct = random.chance(0.4)
        if random.chance(0.3) {
            shape.sort = [FetchSortDescriptor(random.pick(["tags.@count", "parts.@sum.cost", "related.@max.when", "tags.@max.label"]), ascending: random.chance(0.5))]
        }
        return shape
    }

    mutating func grouped() -> Shape {
        var groupBy: [String] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let key = random.pick(Self.groupKeys)
            if !groupBy.contains(key) { groupBy.append(key) }
        }
        var columns = groupBy.filter { _ in random.chance(0.7) }.map(ExpressionDescription.init(keyPath:))
        for index in 0..<Int.random(in: groupBy.isEmpty ? 1...3 : 0...3, using: &random) {
            let name = "a\(index)"
            let column: ExpressionDescription
            switch Int.random(in: 0..<8, using: &random) {
            case 0: column = .count(random.chance(0.5) ? nil : random.pick(Self.values + Self.objects), as: name)
            case 1: column = .sum(random.pick(Self.numbers), as: name)
            case 2: column = .average(random.pick(Self.numbers), as: name)
            case 3: column = .minimum(random.pick(Self.values), as: name)
            case 4: column = .median(random.pick(Self.numbers), as: name)
            case 5: column = .standardDeviation(random.pick(Self.numbers), as: name)
            default: column = .maximum(random.pick(Self.values), as: name)
            }
            columns.append(column)
        }
        if random.chance(0.3) {
            // Arithmetic of a group's aggregates.
            let expression: FetchExpression = random.pick([
                .function(.divide, [.key("@sum." + random.pick(Self.numbers)), .key("@count")]),
                .function(.subtract, [.key("@max.count"), .function(.min, [.key(random.pick(Self.numbers))])]),
                .function(.multiply, [.function(.sum, [.key(random.pick(Self.numbers))]), .constant(2)]),
            ])
            columns.append(ExpressionDescription(name: "a9", expression: expression))
        }
        if columns.isEmpty { columns = [.count(as: "a0")] }
        var shape = Shape(columns: columns, groupBy: groupBy)
        let names = columns.map(\.name) + groupBy.filter { key in !columns.contains { $0.name == key } }
        if random.chance(0.35) {
            let name = random.pick(names)
            let constant: PredicateValue = random.pick([0, 1, 2, 3, 1.5, -1, .null, .decimal(Decimal(string: "1.5")!), "apple", "a", .date(ValuePool.dates[1])])
            let op = random.pick([ComparisonOperator.equal, .notEqual, .lessThan, .greaterThan, .greaterThanOrEqual, .lessThanOrEqual, .beginsWith])
            var having = FetchPredicate.comparison(Comparison(.keyPath([name]), op, .constant(constant)))
            if random.chance(0.3) {
                having = .or([having, .comparison(Comparison(.keyPath([random.pick(names)]), .equal, .constant(.null)))])
            }
            shape.having = having
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            shape.sort.append(FetchSortDescriptor(
                random.pick(names), ascending: random.chance(0.5), comparison: random.pick([.default, .default, .caseInsensitive, .localizedStandard])))
        }
        shape.distinct = random.chance(0.2)
        return shape
    }
}
