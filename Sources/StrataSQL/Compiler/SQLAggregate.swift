package import Strata

/// An aggregate of the evaluator that SQL computes (`@sum` … `@count`), by its code in SQL.
package enum SQLAggregate: Int, Sendable {
    case sum = 1, avg, min, max, median, stddev, count

    package init?(_ name: String) {
        switch name {
        case "@sum": self = .sum
        case "@avg": self = .avg
        case "@min": self = .min
        case "@max": self = .max
        case "@median": self = .median
        case "@stddev": self = .stddev
        case "@count": self = .count
        default: return nil
        }
    }

    /// The evaluator's name of the operation.
    package var name: String {
        switch self {
        case .sum: "@sum"
        case .avg: "@avg"
        case .min: "@min"
        case .max: "@max"
        case .median: "@median"
        case .stddev: "@stddev"
        case .count: "@count"
        }
    }

    /// Added to an aggregate's code: over distinct values.
    package static let distinctFlag = 16

    /// The code of a comparison operator in the evaluator's functions (its position in
    /// `ComparisonOperator.allCases`).
    package static func code(_ op: ComparisonOperator) -> Int {
        ComparisonOperator.allCases.firstIndex(of: op)!
    }
}

/// `@sum`, `@avg`, `@min` and `@max` over non-nil values: `PredicateEvaluator`'s own definition,
/// so SQL and the evaluator cannot drift apart.
package enum AggregateSemantics {
    package static func compute(_ operation: SQLAggregate, _ values: [PredicateValue], distinct: Bool) -> PredicateValue {
        let values = distinct ? PredicateEvaluator<Never>.distinct(values) : values
        return PredicateEvaluator<Never>.aggregate(operation.name, values)
    }
}
