internal import Foundation

extension PredicateFunction {
    /// The function of one value per argument: the one definition the evaluator and the SQLite
    /// store's `strata_function` share (see the type's documentation for the rules). Not for the
    /// aggregates, `now` or `noindex:`, which the evaluator handles around it.
    package func apply(_ arguments: [PredicateValue]) -> PredicateValue {
        guard arguments.count == arity else { return .null }
        switch self {
        case .add, .subtract, .multiply, .divide, .modulus, .raise:
            return Self.normalized(Self.arithmetic(self, arguments[0], arguments[1]))
        default:
            return Self.normalized(unary(arguments[0]))
        }
    }

    private func unary(_ value: PredicateValue) -> PredicateValue {
        switch self {
        case .lowercase, .uppercase, .length:
            guard case .string(let string) = value else { return .null }
            switch self {
            case .lowercase: return .string(string.lowercased())
            case .uppercase: return .string(string.uppercased())
            default: return .integer(Int64(string.count))
            }
        case .negate:
            switch Number(value) {
            case .integer(let i)?:
                let (negated, overflow) = Int64(0).subtractingReportingOverflow(i)
                return overflow ? .double(-Double(i)) : .integer(negated)
            case .decimal(let d)?: return .decimal(-d)
            case .double(let d)?: return .double(-d)
            case nil: return .null
            }
        case .abs:
            switch Number(value) {
            case .integer(let i)?: return i == .min ? .double(-Double(i)) : .integer(Swift.abs(i))
            case .decimal(let d)?: return .decimal(d < 0 ? -d : d)
            case .double(let d)?: return .double(Swift.abs(d))
            case nil: return .null
            }
        case .floor, .ceiling, .trunc:
            switch Number(value) {
            case .integer(let i)?: return .integer(i)
            case .decimal(let d)?: return .decimal(rounded(d))
            case .double(let d)?: return .double(d.rounded(roundingRule))
            case nil: return .null
            }
        case .sqrt, .log, .ln, .exp:
            guard let x = Number(value)?.double else { return .null }
            switch self {
            case .sqrt: return .double(x.squareRoot())
            case .log: return .double(Foundation.log10(x))
            case .ln: return .double(Foundation.log(x))
            default: return .double(Foundation.exp(x))
            }
        default:
            return .null
        }
    }

    private var roundingRule: FloatingPointRoundingRule {
        switch self {
        case .floor: .down
        case .ceiling: .up
        default: .towardZero
        }
    }

    /// A decimal rounded to a whole number by ``roundingRule``.
    private func rounded(_ decimal: Decimal) -> Decimal {
        var value = decimal
        var result = Decimal()
        let mode: NSDecimalNumber.RoundingMode
        switch roundingRule {
        case .down: mode = .down
        case .up: mode = .up
        default: mode = decimal < 0 ? .up : .down
        }
        NSDecimalRound(&result, &value, 0, mode)
        return result
    }

    private static func arithmetic(_ function: PredicateFunction, _ a: PredicateValue, _ b: PredicateValue) -> PredicateValue {
        if let date = dateArithmetic(function, a, b) { return date }
        guard let x = Number(a), let y = Number(b) else { return .null }
        switch (x, y) {
        case (.integer(let i), .integer(let j)):
            return integerArithmetic(function, i, j)
        case (.double, _), (_, .double):
            return doubleArithmetic(function, x.double, y.double)
        default:
            return decimalArithmetic(function, x.decimal, y.decimal)
        }
    }

    /// nil when neither side is a date.
    private static func dateArithmetic(_ function: PredicateFunction, _ a: PredicateValue, _ b: PredicateValue) -> PredicateValue? {
        switch (function, a, b) {
        case (.add, .date(let date), _), (.add, _, .date(let date)):
            let other = a == .date(date) ? b : a
            guard let seconds = Number(other)?.double else { return .null }
            return .date(date.addingTimeInterval(seconds))
        case (.subtract, .date(let date), .date(let other)):
            return .double(date.timeIntervalSinceReferenceDate - other.timeIntervalSinceReferenceDate)
        case (.subtract, .date(let date), _):
            guard let seconds = Number(b)?.double else { return .null }
            return .date(date.addingTimeInterval(-seconds))
        case (_, .date, _), (_, _, .date):
            return .null
        default:
            return nil
        }
    }

    private static func integerArithmetic(_ function: PredicateFunction, _ i: Int64, _ j: Int64) -> PredicateValue {
        let result: (partialValue: Int64, overflow: Bool)
        switch function {
        case .add: result = i.addingReportingOverflow(j)
        case .subtract: result = i.subtractingReportingOverflow(j)
        case .multiply: result = i.multipliedReportingOverflow(by: j)
        case .modulus:
            guard j != 0 else { return .null }
            // Int64.min % -1 overflows in the division, not in the remainder, which is 0.
            return .integer(j == -1 ? 0 : i % j)
        default:
            return doubleArithmetic(function, Double(i), Double(j))
        }
        return result.overflow ? doubleArithmetic(function, Double(i), Double(j)) : .integer(result.partialValue)
    }

    private static func doubleArithmetic(_ function: PredicateFunction, _ x: Double, _ y: Double) -> PredicateValue {
        switch function {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        case .divide: return y == 0 ? .null : .double(x / y)
        case .modulus: return y == 0 ? .null : .double(x.truncatingRemainder(dividingBy: y))
        case .raise: return .double(Foundation.pow(x, y))
        default: return .null
        }
    }

    private static func decimalArithmetic(_ function: PredicateFunction, _ x: Decimal, _ y: Decimal) -> PredicateValue {
        switch function {
        case .add: return .decimal(x + y)
        case .subtract: return .decimal(x - y)
        case .multiply: return .decimal(x * y)
        case .divide: return y == 0 ? .null : .decimal(x / y)
        case .modulus:
            guard y != 0 else { return .null }
            var quotient = x / y
            var whole = Decimal()
            NSDecimalRound(&whole, &quotient, 0, quotient < 0 ? .up : .down)
            return .decimal(x - whole * y)
        case .raise:
            return doubleArithmetic(function, Number.decimal(x).double, Number.decimal(y).double)
        default: return .null
        }
    }

    /// A non-finite date is nil; a decimal NaN (an overflow, or NaN in) is the double NaN, the
    /// one NaN every store keeps.
    private static func normalized(_ value: PredicateValue) -> PredicateValue {
        switch value {
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isFinite: .null
        case .decimal(let decimal) where decimal.isNaN: .double(.nan)
        default: value
        }
    }
}

/// A number of a predicate, by how it computes: booleans count as the integers 0 and 1.
private enum Number {
    case integer(Int64)
    case decimal(Decimal)
    case double(Double)

    init?(_ value: PredicateValue) {
        switch value {
        case .integer(let i): self = .integer(i)
        case .bool(let b): self = .integer(b ? 1 : 0)
        case .decimal(let d): self = .decimal(d)
        case .double(let d): self = .double(d)
        default: return nil
        }
    }

    var double: Double {
        switch self {
        case .integer(let i): Double(i)
        case .decimal(let d): PredicateEvaluator<Never>.doubleValue(.decimal(d)) ?? .nan
        case .double(let d): d
        }
    }

    var decimal: Decimal {
        switch self {
        case .integer(let i): Decimal(i)
        case .decimal(let d): d
        case .double(let d): Decimal(d)
        }
    }
}
