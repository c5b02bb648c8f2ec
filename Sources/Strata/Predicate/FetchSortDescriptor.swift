/// One key of a fetch's order: a key path (through to-one relationships), a direction, and how
/// strings compare.
///
/// nil sorts before every value when ascending. Values of different kinds (which a valid model
/// never mixes in one key) sort by kind.
public struct FetchSortDescriptor: Sendable, Hashable {
    public enum StringComparison: String, Sendable, Hashable {
        /// Swift `String` order (Unicode scalar order of the canonical composition).
        case `default`
        /// Case-insensitive, then `default` to break ties.
        case caseInsensitive
        /// Finder-style: numbers inside strings compare by value ("file2" before "file10"),
        /// letters ignore case and diacritics.
        case localizedStandard
    }

    public var keyPath: String
    public var ascending: Bool
    public var comparison: StringComparison

    public init(_ keyPath: String, ascending: Bool = true, comparison: StringComparison = .default) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    public var keyPathComponents: [String] {
        keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// -1, 0 or 1 for two values of this key, direction included.
    package func compare(_ a: PredicateValue, _ b: PredicateValue) -> Int {
        let order = Self.ascendingOrder(a, b, comparison)
        return ascending ? order : -order
    }

    private static func ascendingOrder(_ a: PredicateValue, _ b: PredicateValue, _ comparison: StringComparison) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.string(let x), .string(let y)):
            switch comparison {
            case .default:
                return StringMatching.compare(x, y, [])
            case .caseInsensitive:
                let folded = StringMatching.compare(x, y, .caseInsensitive)
                return folded != 0 ? folded : StringMatching.compare(x, y, [])
            case .localizedStandard:
                return StringMatching.localizedStandardCompare(x, y)
            }
        default:
            if let order = PredicateEvaluator<Never>.order(a, b, []) { return order }
            // NaN sorts after every number; otherwise order by kind.
            let (ra, rb) = (rank(a), rank(b))
            if ra != rb { return ra < rb ? -1 : 1 }
            if case .double(let x) = a, case .double(let y) = b { return x.isNaN == y.isNaN ? 0 : x.isNaN ? 1 : -1 }
            return 0
        }
    }

    private static func rank(_ value: PredicateValue) -> Int {
        switch value {
        case .null: 0
        case .bool, .integer, .decimal: 1
        case .double(let d): d.isNaN ? 2 : 1
        case .date: 3
        case .string: 4
        case .data: 5
        case .uuid: 6
        case .uri: 7
        case .object: 8
        case .array: 9
        }
    }
}
