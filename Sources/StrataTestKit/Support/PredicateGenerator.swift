internal import Foundation
public import Strata

/// Generates random predicates and sort descriptors over the `Library` model: every operator,
/// modifier and option, key paths through to-one and to-many relationships, aggregates,
/// SUBQUERY, nil, cross-kind constants and column-to-column comparisons. The property tests of
/// every SQL store (the compiler against the evaluator) draw their requests from it.
public struct PredicateGenerator {
    public var random: SeededGenerator
    public let items: [ObjectID]
    public let owners: [ObjectID]

    /// A generator drawing from `random`, comparing objects with `items` (of `Item`) and
    /// `owners` (of `Owner`).
    public init(random: SeededGenerator, items: [ObjectID], owners: [ObjectID]) {
        self.random = random
        self.items = items
        self.owners = owners
    }

    /// A key path of the `Item` entity with the type of its values.
    struct Path {
        var keyPath: [String]
        var type: AttributeType
        var toMany: Bool
    }

    static let itemAttributes: [(String, AttributeType)] = [
        ("name", .string), ("count", .int64), ("small", .int16), ("ratio", .double), ("weight", .float), ("price", .decimal),
        ("flag", .bool), ("when", .date), ("blob", .binary), ("uid", .uuid), ("link", .uri), ("extra", .string),
    ]

    static let toOnePaths: [Path] = [
        Path(keyPath: ["owner", "name"], type: .string, toMany: false),
        Path(keyPath: ["owner", "age"], type: .int32, toMany: false),
        Path(keyPath: ["owner", "score"], type: .double, toMany: false),
        Path(keyPath: ["next", "ratio"], type: .double, toMany: false),
        Path(keyPath: ["next", "name"], type: .string, toMany: false),
        Path(keyPath: ["next", "owner", "name"], type: .string, toMany: false),
        Path(keyPath: ["next", "price"], type: .decimal, toMany: false),
    ]

    static let toManyPaths: [Path] = [
        Path(keyPath: ["tags", "label"], type: .string, toMany: true),
        Path(keyPath: ["tags", "weight"], type: .double, toMany: true),
        Path(keyPath: ["tags", "rank"], type: .int64, toMany: true),
        Path(keyPath: ["parts", "size"], type: .int64, toMany: true),
        Path(keyPath: ["parts", "label"], type: .string, toMany: true),
        Path(keyPath: ["parts", "cost"], type: .decimal, toMany: true),
        Path(keyPath: ["related", "count"], type: .int64, toMany: true),
        Path(keyPath: ["related", "when"], type: .date, toMany: true),
        Path(keyPath: ["owner", "items", "name"], type: .string, toMany: true),
        Path(keyPath: ["tags", "items", "count"], type: .int64, toMany: true),
        Path(keyPath: ["related", "owner", "age"], type: .int32, toMany: true),
    ]

    static let aggregatePaths: [Path] = [
        Path(keyPath: ["tags", "@count"], type: .int64, toMany: false),
        Path(keyPath: ["parts", "@count"], type: .int64, toMany: false),
        Path(keyPath: ["related", "@count"], type: .int64, toMany: false),
        Path(keyPath: ["owner", "items", "@count"], type: .int64, toMany: false),
        Path(keyPath: ["tags", "@sum", "rank"], type: .int64, toMany: false),
        Path(keyPath: ["tags", "@avg", "weight"], type: .double, toMany: false),
        Path(keyPath: ["tags", "@max", "weight"], type: .double, toMany: false),
        Path(keyPath: ["parts", "@max", "size"], type: .int64, toMany: false),
        Path(keyPath: ["parts", "@min", "cost"], type: .decimal, toMany: false),
        Path(keyPath: ["parts", "@sum", "cost"], type: .decimal, toMany: false),
        Path(keyPath: ["tags", "@max", "label"], type: .string, toMany: false),
        Path(keyPath: ["related", "@min", "when"], type: .date, toMany: false),
        Path(keyPath: ["tags", "label", "@count"], type: .int64, toMany: true),
        Path(keyPath: ["name", "@count"], type: .int64, toMany: false),
    ]

    /// The fetch requests of the SQL-against-evaluator property tests for `seed` (the same in
    /// every SQL store's test): a predicate, the entities (`Item`, `SpecialItem` or both), sort
    /// descriptors, and sometimes a limit and an offset.
    public static func fetchRequests(seed: UInt64, items: [ObjectID], owners: [ObjectID], count: Int) -> [StoreFetchRequest] {
        var generator = PredicateGenerator(random: SeededGenerator(seed: seed &* 7919), items: items, owners: owners)
        var requests: [StoreFetchRequest] = []
        for _ in 0..<count {
            let predicate = generator.predicate()
            let entities = generator.random.pick([["Item", "SpecialItem"], ["Item", "SpecialItem"], ["SpecialItem"], ["Item"]])
            var request = StoreFetchRequest(entityNames: entities, predicate: predicate, sortDescriptors: generator.sortDescriptors())
            if generator.random.chance(0.2) { request.fetchLimit = Int.random(in: 1...10, using: &generator.random) }
            if generator.random.chance(0.15) { request.fetchOffset = Int.random(in: 0...10, using: &generator.random) }
            requests.append(request)
        }
        return requests
    }

    /// A random predicate, nested up to three levels of AND, OR and NOT.
    public mutating func predicate(depth: Int = 0) -> FetchPredicate {
        let roll = Int.random(in: 0..<100, using: &random)
        if depth < 3 && roll < 12 { return .and((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth + 1) }) }
        if depth < 3 && roll < 22 { return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth + 1) }) }
        if depth < 3 && roll < 32 { return .not(predicate(depth: depth + 1)) }
        if roll < 33 { return .constant(random.chance(0.5)) }
        return comparison()
    }

    mutating func comparison() -> FetchPredicate {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<38:
            let (name, type) = random.pick(Self.itemAttributes)
            return scalarComparison(Path(keyPath: [name], type: type, toMany: false))
        case 38..<52:
            return scalarComparison(random.pick(Self.toOnePaths))
        case 52..<72:
            return scalarComparison(random.pick(Self.toManyPaths))
        case 72..<80:
            return scalarComparison(random.pick(Self.aggregatePaths))
        case 80..<86:
            return objectComparison()
        case 86..<90:
            return subquery()
        default:
            return expressionComparison()
        }
    }

    // MARK: Expressions: arithmetic, functions, subscripts, @distinctUnionOfObjects

    static let numericPaths: [[String]] = [
        ["count"], ["small"], ["ratio"], ["weight"], ["price"], ["flag"], ["owner", "age"], ["owner", "score"], ["next", "ratio"],
        ["next", "price"], ["tags", "@count"], ["tags", "@sum", "rank"], ["parts", "@sum", "cost"],
    ]
    static let stringPaths: [[String]] = [["name"], ["extra"], ["owner", "name"], ["next", "name"], ["tags", "label"], ["parts", "label"]]
    static let numericCollections: [[String]] = [
        ["tags", "rank"], ["tags", "weight"], ["parts", "size"], ["parts", "cost"], ["related", "count"], ["related", "price"],
        ["owner", "items", "count"], ["tags", "label"], ["related", "when"],
    ]

    /// A numeric operand: a key path, a constant, or (nested) arithmetic and functions of them.
    mutating func numericExpression(depth: Int = 0) -> FetchExpression {
        let roll = Int.random(in: 0..<100, using: &random)
        if depth < 2 && roll < 25 {
            let function = random.pick([PredicateFunction.add, .subtract, .multiply, .divide, .modulus, .add, .multiply, .raise])
            return .function(function, [numericExpression(depth: depth + 1), numericExpression(depth: depth + 1)])
        }
        if depth < 2 && roll < 35 {
            let function = random.pick([PredicateFunction.negate, .abs, .floor, .ceiling, .trunc, .sqrt, .ln, .log, .exp, .noindex])
            return .function(function, [numericExpression(depth: depth + 1)])
        }
        if depth < 2 && roll < 45 {
            let function = random.pick([PredicateFunction.sum, .count, .min, .max, .average, .median, .stddev])
            return .function(function, [collectionExpression()])
        }
        if depth < 2 && roll < 50 {
            return .function(.length, [.keyPath(random.pick(Self.stringPaths))])
        }
        if roll < 58 { return .constant(constant(random.pick([.int64, .double, .decimal]))) }
        if roll < 63 { return subscriptExpression() }
        return .keyPath(random.pick(Self.numericPaths))
    }

    /// A collection for an aggregate function.
    mutating func collectionExpression() -> FetchExpression {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            // An array of same-kind values, so that min: and max: have one kind to read.
            let path = random.pick([["count"], ["small"], ["owner", "age"], ["tags", "@count"]])
            return .array([.keyPath(path), .constant(.integer(random.pick(ValuePool.integers))), .keyPath(["count"])])
        case 2:
            return .keyPath(random.pick([["tags", "@distinctUnionOfObjects", "rank"], ["parts", "@distinctUnionOfObjects", "cost"], ["tags", "@distinctUnionOfObjects", "label"], ["related", "@distinctUnionOfObjects", "owner"]]))
        case 3:
            return .subquery(
                collection: .keyPath(["parts"]), variable: "p",
                predicate: .comparison(Comparison(.variable("p", ["size"]), .greaterThan, .constant(constant(.int64)))), keyPath: [])
        default:
            return .keyPath(random.pick(Self.numericCollections))
        }
    }

    mutating func subscriptExpression() -> FetchExpression {
        let index: PredicateIndex = random.pick([.first, .last, .size, .position(.constant(.integer(Int64.random(in: -1...3, using: &random))))])
        if index == .size { return .index(.keyPath(["parts"]), .size, keyPath: []) }
        if random.chance(0.2) { return .index(.array([.keyPath(["count"]), .keyPath(["small"]), .constant(.integer(2))]), index, keyPath: []) }
        return .index(.keyPath(["parts"]), index, keyPath: [random.pick(["size", "cost", "label"])])
    }

    mutating func expressionComparison() -> FetchPredicate {
        let ops: [ComparisonOperator] = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5:
            let right = random.chance(0.3) ? numericExpression() : .constant(constant(random.pick([.int64, .double, .decimal])))
            return .comparison(Comparison(numericExpression(), random.pick(ops), right))
        case 5:
            // Strings: case mapping, mapped over a to-many key path.
            let function = random.pick([PredicateFunction.lowercase, .uppercase])
            let path = random.pick(Self.stringPaths)
            let op = random.pick(ops + [.beginsWith, .contains, .in])
            let right: FetchExpression = op == .in ? .constant(.array([constant(.string), constant(.string)])) : .constant(constant(.string))
            let modifier: ComparisonModifier = path.count > 1 && path[0] != "owner" && path[0] != "next" ? random.pick([.direct, .any, .all, .none]) : .direct
            return .comparison(Comparison(.function(function, [.keyPath(path)]), op, right, modifier: modifier, options: options()))
        case 6:
            // Dates: ± seconds, differences, now().
            let seconds = FetchExpression.constant(random.pick([.integer(86_400), .double(-3.5), .decimal(Decimal(string: "0.25")!), .integer(0)]))
            let left: FetchExpression = random.pick([
                .function(.add, [.keyPath(["when"]), seconds]), .function(.subtract, [.keyPath(["when"]), seconds]),
                .function(.add, [seconds, .keyPath(["when"])]),
            ])
            if random.chance(0.3) {
                return .comparison(Comparison(.function(.subtract, [.keyPath(["when"]), .keyPath(["related", "@min", "when"])]), random.pick(ops), .constant(constant(.double))))
            }
            if random.chance(0.2) { return .comparison(Comparison(left, random.pick(ops), .function(.now, []))) }
            return .comparison(Comparison(left, random.pick(ops), .constant(constant(.date))))
        case 7:
            // Distinct values: membership and counts.
            let collection = FetchExpression.keyPath(random.pick([["tags", "@distinctUnionOfObjects", "label"], ["related", "@distinctUnionOfObjects", "count"], ["parts", "@distinctUnionOfObjects", "label"]]))
            if random.chance(0.5) {
                return .comparison(Comparison(.function(.count, [collection]), random.pick(ops), .constant(.integer(Int64.random(in: 0...3, using: &random)))))
            }
            let isLabel: Bool
            if case .keyPath(let path) = collection { isLabel = path.last == "label" } else { isLabel = false }
            return .comparison(Comparison(collection, random.pick(ops), .constant(constant(isLabel ? .string : .int64)), modifier: random.pick([.direct, .any, .all, .none])))
        case 8:
            // Subscripts of the ordered `parts`.
            let right: FetchExpression = .constant(constant(random.pick([.int64, .decimal, .string])))
            return .comparison(Comparison(subscriptExpression(), random.pick(ops + [.beginsWith]), right))
        default:
            // A to-many path in arithmetic: each member, compared as ANY/ALL/NONE.
            let path = random.pick([["tags", "rank"], ["parts", "cost"], ["related", "count"]])
            let left = FetchExpression.function(random.pick([.multiply, .add, .subtract]), [.keyPath(path), numericExpression(depth: 2)])
            return .comparison(Comparison(left, random.pick(ops), .constant(constant(.int64)), modifier: random.pick([.direct, .any, .all, .none])))
        }
    }

    mutating func options() -> ComparisonOptions {
        var options: ComparisonOptions = []
        if random.chance(0.3) { options.insert(.caseInsensitive) }
        if random.chance(0.3) { options.insert(.diacriticInsensitive) }
        if random.chance(0.05) { options.insert(.normalized) }
        return options
    }

    mutating func constant(_ type: AttributeType) -> PredicateValue {
        if random.chance(0.06) { return .null }
        if random.chance(0.06) {
            // A constant of another kind: never equal, never ordered.
            return random.pick([.string("1"), .integer(1), .double(1.5), .bool(true), .date(ValuePool.dates[1]), .data(Data([1]))])
        }
        switch type {
        case .string: return .string(random.pick(ValuePool.strings))
        case .int16, .int32, .int64:
            if random.chance(0.2) { return .double(random.pick(ValuePool.doubles)) }
            if random.chance(0.1) { return .decimal(random.pick(ValuePool.decimals)) }
            if random.chance(0.05) { return .bool(random.chance(0.5)) }
            return .integer(random.pick(ValuePool.integers + [0, 1, 2, 3]))
        case .double, .float:
            if random.chance(0.2) { return .integer(random.pick(ValuePool.integers)) }
            if random.chance(0.1) { return .decimal(random.pick(ValuePool.decimals)) }
            return .double(random.pick(ValuePool.doubles))
        case .decimal:
            if random.chance(0.25) { return .integer(random.pick(ValuePool.integers)) }
            if random.chance(0.2) { return .double(random.pick(ValuePool.doubles)) }
            return .decimal(random.pick(ValuePool.decimals))
        case .bool:
            return random.chance(0.2) ? .integer(random.pick([0, 1, 2])) : .bool(random.chance(0.5))
        case .date: return .date(random.pick(ValuePool.dates))
        case .binary, .transformable: return .data(random.pick(ValuePool.binaries))
        case .uuid: return random.chance(0.1) ? .string(ValuePool.uuids[0].uuidString) : .uuid(random.pick(ValuePool.uuids))
        case .uri: return .uri(random.pick(ValuePool.urls))
        }
    }

    /// Another key path of a comparable (or deliberately not comparable) type.
    mutating func otherPath(_ type: AttributeType) -> [String] {
        let numeric: [[String]] = [["count"], ["small"], ["ratio"], ["weight"], ["price"], ["flag"], ["owner", "age"], ["owner", "score"], ["next", "ratio"], ["next", "price"], ["tags", "@count"], ["tags", "@sum", "rank"]]
        switch type {
        case .string: return random.pick([["name"], ["extra"], ["owner", "name"], ["next", "name"], ["tags", "@max", "label"]])
        case .int16, .int32, .int64, .double, .float, .decimal, .bool: return random.pick(numeric)
        case .date: return random.pick([["when"], ["related", "@min", "when"]])
        case .binary, .transformable: return [random.chance(0.5) ? "blob" : "name"]
        case .uuid: return ["uid"]
        case .uri: return ["link"]
        }
    }

    mutating func scalarComparison(_ path: Path) -> FetchPredicate {
        let left = FetchExpression.keyPath(path.keyPath)
        let modifier: ComparisonModifier = path.toMany ? random.pick([.direct, .any, .all, .none]) : (random.chance(0.08) ? random.pick([.any, .all, .none]) : .direct)
        var operators: [ComparisonOperator] = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between, .in]
        if path.type == .string { operators += [.contains, .beginsWith, .endsWith, .like, .matches, .contains, .beginsWith, .like] }
        if random.chance(0.04) { operators += [.contains, .like] }
        let op = random.pick(operators)
        let options = path.type == .string || random.chance(0.1) ? self.options() : []
        let right: FetchExpression
        switch op {
        case .between:
            let a = constant(path.type), b = constant(path.type)
            right = random.chance(0.8) ? .constant(.array([a, b])) : .array([.constant(a), .keyPath(otherPath(path.type))])
        case .in:
            if path.type == .string && random.chance(0.15) {
                right = .constant(constant(.string))
            } else if random.chance(0.12) {
                right = .keyPath(random.pick([["tags", "label"], ["parts", "size"], ["related", "count"], ["owner", "items", "name"]]))
            } else {
                right = .constant(.array((0..<Int.random(in: 0...4, using: &random)).map { _ in constant(path.type) }))
            }
        case .like:
            right = .constant(random.chance(0.9) ? .string(random.pick(ValuePool.likePatterns)) : constant(path.type))
        case .matches:
            right = .constant(.string(random.pick(ValuePool.regexPatterns)))
        default:
            if random.chance(0.15) {
                right = .keyPath(otherPath(path.type))
            } else {
                right = .constant(constant(path.type))
            }
        }
        if random.chance(0.05) && op != .between && op != .in {
            // Constant on the left, key path on the right.
            return .comparison(Comparison(right, op, left, modifier: .direct, options: options))
        }
        return .comparison(Comparison(left, op, right, modifier: modifier, options: options))
    }

    mutating func objectComparison() -> FetchPredicate {
        let item = FetchExpression.constant(.object(random.pick(items)))
        let owner = FetchExpression.constant(.object(random.pick(owners)))
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return .comparison(Comparison(.evaluatedObject, random.pick([.equal, .notEqual]), item))
        case 1: return .comparison(Comparison(.keyPath(["owner"]), random.pick([.equal, .notEqual, .lessThan]), random.chance(0.2) ? .constant(.null) : owner))
        case 2: return .comparison(Comparison(.keyPath(["next"]), random.pick([.equal, .notEqual]), random.pick([item, .evaluatedObject, .constant(.null)])))
        case 3: return .comparison(Comparison(.keyPath(["related"]), .contains, item))
        case 4: return .comparison(Comparison(item, .in, .keyPath(["related"])))
        case 5: return .comparison(Comparison(.evaluatedObject, .in, .constant(.array((0..<3).map { _ in .object(random.pick(items)) }))))
        case 6: return .comparison(Comparison(.keyPath(["next", "owner"]), random.pick([.equal, .notEqual]), .keyPath(["owner"])))
        case 7: return .comparison(Comparison(.keyPath(["owner"]), .in, .constant(.array([.object(random.pick(owners)), .null]))))
        default: return .comparison(Comparison(.keyPath(["next", "next"]), random.pick([.equal, .notEqual, .greaterThan]), .evaluatedObject))
        }
    }

    mutating func subquery() -> FetchPredicate {
        let inner: FetchPredicate
        let collection: FetchExpression
        let variable: String
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            collection = .keyPath(["tags"])
            variable = "t"
            inner = .comparison(Comparison(.variable("t", ["rank"]), random.pick([.greaterThan, .lessThan, .equal]), .constant(constant(.int64))))
        case 1:
            collection = .keyPath(["parts"])
            variable = "p"
            inner = .and([
                .comparison(Comparison(.keyPath(["size"]), .greaterThan, .constant(constant(.int64)))),
                .comparison(Comparison(.variable("p", ["label"]), .beginsWith, .constant(.string(random.pick(ValuePool.strings))), options: options())),
            ])
        case 2:
            collection = .keyPath(["related"])
            variable = "r"
            inner = .comparison(Comparison(.variable("r", ["tags", "label"]), .equal, .constant(constant(.string)), modifier: .any))
        default:
            collection = .keyPath(["owner", "items"])
            variable = "o"
            inner = .not(.comparison(Comparison(.variable("o", ["ratio"]), .lessThan, .constant(constant(.double)))))
        }
        let subquery = FetchExpression.subquery(collection: collection, variable: variable, predicate: inner, keyPath: ["@count"])
        return .comparison(Comparison(subquery, random.pick([.equal, .greaterThan, .lessThan, .notEqual]), .constant(.integer(Int64.random(in: 0...2, using: &random)))))
    }

    public mutating func sortDescriptors() -> [FetchSortDescriptor] {
        let keys = ["name", "count", "small", "ratio", "weight", "price", "flag", "when", "blob", "uid", "link", "extra", "owner.name", "owner", "next.ratio", "next.owner.age", "next"]
        return (0..<Int.random(in: 0...2, using: &random)).map { _ in
            FetchSortDescriptor(
                random.pick(keys), ascending: random.chance(0.5),
                comparison: random.pick([.default, .default, .caseInsensitive, .localizedStandard]))
        }
    }
}
