extension FetchPredicate {
    /// A copy with its `$variables` replaced by values, as `NSPredicate`'s
    /// `withSubstitutionVariables(_:)`: parse a predicate once, fill it in for each use.
    ///
    /// ```swift
    /// let template = try FetchPredicate(format: "year >= $from AND author.name IN $names")
    /// let p = template.withSubstitutionVariables(["from": 1900, "names": ["Woolf", "Mann"]])
    /// // year >= 1900 AND author.name IN CAST({"Woolf", "Mann"}, "NSArray")
    /// ```
    /// A variable followed by a key path (`$list.@count`) becomes the value of that key path on
    /// the value (a collection operator on an array; any other key of a value is nil). The
    /// variable of a `SUBQUERY` is not replaced inside it, even when `variables` has its name.
    /// A variable `variables` lacks stays: evaluating or fetching with it is an error that names
    /// it (see ``substitutionVariableNames``).
    public func withSubstitutionVariables(_ variables: [String: any PredicateArgument]) -> FetchPredicate {
        rewritten(Self.substitution(variables))
    }

    /// The transform that replaces free variables by their values.
    fileprivate static func substitution(_ variables: [String: any PredicateArgument]) -> (FetchExpression, Set<String>) -> FetchExpression? {
        let values = variables.mapValues(\.predicateValue)
        return { expression, bound in
            guard case .variable(let name, let path) = expression, !bound.contains(name), let value = values[name] else { return nil }
            return .constant(PredicateEvaluator<Never>.value(ofKeyPath: path, on: value))
        }
    }

    /// The names of the `$variables` that still need a value (those of SUBQUERYs excluded).
    public var substitutionVariableNames: Set<String> {
        var names: Set<String> = []
        _ = rewritten { expression, bound in
            if case .variable(let name, _) = expression, !bound.contains(name) { names.insert(name) }
            return nil
        }
        return names
    }

    /// The predicate with expressions replaced by `transform` (which returns nil to keep one and
    /// look inside it), given the variables SUBQUERYs bind around it.
    func rewritten(_ transform: (FetchExpression, Set<String>) -> FetchExpression?) -> FetchPredicate {
        rewritten(transform, bound: [], depth: 0)
    }

    fileprivate func rewritten(_ transform: (FetchExpression, Set<String>) -> FetchExpression?, bound: Set<String>, depth: Int) -> FetchPredicate {
        // Past the depth every store refuses, the rest is left as it is for them to refuse.
        guard depth < FetchPredicate.maximumDepth else { return self }
        switch self {
        case .constant:
            return self
        case .comparison(var comparison):
            comparison.left = comparison.left.rewritten(transform, bound: bound, depth: depth)
            comparison.right = comparison.right.rewritten(transform, bound: bound, depth: depth)
            return .comparison(comparison)
        case .and(let operands):
            return .and(operands.map { $0.rewritten(transform, bound: bound, depth: depth + 1) })
        case .or(let operands):
            return .or(operands.map { $0.rewritten(transform, bound: bound, depth: depth + 1) })
        case .not(let operand):
            return .not(operand.rewritten(transform, bound: bound, depth: depth + 1))
        }
    }
}

extension FetchExpression {
    /// A copy with its `$variables` replaced by values; see
    /// ``FetchPredicate/withSubstitutionVariables(_:)``.
    public func withSubstitutionVariables(_ variables: [String: any PredicateArgument]) -> FetchExpression {
        rewritten(FetchPredicate.substitution(variables), bound: [], depth: 0)
    }

    fileprivate func rewritten(_ transform: (FetchExpression, Set<String>) -> FetchExpression?, bound: Set<String>, depth: Int) -> FetchExpression {
        if let replaced = transform(self, bound) { return replaced }
        guard depth < FetchPredicate.maximumDepth else { return self }
        switch self {
        case .constant, .keyPath, .evaluatedObject, .variable:
            return self
        case .array(let elements):
            return .array(elements.map { $0.rewritten(transform, bound: bound, depth: depth + 1) })
        case .subquery(let collection, let variable, let predicate, let path):
            return .subquery(
                collection: collection.rewritten(transform, bound: bound, depth: depth + 1), variable: variable,
                predicate: predicate.rewritten(transform, bound: bound.union([variable]), depth: depth + 1), keyPath: path)
        case .function(let function, let arguments):
            return .function(function, arguments.map { $0.rewritten(transform, bound: bound, depth: depth + 1) })
        case .index(let collection, let index, let path):
            var newIndex = index
            if case .position(let position) = index { newIndex = .position(position.rewritten(transform, bound: bound, depth: depth + 1)) }
            return .index(collection.rewritten(transform, bound: bound, depth: depth + 1), newIndex, keyPath: path)
        }
    }
}
