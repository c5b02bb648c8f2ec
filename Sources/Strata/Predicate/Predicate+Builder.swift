/// Building predicates in Swift: the same trees ``Predicate/init(format:_:)`` parses.
///
/// ```swift
/// let p: Predicate = .key("priority") >= 3 && Expression.key("title").beginsWith("Buy", options: .caseInsensitive)
/// // the tree of: priority >= 3 AND title BEGINSWITH[c] "Buy"
/// let q: Predicate = .any(Expression.key("tags.name").in(["home", "work"])) || !(.key("done") == true)
/// // the tree of: ANY tags.name IN %@ OR NOT done == TRUE, with %@ = ["home", "work"]
/// ```
/// A Swift value on the right becomes a constant (`%@`); pass an ``Expression`` to compare with a
/// key path, a variable or an array literal.
extension Expression {
    /// A constant: `Expression.value(3)` is the `3` of `priority == 3`.
    public static func value(_ value: some PredicateArgument) -> Expression {
        .constant(value.predicateValue)
    }

    /// `self op right`, the general form behind the operators and methods below.
    public func compare(_ op: ComparisonOperator, _ right: Expression, options: ComparisonOptions = []) -> Predicate {
        .comparison(Comparison(self, op, right, options: options))
    }

    /// `self ==[options] value`; use `==` when there are no options.
    public func equal(_ value: some PredicateArgument, options: ComparisonOptions) -> Predicate {
        compare(.equal, .value(value), options: options)
    }

    /// `self !=[options] value`; use `!=` when there are no options.
    public func notEqual(_ value: some PredicateArgument, options: ComparisonOptions) -> Predicate {
        compare(.notEqual, .value(value), options: options)
    }

    /// `self BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: some PredicateArgument, options: ComparisonOptions = []) -> Predicate {
        compare(.beginsWith, .value(prefix), options: options)
    }

    /// `self BEGINSWITH[options] prefix`, the prefix being another expression.
    public func beginsWith(_ prefix: Expression, options: ComparisonOptions = []) -> Predicate {
        compare(.beginsWith, prefix, options: options)
    }

    /// `self ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: some PredicateArgument, options: ComparisonOptions = []) -> Predicate {
        compare(.endsWith, .value(suffix), options: options)
    }

    /// `self ENDSWITH[options] suffix`, the suffix being another expression.
    public func endsWith(_ suffix: Expression, options: ComparisonOptions = []) -> Predicate {
        compare(.endsWith, suffix, options: options)
    }

    /// `self CONTAINS[options] element`: a substring of a string, a member of a collection.
    public func contains(_ element: some PredicateArgument, options: ComparisonOptions = []) -> Predicate {
        compare(.contains, .value(element), options: options)
    }

    /// `self CONTAINS[options] element`, the element being another expression.
    public func contains(_ element: Expression, options: ComparisonOptions = []) -> Predicate {
        compare(.contains, element, options: options)
    }

    /// `self LIKE[options] pattern`: `*` matches any run of characters, `?` one character.
    public func like(_ pattern: some PredicateArgument, options: ComparisonOptions = []) -> Predicate {
        compare(.like, .value(pattern), options: options)
    }

    /// `self MATCHES[options] regex`: an ICU regular expression matching the whole string.
    public func matches(_ regex: some PredicateArgument, options: ComparisonOptions = []) -> Predicate {
        compare(.matches, .value(regex), options: options)
    }

    /// `self IN[options] collection`, the collection a Swift array or set: `.in(["home", "work"])`.
    public func `in`(_ collection: some PredicateArgument, options: ComparisonOptions = []) -> Predicate {
        compare(.in, .value(collection), options: options)
    }

    /// `self IN[options] collection`, the collection a key path or an array literal
    /// (`.array([.value(1), .key("other")])`).
    public func `in`(_ collection: Expression, options: ComparisonOptions = []) -> Predicate {
        compare(.in, collection, options: options)
    }

    /// `self BETWEEN {low, high}`, both ends included.
    public func between(_ low: some PredicateArgument, _ high: some PredicateArgument) -> Predicate {
        compare(.between, .array([.value(low), .value(high)]))
    }

    /// `self BETWEEN {low, high}` with bounds that are expressions.
    public func between(_ low: Expression, _ high: Expression) -> Predicate {
        compare(.between, .array([low, high]))
    }

    /// `self == NIL`.
    public var isNil: Predicate { compare(.equal, .constant(.null)) }

    /// `self != NIL`.
    public var isNotNil: Predicate { compare(.notEqual, .constant(.null)) }

    /// `left == right`, a constant on the right.
    public static func == (left: Expression, right: some PredicateArgument) -> Predicate {
        left.compare(.equal, .value(right))
    }

    /// `left != right`, a constant on the right.
    public static func != (left: Expression, right: some PredicateArgument) -> Predicate {
        left.compare(.notEqual, .value(right))
    }

    /// `left < right`, a constant on the right.
    public static func < (left: Expression, right: some PredicateArgument) -> Predicate {
        left.compare(.lessThan, .value(right))
    }

    /// `left <= right`, a constant on the right.
    public static func <= (left: Expression, right: some PredicateArgument) -> Predicate {
        left.compare(.lessThanOrEqual, .value(right))
    }

    /// `left > right`, a constant on the right.
    public static func > (left: Expression, right: some PredicateArgument) -> Predicate {
        left.compare(.greaterThan, .value(right))
    }

    /// `left >= right`, a constant on the right.
    public static func >= (left: Expression, right: some PredicateArgument) -> Predicate {
        left.compare(.greaterThanOrEqual, .value(right))
    }

    /// `left == right` between two expressions (where a `Bool` is expected, `==` is equality of
    /// the expressions themselves).
    public static func == (left: Expression, right: Expression) -> Predicate {
        left.compare(.equal, right)
    }

    /// `left != right` between two expressions (where a `Bool` is expected, `!=` is inequality of
    /// the expressions themselves).
    public static func != (left: Expression, right: Expression) -> Predicate {
        left.compare(.notEqual, right)
    }

    /// `left < right` between two expressions.
    public static func < (left: Expression, right: Expression) -> Predicate {
        left.compare(.lessThan, right)
    }

    /// `left <= right` between two expressions.
    public static func <= (left: Expression, right: Expression) -> Predicate {
        left.compare(.lessThanOrEqual, right)
    }

    /// `left > right` between two expressions.
    public static func > (left: Expression, right: Expression) -> Predicate {
        left.compare(.greaterThan, right)
    }

    /// `left >= right` between two expressions.
    public static func >= (left: Expression, right: Expression) -> Predicate {
        left.compare(.greaterThanOrEqual, right)
    }
}

extension Predicate {
    /// `ANY comparison`: true when the comparison holds for some member of the to-many key path
    /// on its left. `.any(Expression.key("tags.name") == "home")` is `ANY tags.name == "home"`.
    ///
    /// - Precondition: `comparison` is a comparison without a modifier.
    public static func any(_ comparison: Predicate) -> Predicate {
        comparison.modified(.any, by: "any")
    }

    /// `ALL comparison`: true when the comparison holds for every member of the to-many key path
    /// on its left.
    ///
    /// - Precondition: `comparison` is a comparison without a modifier.
    public static func all(_ comparison: Predicate) -> Predicate {
        comparison.modified(.all, by: "all")
    }

    /// `NONE comparison`: true when the comparison holds for no member of the to-many key path
    /// on its left.
    ///
    /// - Precondition: `comparison` is a comparison without a modifier.
    public static func none(_ comparison: Predicate) -> Predicate {
        comparison.modified(.none, by: "none")
    }

    private func modified(_ modifier: ComparisonModifier, by function: String) -> Predicate {
        guard case .comparison(var comparison) = self, comparison.modifier == .direct else {
            preconditionFailure("Predicate.\(function)(_:) takes one comparison without ANY, ALL or NONE, not \(self)")
        }
        comparison.modifier = modifier
        return .comparison(comparison)
    }

    /// `left AND right`. A conjunction on the left is extended, so `a && b && c` is one
    /// `.and([a, b, c])`, as the parser reads `a AND b AND c`.
    public static func && (left: Predicate, right: Predicate) -> Predicate {
        if case .and(let operands) = left { return .and(operands + [right]) }
        return .and([left, right])
    }

    /// `left OR right`. A disjunction on the left is extended, so `a || b || c` is one
    /// `.or([a, b, c])`, as the parser reads `a OR b OR c`.
    public static func || (left: Predicate, right: Predicate) -> Predicate {
        if case .or(let operands) = left { return .or(operands + [right]) }
        return .or([left, right])
    }

    /// `NOT predicate`.
    public static prefix func ! (predicate: Predicate) -> Predicate {
        .not(predicate)
    }
}
