import Foundation
import StrataTestKit
import Testing
@testable import Strata

/// The parser must throw or parse on any input, never trap or overflow the stack; what it parses
/// must print back as text that parses to the same printed form.
@Suite struct PredicateParserFuzzTests {
    static let fragments = [
        "(", ")", "{", "}", "[", "]", ",", ".", "'", "\"", "\\", "%", "@", "$", "#", "=", "!", "<", ">", "&", "|",
        "-", "+", "*", " ", " ", " ", "\t", "\n", "0", "1", "9", "x", "e", "E", "a", "_", "é", "\u{301}", "😀", "\0",
        "AND", "OR", "NOT", "&&", "||", "==", "!=", "<=", ">=", "=>", "<>", "ANY", "ALL", "NONE", "SOME", "IN",
        "CONTAINS", "BEGINSWITH", "LIKE", "MATCHES", "BETWEEN", "[cd]", "[n]", "SUBQUERY(", "CAST(", "'NSDate'",
        "'NSArray'", "'NSDecimalNumber'", "SELF", "self", "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "NO", "NIL",
        "%@", "%K", "%d", "%f", "%s", "%ld", "$x", "$x.name", "@count", ".@sum", "#IN", "name", "tags.name", "0x1F",
        "0b2", "1e", "1e5", "-", "2.5", "9223372036854775808", "'str'", "\"q\\\"\"", "'\\u00e9'", "'\\uD800'", "{1, 2}",
    ]

    static let arguments: [[PredicateValue]] = [
        [], ["name"], [1], ["name", 2.5], [[1, 2], "tags.name", nil], ["a.b", "x", 3, .decimal(1)],
    ]

    /// Parses with every argument list; checks the error's column, or that the result prints back.
    func check(_ format: String) {
        for arguments in Self.arguments {
            do {
                let predicate = try FetchPredicate(format: format, argumentArray: arguments)
                let printed = predicate.description
                do {
                    #expect(try FetchPredicate(format: printed).description == printed, "\(format) → \(printed)")
                } catch {
                    Issue.record("\(format) parsed, but its printed form \(printed) did not: \(error)")
                }
            } catch {
                #expect((1...format.count + 1).contains(error.column), "\(format): column \(error.column)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test(arguments: [11, 12] as [UInt64])
    func randomFragments(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<1_000 {
            let count = Int.random(in: 0...24, using: &random)
            check((0..<count).map { _ in Self.fragments.randomElement(using: &random)! }.joined())
        }
    }

    static let operands = [
        "a", "tags.name", "books.@count", "SELF", "$x", "%@", "%K", "%d", "'s'", "\"q\"", "1", "-2.5", "0x1F", "NIL", "YES",
        "{1, a}", "{}", "CAST(0, 'NSDate')", "CAST('1.5', 'NSDecimalNumber')", "SUBQUERY(tags, $t, $t.n == 1).@count",
        "#IN", "@count", "(", ")", "ANY a", "ALL", "{", "NOT",
    ]
    static let operators = [
        "==", "=", "!=", "<>", "<", "=<", ">=", "IN", "CONTAINS[c]", "BEGINSWITH[cd]", "LIKE", "MATCHES[n]", "BETWEEN",
        "ENDSWITH", "[c]", "AND", "",
    ]
    static let connectives = [" AND ", " OR ", " && ", " || ", " AND NOT ", " OR (", ") AND ", " ", ""]

    /// Sequences shaped like predicates, with a wrong piece here and there: many of them parse.
    @Test(arguments: [13, 14] as [UInt64])
    func predicateShapedFragments(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            var format = ""
            for index in 0..<Int.random(in: 1...4, using: &random) {
                if index > 0 { format += Self.connectives.randomElement(using: &random)! }
                format += Self.operands.randomElement(using: &random)! + " "
                format += Self.operators.randomElement(using: &random)! + " "
                format += Self.operands.randomElement(using: &random)!
            }
            check(format)
        }
    }

    @Test func randomBytes() {
        var random = SeededGenerator(seed: 21)
        for _ in 0..<1_000 {
            let bytes = (0..<Int.random(in: 0...32, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            check(String(decoding: bytes, as: UTF8.self))
            let ascii = bytes.map { $0 & 0x7F }
            check(String(decoding: ascii, as: UTF8.self))
        }
    }

    /// Printed generated predicates, cut, spliced and garbled.
    @Test(arguments: [31, 32] as [UInt64])
    func mutationsOfValidPredicates(seed: UInt64) {
        var generator = PredicateGenerator(seed: seed)
        var random = SeededGenerator(seed: seed &* 7)
        for _ in 0..<150 {
            let valid = Array(generator.predicate(depth: 3).description.unicodeScalars)
            for _ in 0..<4 {
                var scalars = valid
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    mutate(&scalars, using: &random)
                }
                check(String(String.UnicodeScalarView(scalars)))
            }
        }
    }

    private func mutate(_ scalars: inout [Unicode.Scalar], using random: inout SeededGenerator) {
        let position = Int.random(in: 0...scalars.count, using: &random)
        switch Int.random(in: 0...4, using: &random) {
        case 0:  // delete a run
            let end = min(scalars.count, position + Int.random(in: 1...6, using: &random))
            scalars.removeSubrange(position..<end)
        case 1:  // insert a fragment
            scalars.insert(contentsOf: Self.fragments.randomElement(using: &random)!.unicodeScalars, at: position)
        case 2:  // truncate
            scalars.removeSubrange(position...)
        case 3:  // duplicate a run
            let end = min(scalars.count, position + Int.random(in: 1...12, using: &random))
            scalars.insert(contentsOf: scalars[position..<end], at: position)
        default:  // replace one scalar
            guard position < scalars.count else { return }
            scalars[position] = Self.fragments.randomElement(using: &random)!.unicodeScalars.first ?? " "
        }
    }

    /// Far past the nesting limit in every construct that nests: an error, not a stack overflow.
    @Test(arguments: [
        ("", "(", "a == 1", ")", ""), ("", "NOT ", "a == 1", "", ""), ("", "!", "a == 1", "", ""),
        ("a IN ", "{", "", "}", ""), ("a == ", "CAST(", "1", ", 'NSNumber')", ""),
        ("", "SUBQUERY(x, $x, ", "a == 1", ").@count == 1", ""),
        ("a IN ", "{SUBQUERY(x, $x, NOT (a IN ", "{}", "))}", ""),
        ("", "(", "", "", ""), ("", "{", "", "", ""), ("x == ", "CAST(", "", "", ""),
    ])
    func deepNestingThrows(prefix: String, open: String, middle: String, close: String, suffix: String) {
        for depth in [PredicateSyntaxError.maximumNestingDepth + 1, 10_000] {
            let format = prefix + String(repeating: open, count: depth) + middle + String(repeating: close, count: depth) + suffix
            #expect {
                try FetchPredicate(format: format)
            } throws: { error in
                (error as? PredicateSyntaxError)?.code == .nestingTooDeep
            }
        }
    }

    /// Expressions nest as deeply as predicates, on the same bound, with no error but that one
    /// (and quickly: `(` is decided by looking ahead, never by trying both readings).
    @Test(arguments: [
        ("(", ")", 1), ("-", "", 1), ("abs:(", ")", 1), ("x[", "]", 1), ("2 ** ", "", 1), ("(x + ", ") * 2", 2),
        ("SUBQUERY(x, $x, (", ") > 1).@count", 2),
    ])
    func deepExpressions(open: String, close: String, levelsPerStep: Int) throws {
        func nested(_ depth: Int) -> String {
            String(repeating: open, count: depth) + "a" + String(repeating: close, count: depth) + " == 1"
        }
        let allowed = PredicateSyntaxError.maximumNestingDepth / levelsPerStep
        let predicate = try FetchPredicate(format: nested(allowed))
        #expect(try FetchPredicate(format: predicate.description) == predicate)
        for depth in [allowed + 1, 5_000] {
            #expect {
                try FetchPredicate(format: nested(depth))
            } throws: { error in
                (error as? PredicateSyntaxError)?.code == .nestingTooDeep
            }
        }
    }

    /// A run of operators or subscripts builds a tree as deep as the run is long: it counts
    /// toward the nesting limit like parentheses.
    @Test(arguments: [" + a", " * a", " - a", " / a", "[0]"])
    func longRunsOfOperatorsAreBounded(_ step: String) throws {
        let limit = PredicateSyntaxError.maximumNestingDepth
        let allowed = try FetchPredicate(format: "a" + String(repeating: step, count: limit) + " == 1")
        #expect(try FetchPredicate(format: allowed.description) == allowed)
        for count in [limit + 1, 10_000] {
            #expect {
                try FetchPredicate(format: "a" + String(repeating: step, count: count) + " == 1")
            } throws: { error in
                (error as? PredicateSyntaxError)?.code == .nestingTooDeep
            }
        }
    }

    @Test func deepestAllowedNestingParses() throws {
        let depth = PredicateSyntaxError.maximumNestingDepth
        let subqueries = String(repeating: "SUBQUERY(x, $x, ", count: depth) + "a == 1"
            + String(repeating: ").@count == 1", count: depth)
        let predicate = try FetchPredicate(format: subqueries)
        #expect(try FetchPredicate(format: predicate.description) == predicate)
        let mixed = String(repeating: "(NOT {", count: depth / 2)
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(format: mixed) }
    }

    @Test func longInputs() throws {
        let conjunction = Array(repeating: "a == 1", count: 5_000).joined(separator: " AND ")
        #expect(try FetchPredicate(format: conjunction) == .and(Array(repeating: equal("a", 1), count: 5_000)))
        let text = String(repeating: "x", count: 100_000)
        #expect(try FetchPredicate(format: "a == '\(text)'") == equal("a", .string(text)))
        let path = Array(repeating: "a", count: 10_000).joined(separator: ".")
        #expect(try FetchPredicate(format: "\(path) == 1") == equal(path, 1))
    }
}
