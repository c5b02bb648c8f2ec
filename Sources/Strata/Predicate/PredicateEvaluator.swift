internal import Foundation

/// How the evaluator walks an object graph: managed objects in a context, or stored records in
/// an atomic store. Both give the same answers because both go through this one evaluator.
package struct GraphAccessor<Subject> {
    package var entity: (Subject) -> EntityDescription
    package var objectID: (Subject) -> ObjectID
    package var attribute: (Subject, String) -> AttributeValue?
    /// Related objects; a store that cannot read them throws, and the evaluation fails with
    /// its error (never a silent "no object").
    package var toOne: (Subject, String) throws(StrataError) -> Subject?
    package var toMany: (Subject, String) throws(StrataError) -> [Subject]

    package init(
        entity: @escaping (Subject) -> EntityDescription,
        objectID: @escaping (Subject) -> ObjectID,
        attribute: @escaping (Subject, String) -> AttributeValue?,
        toOne: @escaping (Subject, String) throws(StrataError) -> Subject?,
        toMany: @escaping (Subject, String) throws(StrataError) -> [Subject]
    ) {
        self.entity = entity
        self.objectID = objectID
        self.attribute = attribute
        self.toOne = toOne
        self.toMany = toMany
    }
}

/// A value met while evaluating: nothing, a constant, an object, or a collection of values.
package enum EvaluatedValue<Subject> {
    case null
    case scalar(PredicateValue)
    case object(Subject)
    case collection([EvaluatedValue])
}

/// Evaluates predicates and key paths in memory, with the semantics every store must share:
///
/// - A comparison with nil on one side only is false, except `!=`, which is true; ordering
///   comparisons with nil are false. So `NOT (pages < 100)` holds when `pages` is nil.
/// - `ANY` over an empty collection is false; `ALL` and `NONE` are true. A to-many key path
///   compared without a modifier behaves as `ANY` (`tags.name == "home"`), except with
///   `CONTAINS`/`IN`, which test membership.
/// - Numbers compare by value across integer, floating-point and decimal types; booleans are 0
///   and 1. Dates compare as instants. NaN equals NaN and is neither less nor greater than any
///   number.
/// - Strings follow Swift `String` semantics (canonical equivalence), with `[c]` and `[d]`; see
///   ``StringMatching``.
/// - `@count` counts, `@sum` adds (0 for an empty collection), `@avg`, `@min` and `@max` are nil
///   for an empty collection; nil members are skipped. `@min` and `@max` follow the sort order,
///   in which NaN comes after every number. Like every collection operator,
///   `@distinctUnionOfObjects.key` applies to the members of the last to-many before it: the
///   distinct non-nil values of `key` over them, in the order they first appear (`1` and `1.0`
///   are one value, objects are distinct by identity).
/// - Functions and arithmetic follow ``PredicateFunction`` (nil in, nil out; integers exact
///   until they overflow; division by zero is nil). An aggregate function of a nil collection is
///   that of an empty one (`count:(author.books)` is 0 without an author, where
///   `author.books.@count` is nil).
/// - A subscript (`steps[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`) picks from the members in their
///   order, counting from 0; a position past the end is nil. A `$variable` without a value is an
///   error that names it.
package struct PredicateEvaluator<Subject> {
    package let access: GraphAccessor<Subject>

    package init(_ access: GraphAccessor<Subject>) {
        self.access = access
    }

    /// Whether `predicate` holds for `subject`.
    /// - Throws: `invalidPredicate` when the predicate is larger than the limits every store
    ///   shares (``FetchPredicate/maximumDepth``, ``FetchPredicate/maximumKeyPathLength``), or when
    ///   a `MATCHES` could not be decided (see ``RegexRule``): never a silent false.
    package func evaluate(_ predicate: FetchPredicate, on subject: Subject) throws(StrataError) -> Bool {
        try evaluate(predicate, on: subject, variables: [:], depth: 0)
    }

    /// The subjects for which `predicate` holds, in their order.
    /// - Throws: as ``evaluate(_:on:)``.
    package func filter(_ subjects: [Subject], by predicate: FetchPredicate) throws(StrataError) -> [Subject] {
        var kept: [Subject] = []
        for subject in subjects where try evaluate(predicate, on: subject) { kept.append(subject) }
        return kept
    }

    /// The value of a key path (`author.name`) from an object, for sorting and dictionaries.
    package func value(ofKeyPath path: [String], on subject: Subject) throws(StrataError) -> EvaluatedValue<Subject> {
        try walk(.object(subject), path[...])
    }

    /// The value of an expression on an object (arithmetic, functions, key paths …), as a
    /// comparison would see it: for projections of expressions evaluated in memory.
    /// - Throws: as ``evaluate(_:on:)``, and for a `$variable` without a value.
    package func value(of expression: FetchExpression, on subject: Subject) throws(StrataError) -> EvaluatedValue<Subject> {
        try value(of: expression, on: subject, variables: [:], depth: 0)
    }

    /// `depth`: the levels of `AND`, `OR`, `NOT`, `SUBQUERY` and arrays above `predicate`.
    private func evaluate(
        _ predicate: FetchPredicate, on subject: Subject, variables: [String: EvaluatedValue<Subject>], depth: Int
    ) throws(StrataError) -> Bool {
        switch predicate {
        case .constant(let value):
            return value
        case .and(let predicates):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            for predicate in predicates where !(try evaluate(predicate, on: subject, variables: variables, depth: depth + 1)) {
                return false
            }
            return true
        case .or(let predicates):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            for predicate in predicates where try evaluate(predicate, on: subject, variables: variables, depth: depth + 1) {
                return true
            }
            return false
        case .not(let inner):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            return !(try evaluate(inner, on: subject, variables: variables, depth: depth + 1))
        case .comparison(let comparison):
            return try evaluate(comparison, on: subject, variables: variables, depth: depth)
        }
    }

    private func evaluate(
        _ comparison: Comparison, on subject: Subject, variables: [String: EvaluatedValue<Subject>], depth: Int
    ) throws(StrataError) -> Bool {
        let left = try value(of: comparison.left, on: subject, variables: variables, depth: depth)
        let right = try value(of: comparison.right, on: subject, variables: variables, depth: depth)
        func holds(_ element: EvaluatedValue<Subject>) throws(StrataError) -> Bool {
            try test(element, comparison.op, right, comparison.options)
        }
        switch comparison.modifier {
        case .any:
            return try contains(elements(of: left), where: holds)
        case .all:
            return !(try contains(elements(of: left)) { (element) throws(StrataError) in !(try holds(element)) })
        case .none:
            return !(try contains(elements(of: left), where: holds))
        case .direct:
            // A collection on the left: CONTAINS tests membership (in `test`); every other
            // operator applies to any member, as SQL's join semantics do.
            if case .collection(let members) = left, comparison.op != .contains {
                return try contains(members, where: holds)
            }
            return try holds(left)
        }
    }

    /// `contains(where:)` with a typed error.
    private func contains(
        _ members: [EvaluatedValue<Subject>], where test: (EvaluatedValue<Subject>) throws(StrataError) -> Bool
    ) throws(StrataError) -> Bool {
        for member in members where try test(member) { return true }
        return false
    }

    // MARK: - Expressions

    private func value(
        of expression: FetchExpression, on subject: Subject, variables: [String: EvaluatedValue<Subject>], depth: Int
    ) throws(StrataError) -> EvaluatedValue<Subject> {
        switch expression {
        case .constant(let constant):
            return Self.lift(constant)
        case .keyPath(let path):
            try PredicateLimit.check(path)
            return try walk(.object(subject), path[...])
        case .evaluatedObject:
            return .object(subject)
        case .variable(let name, let path):
            try PredicateLimit.check(path)
            guard let bound = variables[name] else { throw PredicateLimit.unboundVariable(name) }
            return try walk(bound, path[...])
        case .array(let expressions):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            var members: [EvaluatedValue<Subject>] = []
            for expression in expressions { members.append(try value(of: expression, on: subject, variables: variables, depth: depth + 1)) }
            return .collection(members)
        case .subquery(let collection, let variable, let predicate, let path):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            try PredicateLimit.check(path)
            let members = elements(of: try value(of: collection, on: subject, variables: variables, depth: depth + 1))
            // As in NSPredicate, the inner predicate is evaluated on each member, with the
            // variable bound to it.
            var matching: [EvaluatedValue<Subject>] = []
            for member in members {
                var scope = variables
                scope[variable] = member
                let object: Subject
                if case .object(let memberObject) = member { object = memberObject } else { object = subject }
                if try evaluate(predicate, on: object, variables: scope, depth: depth + 1) { matching.append(member) }
            }
            return try walk(.collection(matching), path[...])
        case .function(let function, let arguments):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            var values: [EvaluatedValue<Subject>] = []
            for argument in arguments { values.append(try value(of: argument, on: subject, variables: variables, depth: depth + 1)) }
            return try apply(function, values)
        case .index(let collection, let index, let path):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            try PredicateLimit.check(path)
            let members = elements(of: try value(of: collection, on: subject, variables: variables, depth: depth + 1))
            let member: EvaluatedValue<Subject>
            switch index {
            case .first: member = members.first ?? .null
            case .last: member = members.last ?? .null
            case .size: member = .scalar(.integer(Int64(members.count)))
            case .position(let expression):
                let position = try value(of: expression, on: subject, variables: variables, depth: depth + 1)
                guard case .scalar(let number) = position, let offset = Self.position(number), offset < members.count else {
                    member = .null
                    break
                }
                member = members[offset]
            }
            return try walk(member, path[...])
        }
    }

    /// A subscript's position: a whole, non-negative number (nil otherwise).
    package static func position(_ value: PredicateValue) -> Int? {
        switch value {
        case .integer(let i): return i >= 0 ? Int(exactly: i) : nil
        case .bool(let b): return b ? 1 : 0
        case .double(let d): return d >= 0 && d.rounded(.towardZero) == d ? Int(exactly: d) : nil
        case .decimal(let d):
            guard let whole = Int64(exactly: NSDecimalNumber(decimal: d).int64Value), Decimal(whole) == d, whole >= 0 else { return nil }
            return Int(exactly: whole)
        default: return nil
        }
    }

    /// A function of evaluated arguments: aggregates reduce a collection, `now` reads the clock,
    /// `noindex:` passes its argument on, and the others apply to each member of a collection
    /// argument (nil when more than one argument is a collection).
    private func apply(_ function: PredicateFunction, _ arguments: [EvaluatedValue<Subject>]) throws(StrataError) -> EvaluatedValue<Subject> {
        guard arguments.count == function.arity else { throw PredicateLimit.wrongArity(function, arguments.count) }
        if let operation = function.collectionOperator {
            return try aggregate(operation, elements(of: arguments[0]), [])
        }
        switch function {
        case .now: return .scalar(.date(Date()))
        case .noindex: return arguments[0]
        default: return map(function, arguments)
        }
    }

    private func map(_ function: PredicateFunction, _ arguments: [EvaluatedValue<Subject>]) -> EvaluatedValue<Subject> {
        var collection: (position: Int, members: [EvaluatedValue<Subject>])?
        var values: [PredicateValue] = []
        for (position, argument) in arguments.enumerated() {
            if case .collection(let members) = argument {
                guard collection == nil else { return .null }
                collection = (position, members)
                values.append(.null)
            } else {
                values.append(scalar(argument) ?? .null)
            }
        }
        guard let collection else { return Self.lift(function.apply(values)) }
        return .collection(collection.members.map { member in
            var arguments = arguments
            arguments[collection.position] = member
            return map(function, arguments)
        })
    }

    private static func lift(_ constant: PredicateValue) -> EvaluatedValue<Subject> {
        switch constant {
        case .null: .null
        case .array(let values): .collection(values.map(lift))
        default: .scalar(constant)
        }
    }

    /// Follows `path` from `start`: a loop through to-one relationships and attributes, so that
    /// only collections and collection operators recurse (as deep as the path is long).
    private func walk(_ start: EvaluatedValue<Subject>, _ path: ArraySlice<String>) throws(StrataError) -> EvaluatedValue<Subject> {
        var current = start
        var path = path
        while let key = path.first {
            let rest = path.dropFirst()
            if key == "@distinctUnionOfObjects" {
                return try distinctUnion(elements(of: current), rest)
            }
            if key.hasPrefix("@") {
                return try aggregate(key, elements(of: current), rest)
            }
            switch current {
            case .null, .scalar:
                return .null
            case .object(let object):
                let entity = access.entity(object)
                if let relationship = entity.relationship(named: key) {
                    if relationship.isToMany {
                        current = .collection(try access.toMany(object, key).map { .object($0) })
                    } else {
                        current = try access.toOne(object, key).map { .object($0) } ?? .null
                    }
                } else if key != "self" && key != "SELF" {
                    current = access.attribute(object, key).map { .scalar(PredicateValue($0)) } ?? .null
                }
                path = rest
            case .collection(let members):
                var result: [EvaluatedValue<Subject>] = []
                for member in members {
                    let value = try walk(member, path)
                    if case .collection(let nested) = value {
                        result += nested
                    } else {
                        result.append(value)
                    }
                }
                return .collection(result)
            }
        }
        return current
    }

    /// `@distinctUnionOfObjects.key`: the distinct non-nil values of `key` over the members, in
    /// the order they first appear; values are distinct as `==` tells them apart (`1` and `1.0`
    /// are one value), objects by identity.
    private func distinctUnion(_ members: [EvaluatedValue<Subject>], _ rest: ArraySlice<String>) throws(StrataError) -> EvaluatedValue<Subject> {
        var kept: [EvaluatedValue<Subject>] = []
        var seen: [PredicateValue] = []
        for value in elements(of: try walk(.collection(members), rest)) {
            guard let key = scalar(value), key != .null, Self.isNew(key, among: seen) else { continue }
            seen.append(key)
            kept.append(value)
        }
        return .collection(kept)
    }

    /// Non-nil values without repeats, in the order they first appear: what
    /// `@distinctUnionOfObjects` keeps (``distinctUnion``), for the SQLite store's aggregates.
    package static func distinct(_ values: [PredicateValue]) -> [PredicateValue] {
        var seen: [PredicateValue] = []
        for value in values where value != .null && isNew(value, among: seen) { seen.append(value) }
        return seen
    }

    private static func isNew(_ value: PredicateValue, among seen: [PredicateValue]) -> Bool {
        !seen.contains { order($0, value, []) == 0 }
    }

    private func aggregate(_ operation: String, _ members: [EvaluatedValue<Subject>], _ rest: ArraySlice<String>) throws(StrataError) -> EvaluatedValue<Subject> {
        if operation == "@count" {
            return try walk(.scalar(.integer(Int64(members.count))), rest)
        }
        var values: [PredicateValue] = []
        for member in members {
            if case .scalar(let value) = try walk(member, rest) { values.append(value) }
        }
        let result = Self.aggregate(operation, values)
        return result == .null ? .null : .scalar(result)
    }

    /// `@sum`, `@avg`, `@min`, `@max`, `@median` or `@stddev` of non-nil values: the one
    /// definition the evaluator and the SQLite store's aggregate function share. `@sum` of nothing
    /// is 0; the others are nil.
    package static func aggregate(_ operation: String, _ values: [PredicateValue]) -> PredicateValue {
        switch operation {
        case "@count":
            return .integer(Int64(values.count))
        case "@median":
            let numbers = values.filter { doubleValue($0) != nil }.sorted { FetchSortDescriptor("").compare($0, $1) < 0 }
            guard !numbers.isEmpty else { return .null }
            let middle = numbers.count / 2
            if numbers.count % 2 == 1 { return numbers[middle] }
            return aggregate("@avg", [numbers[middle - 1], numbers[middle]])
        case "@stddev":
            let numbers = values.compactMap(doubleValue)
            guard !numbers.isEmpty else { return .null }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
            return .double(variance.squareRoot())
        case "@sum":
            return sum(values)
        case "@avg":
            guard !values.isEmpty else { return .null }
            // Decimals (with integers among them) are added and divided exactly, and the
            // average is a decimal, as Core Data's of a decimal attribute: 1.10 and 2.2 average
            // to 1.65, not the 1.6500000000000001 of adding them as doubles.
            if case .decimal(let total) = sum(values) {
                return .decimal(total / Decimal(values.count))
            }
            let total = values.compactMap(doubleValue).reduce(0, +)
            return .double(total / Double(values.count))
        case "@min", "@max":
            var best: PredicateValue?
            for value in values {
                guard let current = best else {
                    best = value
                    continue
                }
                // NaN, unordered against numbers, counts as greater than every number, as in
                // sorting; otherwise the result would depend on the order of the members.
                if let order = order(value, current, []) ?? nanOrder(value, current),
                   operation == "@min" ? order < 0 : order > 0 {
                    best = value
                }
            }
            return best ?? .null
        default:
            return .null
        }
    }

    /// 1 when only `l` is NaN, -1 when only `r` is.
    private static func nanOrder(_ l: PredicateValue, _ r: PredicateValue) -> Int? {
        let (a, b) = (doubleValue(l)?.isNaN ?? false, doubleValue(r)?.isNaN ?? false)
        return a == b ? nil : a ? 1 : -1
    }

    /// Integers add exactly while they fit; anything else adds as a double.
    private static func sum(_ values: [PredicateValue]) -> PredicateValue {
        var integerTotal: Int64 = 0
        var exact = true
        for value in values {
            guard case .integer(let integer) = value else {
                exact = false
                break
            }
            let (total, overflow) = integerTotal.addingReportingOverflow(integer)
            if overflow {
                exact = false
                break
            }
            integerTotal = total
        }
        if exact { return .integer(integerTotal) }
        if values.allSatisfy({ if case .decimal = $0 { true } else if case .integer = $0 { true } else { false } }) {
            var total = Decimal(0)
            for value in values {
                if case .decimal(let d) = value { total += d }
                if case .integer(let i) = value { total += Decimal(i) }
            }
            return .decimal(total)
        }
        return .double(values.compactMap(doubleValue).reduce(0, +))
    }

    private func elements(of value: EvaluatedValue<Subject>) -> [EvaluatedValue<Subject>] {
        switch value {
        case .null: []
        case .collection(let members): members
        default: [value]
        }
    }

    // MARK: - Comparing

    private func scalar(_ value: EvaluatedValue<Subject>) -> PredicateValue? {
        switch value {
        case .null: .null
        case .scalar(let scalar): scalar
        case .object(let object): .object(access.objectID(object))
        case .collection: nil
        }
    }

    private func test(
        _ left: EvaluatedValue<Subject>, _ op: ComparisonOperator, _ right: EvaluatedValue<Subject>, _ options: ComparisonOptions
    ) throws(StrataError) -> Bool {
        switch op {
        case .in:
            if case .collection(let members) = right {
                return try contains(members) { (member) throws(StrataError) in try test(left, .equal, member, options) }
            }
            if let l = scalar(left), let r = scalar(right), case .string(let needle) = l, case .string(let haystack) = r {
                return StringMatching.contains(haystack, needle, options)
            }
            return false
        case .between:
            guard case .collection(let bounds) = right, bounds.count == 2 else { return false }
            guard try test(left, .greaterThanOrEqual, bounds[0], options) else { return false }
            return try test(left, .lessThanOrEqual, bounds[1], options)
        case .contains:
            if case .collection(let members) = left {
                return try contains(members) { (member) throws(StrataError) in try test(member, .equal, right, options) }
            }
        default:
            break
        }
        guard let l = scalar(left), let r = scalar(right) else { return false }
        return try Self.compare(l, op, r, options)
    }

    /// One comparison of two constants, with the nil rules of the type's documentation.
    /// - Throws: `invalidPredicate` when a `MATCHES` could not be decided (see ``RegexRule``).
    package static func compare(
        _ l: PredicateValue, _ op: ComparisonOperator, _ r: PredicateValue, _ options: ComparisonOptions
    ) throws(StrataError) -> Bool {
        if l == .null || r == .null {
            switch op {
            case .equal: return l == r
            case .notEqual: return l != r
            default: return false
            }
        }
        switch op {
        case .equal:
            return order(l, r, options) == 0
        case .notEqual:
            return order(l, r, options) != 0
        case .lessThan:
            return order(l, r, options).map { $0 < 0 } ?? false
        case .lessThanOrEqual:
            return order(l, r, options).map { $0 <= 0 } ?? false
        case .greaterThan:
            return order(l, r, options).map { $0 > 0 } ?? false
        case .greaterThanOrEqual:
            return order(l, r, options).map { $0 >= 0 } ?? false
        case .contains, .beginsWith, .endsWith, .like, .matches, .in:
            guard case .string(let string) = l, case .string(let operand) = r else { return false }
            switch op {
            case .contains, .in: return StringMatching.contains(string, operand, options)
            case .beginsWith: return StringMatching.beginsWith(string, operand, options)
            case .endsWith: return StringMatching.endsWith(string, operand, options)
            case .like: return StringMatching.like(string, operand, options)
            default:
                do {
                    return try StringMatching.matches(string, operand, options)
                } catch {
                    throw PredicateLimit.regexFailed(error)
                }
            }
        case .between:
            return false
        }
    }

    /// -1, 0 or 1; nil when the two cannot be ordered (different kinds, NaN against a number).
    /// NaN equals NaN so that a stored NaN can be found again.
    package static func order(_ l: PredicateValue, _ r: PredicateValue, _ options: ComparisonOptions) -> Int? {
        switch (l, r) {
        case (.string(let a), .string(let b)):
            return StringMatching.compare(a, b, options)
        case (.date(let a), .date(let b)):
            return a == b ? 0 : a < b ? -1 : 1
        case (.object(let a), .object(let b)):
            return a == b ? 0 : a < b ? -1 : 1
        case (.uuid(let a), .uuid(let b)):
            return a == b ? 0 : a.uuidString < b.uuidString ? -1 : 1
        case (.data(let a), .data(let b)):
            return a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
        case (.uri(let a), .uri(let b)):
            return StringMatching.compare(a.absoluteString, b.absoluteString, [])
        case (.integer(let a), .integer(let b)):
            return a == b ? 0 : a < b ? -1 : 1
        case (.decimal(let a), .decimal(let b)):
            return a == b ? 0 : a < b ? -1 : 1
        case (.bool(let a), .bool(let b)):
            return a == b ? 0 : !a ? -1 : 1
        default:
            return numericOrder(l, r)
        }
    }

    private static func numericOrder(_ l: PredicateValue, _ r: PredicateValue) -> Int? {
        switch (l, r) {
        case (.integer(let a), .decimal(let b)): return order(.decimal(Decimal(a)), .decimal(b), [])
        case (.decimal(let a), .integer(let b)): return order(.decimal(a), .decimal(Decimal(b)), [])
        case (.bool(let a), _): return numericOrder(.integer(a ? 1 : 0), r)
        case (_, .bool(let b)): return numericOrder(l, .integer(b ? 1 : 0))
        case (.integer(let a), .double(let b)): return integerDoubleOrder(a, b)
        case (.double(let a), .integer(let b)): return integerDoubleOrder(b, a).map { -$0 }
        default: break
        }
        guard let a = doubleValue(l), let b = doubleValue(r) else { return nil }
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : nil }
        return a == b ? 0 : a < b ? -1 : 1
    }

    /// Exact order of an Int64 and a Double, without the rounding of converting the integer.
    private static func integerDoubleOrder(_ a: Int64, _ b: Double) -> Int? {
        if b.isNaN { return nil }
        if b >= 9.223372036854775807e18 { return -1 }
        if b < -9.223372036854775808e18 { return 1 }
        let truncated = Int64(b.rounded(.towardZero))
        if a != truncated { return a < truncated ? -1 : 1 }
        let fraction = b - b.rounded(.towardZero)
        return fraction == 0 ? 0 : fraction > 0 ? -1 : 1
    }

    /// The nearest double. A decimal goes through its exact text: `NSDecimalNumber.doubleValue`
    /// can be one unit in the last place off (0.07 does not come back as the double 0.07).
    package static func doubleValue(_ value: PredicateValue) -> Double? {
        switch value {
        case .integer(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): Double(v.description) ?? NSDecimalNumber(decimal: v).doubleValue
        case .bool(let v): v ? 1 : 0
        default: nil
        }
    }
}

extension PredicateEvaluator where Subject == Never {
    /// The value of a key path on a constant, as the evaluator walks it: collection operators on
    /// an array (`@count`, `@sum` …); any other key of a value is nil.
    package static func value(ofKeyPath path: [String], on value: PredicateValue) -> PredicateValue {
        guard !path.isEmpty, path.count <= FetchPredicate.maximumKeyPathLength else { return path.isEmpty ? value : .null }
        guard let result = try? PredicateEvaluator<Void>.withoutObjects.walk(PredicateEvaluator<Void>.lift(value), path[...]) else { return .null }
        return constant(result)
    }

    private static func constant(_ value: EvaluatedValue<Void>) -> PredicateValue {
        switch value {
        case .null, .object: .null
        case .scalar(let scalar): scalar
        case .collection(let members): .array(members.map(constant))
        }
    }
}

extension PredicateEvaluator where Subject == Void {
    /// An evaluator for predicates and key paths that reach no object (all of whose key paths
    /// start from constants): its accessor is never asked.
    package static var withoutObjects: PredicateEvaluator<Void> {
        PredicateEvaluator(GraphAccessor<Void>(
            entity: { EntityDescription(name: "") }, objectID: { ObjectID(temporaryFor: "") }, attribute: { _, _ in nil },
            toOne: { _, _ in nil }, toMany: { _, _ in [] }))
    }
}
