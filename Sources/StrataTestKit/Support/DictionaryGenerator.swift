internal import Foundation
package import Strata

/// Random dictionary requests over the `Item` entity of the `Library` model: columns of
/// values, objects and computed expressions, groups, aggregates, having predicates, distinct
/// rows and sorts (the SQL-against-evaluator tests of the SQLite and PostgreSQL stores).
package struct DictionaryGenerator {
    package var random: SeededGenerator

    package init(random: SeededGenerator) {
        self.random = random
    }

    package struct Shape {
        package var columns: [ExpressionDescription]
        package var groupBy: [String] = []
        package var having: FetchPredicate?
        package var distinct = false
        package var sort: [FetchSortDescriptor] = []
        package var isGrouped: Bool { !groupBy.isEmpty || columns.contains { $0.name.hasPrefix("a") } }
    }

    package static let groupKeys = [
        "name", "count", "small", "ratio", "weight", "price", "flag", "when", "blob", "uid", "link",
        "owner.name", "owner.age", "owner", "next.price", "next.owner", "tags.@count",
    ]
    package static let numbers = ["count", "small", "ratio", "weight", "price", "flag", "owner.age", "owner.score", "next.ratio", "tags.@count", "parts.@sum.cost", "tags.@sum.rank", "related.@avg.count"]
    package static let values = [
        "name", "count", "small", "ratio", "weight", "price", "flag", "when", "blob", "uid", "link", "owner.name", "next.price",
        "tags.@count", "parts.@sum.cost", "tags.@max.label", "related.@min.when", "owner.items.@count", "tags.@avg.weight",
    ]
    package static let objects = ["owner", "next", "next.owner"]

    /// The next request of the sequence over `schema` (the `Library` model): its entities, a
    /// shape, a predicate and sort from `predicates`, and a window; with the shape it was made of.
    package mutating func storeRequest(schema: Schema, predicates: inout PredicateGenerator) throws -> (request: StoreDictionaryRequest, shape: Shape) {
        let entities = random.pick([["Item", "SpecialItem"], ["Item", "SpecialItem"], ["SpecialItem"], ["Item"]])
        let entity = schema.entity(named: entities == ["SpecialItem"] ? "SpecialItem" : "Item")!
        let shape = request()
        var fetch = StoreFetchRequest(entityNames: entities, sortDescriptors: shape.isGrouped ? shape.sort : predicates.sortDescriptors() + shape.sort)
        if random.chance(0.7) { fetch.predicate = predicates.predicate() }
        if random.chance(0.2) { fetch.fetchLimit = Int.random(in: 1...6, using: &random) }
        if random.chance(0.15) { fetch.fetchOffset = Int.random(in: 0...4, using: &random) }
        let plan = try DictionaryPlan(
            schema: schema, entity: entity, properties: shape.columns, groupBy: shape.groupBy, having: shape.having,
            distinct: shape.distinct, sortDescriptors: fetch.sortDescriptors)
        return (StoreDictionaryRequest(fetch: fetch, plan: plan), shape)
    }

    package mutating func request() -> Shape {
        random.chance(0.6) ? grouped() : plain()
    }

    package mutating func plain() -> Shape {
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

    package mutating func grouped() -> Shape {
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
