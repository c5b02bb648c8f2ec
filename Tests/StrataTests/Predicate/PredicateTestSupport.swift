import Strata

// Foundation declares `Predicate` and `Expression` too; these make the test module's names win.
typealias Predicate = Strata.Predicate
typealias Expression = Strata.Expression

/// A comparison tree written out in full, independent of the builder under test.
func comparison(
    _ left: Expression, _ op: ComparisonOperator, _ right: Expression,
    _ modifier: ComparisonModifier = .direct, options: ComparisonOptions = []
) -> Predicate {
    .comparison(Comparison(left, op, right, modifier: modifier, options: options))
}

/// `key == value`, the comparison most tests need.
func equal(_ key: String, _ value: PredicateValue) -> Predicate {
    comparison(.key(key), .equal, .constant(value))
}

/// SplitMix64: a small, fast, seeded generator, so that every run tests the same cases.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
