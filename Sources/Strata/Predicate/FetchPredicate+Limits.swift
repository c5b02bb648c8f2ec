extension FetchPredicate {
    /// The most components a key path may have (`author.name` has two), in predicates and sort
    /// keys. A longer one is refused before a fetch runs, with the same error on every store.
    public static let maximumKeyPathLength = 100

    /// How deeply a predicate may nest, counted as the levels of `AND`, `OR`, `NOT`,
    /// `SUBQUERY` and arrays from its top to its deepest part. Every predicate the parser reads
    /// fits (it allows ``PredicateSyntaxError/maximumNestingDepth`` levels of parentheses and
    /// the like, at most three tree levels each); a deeper one built in code is refused before
    /// a fetch runs, with the same error on every store.
    public static let maximumDepth = 256
}

/// The errors of a predicate that is too large or cannot be evaluated: one wording, whichever
/// part of Strata finds the problem (the validator before a fetch, the evaluator or a store).
package enum PredicateLimit {
    package static func keyPathTooLong(_ path: [String]) -> StrataError {
        let shown = path.count > 6 ? path.prefix(3).joined(separator: ".") + ".….\(path.suffix(2).joined(separator: "."))" : path.joined(separator: ".")
        return StrataError(
            .invalidPredicate,
            "the key path '\(shown)' has \(path.count) components; a key path may have at most \(FetchPredicate.maximumKeyPathLength)")
    }

    package static var tooDeep: StrataError {
        StrataError(
            .invalidPredicate,
            "the predicate nests more than \(FetchPredicate.maximumDepth) levels deep (AND, OR, NOT, SUBQUERY and arrays); flatten it, for example with IN instead of nested ORs")
    }

    package static func unboundVariable(_ name: String) -> StrataError {
        StrataError(
            .invalidPredicate,
            "the predicate has the variable $\(name), which has no value; give it one with withSubstitutionVariables([\"\(name)\": …]) before evaluating or fetching")
    }

    package static func wrongArity(_ function: PredicateFunction, _ count: Int) -> StrataError {
        StrataError(.invalidPredicate, "\(function.rawValue) takes \(function.arity) argument\(function.arity == 1 ? "" : "s"), not \(count)")
    }

    package static func regexFailed(_ failure: RegexRule.Failure) -> StrataError {
        StrataError(.invalidPredicate, "MATCHES failed: \(failure.reason)")
    }

    /// Throws when `path` is longer than ``FetchPredicate/maximumKeyPathLength``.
    package static func check(_ path: [String]) throws(StrataError) {
        if path.count > FetchPredicate.maximumKeyPathLength { throw keyPathTooLong(path) }
    }

    /// How deeply a constant nests arrays, counted up to `limit + 1`.
    package static func depth(of value: PredicateValue, limit: Int) -> Int {
        guard case .array(let members) = value else { return 0 }
        guard limit > 0 else { return 1 }
        var deepest = 0
        for member in members { deepest = max(deepest, depth(of: member, limit: limit - 1)) }
        return 1 + deepest
    }
}
