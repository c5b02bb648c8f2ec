import Foundation
@testable import Strata
import StrataTestKit

/// A comparison tree written out in full, independent of the builder under test.
func comparison(
    _ left: FetchExpression, _ op: ComparisonOperator, _ right: FetchExpression,
    _ modifier: ComparisonModifier = .direct, options: ComparisonOptions = []
) -> FetchPredicate {
    .comparison(Comparison(left, op, right, modifier: modifier, options: options))
}

/// `key == value`, the comparison most tests need.
func equal(_ key: String, _ value: PredicateValue) -> FetchPredicate {
    comparison(.key(key), .equal, .constant(value))
}


/// Random predicate trees of every shape the parser can produce, for print → parse round trips
/// and as seeds for fuzzing.
///
/// Leaves out only what the language cannot write back exactly: NaN (never equal to itself),
/// empty key paths, `.and`/`.or` of fewer than two operands, relative URLs.
struct PredicateGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    static let names = [
        "title", "name", "a", "_x", "priority2", "IN", "and", "Self", "TRUEPREDICATE", "nil", "yes", "cast",
        "SUBQUERY", "名前", "été", "e\u{301}", "1st", "ANY", "between", "size", "first", "Contains",
    ]
    static let collectionOperators = ["@count", "@sum", "@avg", "@min", "@max", "@distinctUnionOfObjects"]
    static let stringScalars: [Unicode.Scalar] = [
        "a", "Z", " ", "'", "\"", "\\", "\n", "\t", "\r", "\0", "\u{7}", "\u{7F}", "\u{85}", "%", "@", "$", "é",
        "\u{301}", "名", "😀", "\u{2028}", "\u{FEFF}", "{", ")", "#",
    ]
    static let urls = ["https://example.com/a?b=1&c=%20", "file:///tmp/x%20y", "mailto:a@b.c", "strata://S/Todo/p1"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ options: [T]) -> T { options[int(0...options.count - 1)] }

    mutating func predicate(depth: Int) -> FetchPredicate {
        switch depth <= 0 ? int(0...1) : int(0...5) {
        case 0: return chance(10) ? .constant(chance(50)) : .comparison(comparison(depth: depth - 1))
        case 1: return .comparison(comparison(depth: depth - 1))
        case 2: return .and((0..<int(2...4)).map { _ in predicate(depth: depth - 1) })
        case 3: return .or((0..<int(2...4)).map { _ in predicate(depth: depth - 1) })
        case 4: return .not(predicate(depth: depth - 1))
        default: return .comparison(comparison(depth: depth - 1))
        }
    }

    mutating func comparison(depth: Int) -> Comparison {
        let op = pick(ComparisonOperator.allCases)
        let right: FetchExpression
        if op == .between {
            switch int(0...2) {
            case 0: right = .array([expression(depth: depth - 1), expression(depth: depth - 1)])
            case 1: right = .constant(.array([value(depth: 0), value(depth: 0)]))
            default: right = keyPath()
            }
        } else {
            right = expression(depth: depth)
        }
        return Comparison(
            expression(depth: depth), op, right,
            modifier: pick([.direct, .direct, .any, .all, .none]),
            options: ComparisonOptions(rawValue: UInt8(int(0...7)))
        )
    }

    mutating func expression(depth: Int) -> FetchExpression {
        switch depth <= 0 ? int(0...3) : int(0...9) {
        case 0: return keyPath()
        case 1: return .constant(value(depth: depth))
        case 2: return .evaluatedObject
        case 3: return .variable(variableName(), path(maxCount: 2))
        case 4: return .array((0..<int(0...3)).map { _ in expression(depth: depth - 1) })
        case 5:
            return .subquery(
                collection: chance(70) ? keyPath() : .variable(variableName(), path(maxCount: 1)),
                variable: variableName(), predicate: predicate(depth: depth - 1),
                keyPath: chance(70) ? ["@count"] : path(maxCount: 2)
            )
        case 7, 8:
            let function = pick(PredicateFunction.allCases)
            return .function(function, (0..<function.arity).map { _ in expression(depth: depth - 1) })
        case 9:
            let index: PredicateIndex = switch int(0...3) {
            case 0: .first
            case 1: .last
            case 2: .size
            default: .position(expression(depth: depth - 1))
            }
            return .index(expression(depth: depth - 1), index, keyPath: chance(30) ? path(maxCount: 2) : [])
        default: return .constant(value(depth: depth))
        }
    }

    mutating func keyPath() -> FetchExpression {
        var components = path(maxCount: 3)
        if components.isEmpty { components = [pick(Self.names)] }
        return .keyPath(components)
    }

    mutating func path(maxCount: Int) -> [String] {
        (0..<int(0...maxCount)).map { _ in chance(20) ? pick(Self.collectionOperators) : pick(Self.names) }
    }

    mutating func variableName() -> String {
        pick(Self.names.filter { $0.first?.isNumber == false })
    }

    mutating func value(depth: Int) -> PredicateValue {
        switch int(0...(depth <= 0 ? 10 : 11)) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .integer(pick([0, 1, -1, .max, .min, Int64.random(in: .min ... .max, using: &random)]))
        case 3: return .double(double())
        case 4:
            let significand = Decimal(UInt64.random(in: 0...UInt64.max, using: &random))
            return .decimal(Decimal(sign: chance(50) ? .plus : .minus, exponent: int(-20...20), significand: significand))
        case 5: return .string(string())
        case 6: return .date(Date(timeIntervalSinceReferenceDate: double()))
        case 7: return .data(Data((0..<int(0...8)).map { _ in UInt8(int(0...255)) }))
        case 8:
            var hex = String(random.next(), radix: 16) + String(random.next(), radix: 16)
            hex = String(repeating: "0", count: 32 - hex.count) + hex
            for index in [8, 13, 18, 23] { hex.insert("-", at: hex.index(hex.startIndex, offsetBy: index)) }
            return .uuid(UUID(uuidString: hex)!)
        case 9: return .uri(URL(string: pick(Self.urls))!)
        case 10:
            if chance(50) { return .object(ObjectID(temporaryFor: pick(["Todo", "Tag"]))) }
            let store = "6F1C1B5A-9D0E-4C2B-8E3F-0A1B2C3D4E5F"
            return .object(ObjectID(entityName: pick(["Todo", "Tag"]), storeIdentifier: store, primaryKey: Int64(int(0...1_000_000))))
        default: return .array((0..<int(0...3)).map { _ in value(depth: depth - 1) })
        }
    }

    mutating func double() -> Double {
        switch int(0...5) {
        case 0: return Double(int(-1000...1000))
        case 1: return Double(int(-1_000_000...1_000_000)) / 1000
        case 2: return pick([0.0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1 + 0.2])
        default:
            let value = Double(bitPattern: random.next())
            return value.isNaN ? 1.5 : value
        }
    }

    mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<int(0...6) { scalars.append(pick(Self.stringScalars)) }
        return String(scalars)
    }
}
