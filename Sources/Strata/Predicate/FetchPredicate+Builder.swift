/// Building predicates in Swift: the same trees ``FetchPredicate/init(format:_:)`` parses.
///
/// ```swift
/// let p: FetchPredicate = .key("priority") >= 3 && FetchExpression.key("title").beginsWith("Buy", options: .caseInsensitive)
/// // the tree of: priority >= 3 AND title BEGINSWITH[c] "Buy"
/// let q: FetchPredicate = .any(FetchExpression.key("tags.name").in(["home", "work"])) || !(.key("done") == true)
/// // the tree of: ANY tags.name IN %@ OR NOT done == TRUE, with %@ = ["home", "work"]
/// ```
/// A Swift value on the right becomes a constant (`%@`); pass an ``FetchExpression`` to compare with a
/// key path, a variable or an array literal.
extension FetchExpression {
    /// A constant: `FetchExpression.value(3)` is the `3` of `priority == 3`.
    public static func value(_ value: some PredicateArgument) -> FetchExpression {
        .constant(value.predicateValue)
    }

    /// `self op right`, the general form behind the operators and methods below.
    public func compare(_ op: ComparisonOperator, _ right: FetchExpression, options: ComparisonOptions = []) -> FetchPredicate {
        .comparison(Comparison(self, op, right, options: options))
    }

    /// `self ==[options] value`; use `==` when there are no options.
    public func equal(_ value: some PredicateArgument, options: ComparisonOptions) -> FetchPredicate {
        compare(.equal, .value(value), options: options)
    }

    /// `self !=[options] value`; use `!=` when there are no options.
    public func notEqual(_ value: some PredicateArgument, options: ComparisonOptions) -> FetchPredicate {
        compare(.notEqual, .value(value), options: options)
    }

    /// `self BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: some PredicateArgument, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.beginsWith, .value(prefix), options: options)
    }

    /// `self BEGINSWITH[options] prefix`, the prefix being another expression.
    public func beginsWith(_ prefix: FetchExpression, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.beginsWith, prefix, options: options)
    }

    /// `self ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: some PredicateArgument, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.endsWith, .value(suffix), options: options)
    }

    /// `self ENDSWITH[options] suffix`, the suffix being another expression.
    public func endsWith(_ suffix: FetchExpression, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.endsWith, suffix, options: options)
    }

    /// `self CONTAINS[options] element`: a substring of a string, a member of a collection.
    public func contains(_ element: some PredicateArgument, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.contains, .value(element), options: options)
    }

    /// `self CONTAINS[options] element`, the element being another expression.
    public func contains(_ element: FetchExpression, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.contains, element, options: options)
    }

    /// `self LIKE[options] pattern`: `*` matches any run of characters, `?` one character.
    public func like(_ pattern: some PredicateArgument, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.like, .value(pattern), options: options)
    }

    /// `self MATCHES[options] regex`: an ICU regular expression matching the whole string.
    public func matches(_ regex: some PredicateArgument, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.matches, .value(regex), options: options)
    }

    /// `self IN[options] collection`, the collection a Swift array or set: `.in(["home", "work"])`.
    public func `in`(_ collection: some PredicateArgument, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.in, .value(collection), options: options)
    }

    /// `self IN[options] collection`, the collection a key path or an array literal
    /// (`.array([.value(1), .key("other")])`).
    public func `in`(_ collection: FetchExpression, options: ComparisonOptions = []) -> FetchPredicate {
        compare(.in, collection, options: options)
    }

    /// `self BETWEEN {low, high}`, both ends included.
    public func between(_ low: some PredicateArgument, _ high: some PredicateArgument) -> FetchPredicate {
        compare(.between, .array([.value(low), .value(high)]))
    }

    /// `self BETWEEN {low, high}` with bounds that are expressions.
    public func between(_ low: FetchExpression, _ high: FetchExpression) -> FetchPredicate {
        compare(.between, .array([low, high]))
    }

    /// `self == NIL`.
    public var isNil: FetchPredicate { compare(.equal, .constant(.null)) }

    /// `self != NIL`.
    public var isNotNil: FetchPredicate { compare(.notEqual, .constant(.null)) }

    /// `left == right`, a constant on the right.
    public static func == (left: FetchExpression, right: some PredicateArgument) -> FetchPredicate {
        left.compare(.equal, .value(right))
    }

    /// `left != right`, a constant on the right.
    public static func != (left: FetchExpression, right: some PredicateArgument) -> FetchPredicate {
        left.compare(.notEqual, .value(right))
    }

    /// `left < right`, a constant on the right.
    public static func < (left: FetchExpression, right: some PredicateArgument) -> FetchPredicate {
        left.compare(.lessThan, .value(right))
    }

    /// `left <= right`, a constant on the right.
    public static func <= (left: FetchExpression, right: some PredicateArgument) -> FetchPredicate {
        left.compare(.lessThanOrEqual, .value(right))
    }

    /// `left > right`, a constant on the right.
    public static func > (left: FetchExpression, right: some PredicateArgument) -> FetchPredicate {
        left.compare(.greaterThan, .value(right))
    }

    /// `left >= right`, a constant on the right.
    public static func >= (left: FetchExpression, right: some PredicateArgument) -> FetchPredicate {
        left.compare(.greaterThanOrEqual, .value(right))
    }

    /// `left == right` between two expressions (where a `Bool` is expected, `==` is equality of
    /// the expressions themselves).
    public static func == (left: FetchExpression, right: FetchExpression) -> FetchPredicate {
        left.compare(.equal, right)
    }

    /// `left != right` between two expressions (where a `Bool` is expected, `!=` is inequality of
    /// the expressions themselves).
    public static func != (left: FetchExpression, right: FetchExpression) -> FetchPredicate {
        left.compare(.notEqual, right)
    }

    /// `left < right` between two expressions.
    public static func < (left: FetchExpression, right: FetchExpression) -> FetchPredicate {
        left.compare(.lessThan, right)
    }

    /// `left <= right` between two expressions.
    public static func <= (left: FetchExpression, right: FetchExpression) -> FetchPredicate {
        left.compare(.lessThanOrEqual, right)
    }

    /// `left > right` between two expressions.
    public static func > (left: FetchExpression, right: FetchExpression) -> FetchPredicate {
        left.compare(.greaterThan, right)
    }

    /// `left >= right` between two expressions.
    public static func >= (left: FetchExpression, right: FetchExpression) -> FetchPredicate {
        left.compare(.greaterThanOrEqual, right)
    }
}

extension FetchPredicate {
    /// `ANY comparison`: true when the comparison holds for some member of the to-many key path
    /// on its left. `.any(FetchExpression.key("tags.name") == "home")` is `ANY tags.name == "home"`.
    ///
    /// - Precondition: `comparison` is a comparison without a modifier.
    public static func any(_ comparison: FetchPredicate) -> FetchPredicate {
        comparison.modified(.any, by: "any")
    }

    /// `ALL comparison`: true when the comparison holds for every member of the to-many key path
    /// on its left.
    ///
    /// - Precondition: `comparison` is a comparison without a modifier.
    public static func all(_ comparison: FetchPredicate) -> FetchPredicate {
        comparison.modified(.all, by: "all")
    }

    /// `NONE comparison`: true when the comparison holds for no member of the to-many key path
    /// on its left.
    ///
    /// - Precondition: `comparison` is a comparison without a modifier.
    public static func none(_ comparison: FetchPredicate) -> FetchPredicate {
        comparison.modified(.none, by: "none")
    }

    private func modified(_ modifier: ComparisonModifier, by function: String) -> FetchPredicate {
        guard case .comparison(var comparison) = self, comparison.modifier == .direct else {
            preconditionFailure("FetchPredicate.\(function)(_:) takes one comparison without ANY, ALL or NONE, not \(self)")
        }
        comparison.modifier = modifier
        return .comparison(comparison)
    }

    /// `left AND right`. A conjunction on the left is extended, so `a && b && c` is one
    /// `.and([a, b, c])`, as the parser reads `a AND b AND c`.
    public static func && (left: FetchPredicate, right: FetchPredicate) -> FetchPredicate {
        if case .and(let operands) = left { return .and(operands + [right]) }
        return .and([left, right])
    }

    /// `left OR right`. A disjunction on the left is extended, so `a || b || c` is one
    /// `.or([a, b, c])`, as the parser reads `a OR b OR c`.
    public static func || (left: FetchPredicate, right: FetchPredicate) -> FetchPredicate {
        if case .or(let operands) = left { return .or(operands + [right]) }
        return .or([left, right])
    }

    /// `NOT predicate`.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
        .not(predicate)
    }
}

/// Arithmetic and functions in code: the trees `price * 2 + 1`, `lowercase:(title)` and
/// `parts[FIRST]` parse to.
///
/// ```swift
/// let p: FetchPredicate = .key("price") * 2 > .key("cost") + 1
/// let q: FetchPredicate = .call(.lowercase, .key("title")) == "dune"
/// let r: FetchPredicate = FetchExpression.key("steps")[.last] == "done"
/// ```
extension FetchExpression {
    /// `function(arguments…)`: `.call(.sum, .key("books.price"))` is `sum:(books.price)`.
    public static func call(_ function: PredicateFunction, _ arguments: FetchExpression...) -> FetchExpression {
        .function(function, arguments)
    }

    /// `self[index]`: `FetchExpression.key("steps")[.first]` is `steps[FIRST]`.
    public subscript(index: PredicateIndex) -> FetchExpression {
        .index(self, index, keyPath: [])
    }

    /// `left + right`.
    public static func + (left: FetchExpression, right: FetchExpression) -> FetchExpression { .function(.add, [left, right]) }
    /// `left + right`, a constant on the right.
    public static func + (left: FetchExpression, right: some PredicateArgument) -> FetchExpression { left + .value(right) }
    /// `left + right`, a constant on the left.
    public static func + (left: some PredicateArgument, right: FetchExpression) -> FetchExpression { .value(left) + right }
    /// `left - right`.
    public static func - (left: FetchExpression, right: FetchExpression) -> FetchExpression { .function(.subtract, [left, right]) }
    /// `left - right`, a constant on the right.
    public static func - (left: FetchExpression, right: some PredicateArgument) -> FetchExpression { left - .value(right) }
    /// `left - right`, a constant on the left.
    public static func - (left: some PredicateArgument, right: FetchExpression) -> FetchExpression { .value(left) - right }
    /// `left * right`.
    public static func * (left: FetchExpression, right: FetchExpression) -> FetchExpression { .function(.multiply, [left, right]) }
    /// `left * right`, a constant on the right.
    public static func * (left: FetchExpression, right: some PredicateArgument) -> FetchExpression { left * .value(right) }
    /// `left * right`, a constant on the left.
    public static func * (left: some PredicateArgument, right: FetchExpression) -> FetchExpression { .value(left) * right }
    /// `left / right` (a double for two integers; nil when `right` is zero).
    public static func / (left: FetchExpression, right: FetchExpression) -> FetchExpression { .function(.divide, [left, right]) }
    /// `left / right`, a constant on the right.
    public static func / (left: FetchExpression, right: some PredicateArgument) -> FetchExpression { left / .value(right) }
    /// `left / right`, a constant on the left.
    public static func / (left: some PredicateArgument, right: FetchExpression) -> FetchExpression { .value(left) / right }
    /// `-operand`.
    public static prefix func - (operand: FetchExpression) -> FetchExpression { .function(.negate, [operand]) }
}
