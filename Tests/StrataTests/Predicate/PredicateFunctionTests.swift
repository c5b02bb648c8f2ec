import Foundation
@testable import Strata
import Testing

/// ``PredicateFunction/apply(_:)``: the one definition of the functions and arithmetic that the
/// evaluator and the SQLite store share.
@Suite struct PredicateFunctionTests {
    private func apply(_ function: PredicateFunction, _ arguments: PredicateValue...) -> PredicateValue {
        function.apply(arguments)
    }

    @Test func integersStayExactUntilTheyOverflow() {
        #expect(apply(.add, 2, 3) == .integer(5))
        #expect(apply(.subtract, 2, 3) == .integer(-1))
        #expect(apply(.multiply, 4, -3) == .integer(-12))
        #expect(apply(.add, .integer(.max), 1) == .double(9.223372036854775808e18))
        #expect(apply(.multiply, .integer(.min), -1) == .double(9.223372036854775808e18))
        #expect(apply(.negate, .integer(.min)) == .double(9.223372036854775808e18))
        #expect(apply(.abs, .integer(.min)) == .double(9.223372036854775808e18))
        #expect(apply(.abs, -4) == .integer(4))
        #expect(apply(.add, true, 1) == .integer(2))
        // Two integers divide as doubles, as NSExpression.
        #expect(apply(.divide, 7, 2) == .double(3.5))
        #expect(apply(.modulus, 7, -2) == .integer(1))
        #expect(apply(.modulus, -7, 2) == .integer(-1))
        #expect(apply(.modulus, .integer(.min), -1) == .integer(0))
        #expect(apply(.raise, 2, 10) == .double(1024))
    }

    @Test func decimalsAreExactAndDoublesWin() {
        let tenth = PredicateValue.decimal(Decimal(string: "0.1")!)
        #expect(apply(.add, tenth, .decimal(Decimal(string: "0.2")!)) == .decimal(Decimal(string: "0.3")!))
        #expect(apply(.multiply, tenth, 3) == .decimal(Decimal(string: "0.3")!))
        #expect(apply(.divide, .decimal(1), 4) == .decimal(Decimal(string: "0.25")!))
        #expect(apply(.modulus, .decimal(Decimal(string: "7.5")!), 2) == .decimal(Decimal(string: "1.5")!))
        #expect(apply(.add, tenth, 0.2) == .double(0.1 + 0.2))
        #expect(apply(.add, 1, 0.5) == .double(1.5))
        #expect(apply(.floor, .decimal(Decimal(string: "-2.5")!)) == .decimal(-3))
        #expect(apply(.ceiling, .decimal(Decimal(string: "-2.5")!)) == .decimal(-2))
        #expect(apply(.trunc, .decimal(Decimal(string: "-2.5")!)) == .decimal(-2))
        #expect(apply(.trunc, .decimal(Decimal(string: "2.5")!)) == .decimal(2))
        #expect(apply(.floor, -2.5) == .double(-3))
        #expect(apply(.trunc, -2.5) == .double(-2))
        #expect(apply(.floor, 7) == .integer(7))
        #expect(apply(.negate, tenth) == .decimal(Decimal(string: "-0.1")!))
        #expect(apply(.sqrt, 9) == .double(3))
        #expect(apply(.sqrt, .decimal(Decimal(string: "2.25")!)) == .double(1.5))
        #expect(apply(.log, 1000) == .double(3))
        #expect(apply(.ln, 1) == .double(0))
        #expect(apply(.exp, 0) == .double(1))
        guard case .double(let root) = apply(.sqrt, -1) else {
            Issue.record("sqrt:(-1) is not a double")
            return
        }
        #expect(root.isNaN)
    }

    @Test func divisionByZeroIsNil() {
        #expect(apply(.divide, 1, 0) == .null)
        #expect(apply(.divide, 1.5, -0.0) == .null)
        #expect(apply(.divide, .decimal(1), .decimal(0)) == .null)
        #expect(apply(.modulus, 1, 0) == .null)
        #expect(apply(.modulus, 1.5, 0) == .null)
        #expect(apply(.modulus, .decimal(1), 0) == .null)
    }

    @Test func nilAndWrongKindsGiveNil() {
        for function in PredicateFunction.allCases where !function.isAggregate && function != .now && function != .noindex {
            let arguments = Array(repeating: PredicateValue.null, count: function.arity)
            #expect(function.apply(arguments) == .null, "\(function) of nil")
        }
        #expect(apply(.add, 1, "a") == .null)
        #expect(apply(.abs, "a") == .null)
        #expect(apply(.lowercase, 3) == .null)
        #expect(apply(.length, .data(Data([1]))) == .null)
        #expect(apply(.add, .object(ObjectID(temporaryFor: "Book")), 1) == .null)
        // The wrong number of arguments (only code can build it) is nil, not a crash.
        #expect(PredicateFunction.add.apply([1]) == .null)
    }

    @Test func datesMoveBySeconds() {
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        #expect(apply(.add, .date(date), 60) == .date(Date(timeIntervalSinceReferenceDate: 1060)))
        #expect(apply(.add, 0.5, .date(date)) == .date(Date(timeIntervalSinceReferenceDate: 1000.5)))
        #expect(apply(.subtract, .date(date), .decimal(Decimal(string: "0.25")!)) == .date(Date(timeIntervalSinceReferenceDate: 999.75)))
        #expect(apply(.subtract, .date(date), .date(Date(timeIntervalSinceReferenceDate: 400))) == .double(600))
        #expect(apply(.subtract, 5, .date(date)) == .null)
        #expect(apply(.multiply, .date(date), 2) == .null)
        #expect(apply(.add, .date(date), .double(.infinity)) == .null)
    }

    @Test func strings() {
        #expect(apply(.lowercase, "ÉCOLE Straße") == .string("école straße"))
        #expect(apply(.uppercase, "straße") == .string("STRASSE"))
        // Characters, so that canonically equivalent strings have one length.
        #expect(apply(.length, "e\u{301}te\u{301}") == .integer(3))
        #expect(apply(.length, "été") == .integer(3))
        #expect(apply(.length, "") == .integer(0))
    }

    @Test func aggregatesOfValues() {
        #expect(PredicateEvaluator<Never>.aggregate("@median", [3, 1, 2]) == .integer(2))
        #expect(PredicateEvaluator<Never>.aggregate("@median", [4, 1, 2, 3]) == .double(2.5))
        #expect(PredicateEvaluator<Never>.aggregate("@median", ["a", 1]) == .integer(1))
        #expect(PredicateEvaluator<Never>.aggregate("@median", []) == .null)
        #expect(PredicateEvaluator<Never>.aggregate("@stddev", [2, 4, 4, 4, 5, 5, 7, 9]) == .double(2))
        #expect(PredicateEvaluator<Never>.aggregate("@stddev", []) == .null)
        #expect(PredicateEvaluator<Never>.aggregate("@count", [1, 2]) == .integer(2))
        // Decimals average exactly, to a decimal (as doubles 0.1 + 0.2 is 0.30000000000000004).
        #expect(PredicateEvaluator<Never>.aggregate("@avg", [.decimal(Decimal(string: "0.1")!), .decimal(Decimal(string: "0.2")!)]) == .decimal(Decimal(string: "0.15")!))
        #expect(PredicateEvaluator<Never>.aggregate("@avg", [.decimal(Decimal(string: "0.1")!), .integer(1)]) == .decimal(Decimal(string: "0.55")!))
        #expect(PredicateEvaluator<Never>.aggregate("@avg", [1, 2]) == .double(1.5))
        #expect(PredicateEvaluator<Never>.aggregate("@avg", [.double(0.1), .double(0.2)]) == .double((0.1 + 0.2) / 2))
        #expect(PredicateEvaluator<Never>.distinct([1, 1.0, "a", .null, "a", 2]) == [1, "a", 2])
    }

    @Test func namesAndArity() {
        #expect(PredicateFunction(name: "sum:") == .sum)
        #expect(PredicateFunction(name: "sum") == .sum)
        #expect(PredicateFunction(name: "add:to:") == .add)
        #expect(PredicateFunction(name: "now") == .now)
        #expect(PredicateFunction(name: "summ") == nil)
        #expect(PredicateFunction.now.arity == 0)
        #expect(PredicateFunction.raise.arity == 2)
        #expect(PredicateFunction.average.collectionOperator == "@avg")
        #expect(PredicateFunction.multiply.infixOperator == "*")
    }
}
