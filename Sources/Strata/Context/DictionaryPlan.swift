internal import Foundation

/// A dictionary fetch checked against the model: what each column, group key and sort key of a
/// grouped request is. Every store runs the same plan: the SQLite store compiles it to SQL, the
/// others evaluate it in memory (``rows(_:evaluator:sortDescriptors:offset:limit:)``), and
/// both give the same rows, values, types and order.
package struct DictionaryPlan: Sendable {
    /// What a column (or a group key) reads.
    package enum Value: Sendable, Hashable {
        /// One value per object: an attribute, through to-one relationships, or a per-object
        /// aggregate (`books.@count`); `type` is the attribute type its values have.
        case scalar([String], type: AttributeType)
        /// An object: a to-one relationship (through to-one relationships), or the object
        /// itself (an empty path).
        case object([String])
        /// The members of a to-many relationship.
        case members([String])
        /// An aggregate over the objects of a group; `path` is empty for `@count` of objects.
        case aggregate(AggregateFunction, [String], type: AttributeType)
        /// Arithmetic and functions (``PredicateFunction``) of constants and values — of each
        /// object, or in a grouped request of group keys and aggregates.
        case computed(Computation)

        /// Whether the value is, or is computed from, an aggregate of a group.
        package var isAggregate: Bool {
            switch self {
            case .aggregate: true
            case .computed(let computation): computation.leaves.contains { $0.isAggregate }
            default: false
            }
        }
    }

    /// An expression of a column, its key paths resolved.
    package indirect enum Computation: Sendable, Hashable {
        case constant(PredicateValue)
        case value(Value)
        case apply(PredicateFunction, [Computation])
        /// 0 where the value is nil: `count:` and `sum:` of the members of a nil to-one, which
        /// the predicate language counts as an empty collection.
        case orZero(Computation)

        /// The values it is computed from.
        package var leaves: [Value] {
            switch self {
            case .constant: []
            case .value(let value): [value]
            case .apply(_, let arguments): arguments.flatMap(\.leaves)
            case .orZero(let inner): inner.leaves
            }
        }

        /// Its value, from the values of its leaves.
        package func evaluate(_ leaf: (Value) throws(StrataError) -> PredicateValue) throws(StrataError) -> PredicateValue {
            switch self {
            case .constant(let value):
                return value
            case .value(let value):
                return try leaf(value)
            case .apply(let function, let arguments):
                var values: [PredicateValue] = []
                for argument in arguments { values.append(try argument.evaluate(leaf)) }
                return function.apply(values)
            case .orZero(let inner):
                let value = try inner.evaluate(leaf)
                return value == .null ? .integer(0) : value
            }
        }
    }

    package struct Column: Sendable, Hashable {
        package var name: String
        package var value: Value
        /// The type the caller asked the value as (``ExpressionDescription/resultType``).
        package var resultType: AttributeType?
    }

    package let schema: Schema
    package let entity: EntityDescription
    /// The columns, in the request's order.
    package let columns: [Column]
    /// The group keys, in `propertiesToGroupBy` order (empty for no groups).
    package let groupKeys: [Column]
    /// Whether each result is a group (there are group keys or aggregate columns).
    package let isGrouped: Bool
    /// The values a grouped request's sort descriptors and having predicate may name: the
    /// columns, then the group keys that are not columns.
    package let named: [Column]
    /// For a grouped request: the position in ``named`` of each sort descriptor's key.
    package let sortPositions: [Int]
    package let having: FetchPredicate?
    package let distinct: Bool

    /// Checks a request's columns, group keys, having predicate and (for a grouped request)
    /// sort keys against `entity`.
    /// - Throws: `invalidPredicate` naming an unknown key (with the closest one), a column of a
    ///   grouped request that is neither grouped nor aggregated, or anything else that cannot
    ///   be fetched.
    package init(
        schema: Schema, entity: EntityDescription, properties: [ExpressionDescription]?, groupBy: [String],
        having: FetchPredicate?, distinct: Bool, sortDescriptors: [FetchSortDescriptor]
    ) throws(StrataError) {
        self.schema = schema
        self.entity = entity
        self.having = having
        self.distinct = distinct
        let resolver = KeyPathResolver(schema: schema, entity: entity)
        if properties?.isEmpty == true {
            throw StrataError(.invalidPredicate, "the fetch has no columns; name at least one, or leave expressionsToFetch nil for every attribute")
        }
        var columns: [Column] = []
        for property in properties ?? [] {
            guard !columns.contains(where: { $0.name == property.name }) else {
                throw StrataError(.invalidPredicate, "two columns of the fetch are named '\(property.name)'; give one another name")
            }
            columns.append(Column(name: property.name, value: try resolver.column(property), resultType: property.resultType))
        }
        var groupKeys: [Column] = []
        for key in groupBy {
            if let column = columns.first(where: { $0.name == key && !$0.value.isAggregate }) {
                groupKeys.append(column)
                continue
            }
            let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let value = try resolver.value(path)
            switch value {
            case .scalar, .object: groupKeys.append(Column(name: key, value: value))
            case .members:
                throw StrataError(.invalidPredicate, "cannot group by '\(key)': it is a to-many relationship; group by attributes or to-one relationships")
            case .aggregate, .computed:
                throw StrataError(.invalidPredicate, "cannot group by '\(key)': it is an aggregate of the group")
            }
        }
        let isGrouped = !groupKeys.isEmpty || columns.contains { $0.value.isAggregate }
        if properties == nil {
            // Every stored attribute, or for groups the group keys.
            columns = isGrouped ? groupKeys : entity.attributes.filter { !$0.isTransient }.map {
                Column(name: $0.name, value: .scalar([$0.name], type: $0.type))
            }
        }
        self.columns = columns
        self.groupKeys = groupKeys
        self.isGrouped = isGrouped
        var named = columns
        for key in groupKeys where !named.contains(where: { $0.name == key.name }) { named.append(key) }
        self.named = named
        guard isGrouped else {
            if having != nil {
                throw StrataError(.invalidPredicate, "a having predicate needs groups: set propertiesToGroupBy or fetch an aggregate such as '@count'")
            }
            sortPositions = []
            return
        }
        for column in columns {
            let values: [Value]
            if case .computed(let computation) = column.value {
                values = computation.leaves.filter { !$0.isAggregate }
            } else {
                values = column.value.isAggregate ? [] : [column.value]
            }
            for value in values where !groupKeys.contains(where: { $0.value == value }) {
                let path: String
                switch value {
                case .scalar(let p, _), .object(let p), .members(let p): path = p.joined(separator: ".")
                case .aggregate, .computed: path = column.name
                }
                throw StrataError(
                    .invalidPredicate,
                    "the column '\(column.name)' is neither grouped nor aggregated; add '\(path)' to propertiesToGroupBy or fetch an aggregate of it such as '@max.\(path)'")
            }
        }
        let names = named.map(\.name)
        var positions: [Int] = []
        for descriptor in sortDescriptors {
            guard let position = names.firstIndex(of: descriptor.keyPath) else {
                throw StrataError(
                    .invalidPredicate,
                    "cannot sort grouped results by '\(descriptor.keyPath)': sort by a column or group key (\(names.map { "'\($0)'" }.joined(separator: ", ")))\(Suggestion.didYouMean(descriptor.keyPath, in: names))")
            }
            positions.append(position)
        }
        sortPositions = positions
        if let having {
            // Checks every key path names a column or a group key.
            _ = try Self.substitute(having, depth: 0) { (name) throws(StrataError) in
                guard names.contains(name) else {
                    throw StrataError(
                        .invalidPredicate,
                        "the having predicate names '\(name)', which is not a column or group key of the fetch (\(names.map { "'\($0)'" }.joined(separator: ", ")))\(Suggestion.didYouMean(name, in: names))")
                }
                return .keyPath([name])
            }
        }
    }

    /// Checks a sort key of an object fetch that goes through a to-many relationship to an
    /// aggregate (`books.@count`, `books.@max.published`): it must give one value per object.
    package static func validateAggregateSortKey(_ keyPath: String, schema: Schema, entity: EntityDescription) throws(StrataError) {
        let path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch try KeyPathResolver(schema: schema, entity: entity).value(path) {
        case .scalar, .object: return
        case .members, .aggregate, .computed:
            throw StrataError(.invalidPredicate, "cannot sort by '\(keyPath)': it gives several values per object; end it with an aggregate such as '@count' or '@max.key'")
        }
    }

    /// `predicate` with every key path replaced by `replace(its text)`; any other expression
    /// but constants and arrays is refused (a having predicate speaks of columns only).
    package static func substitute(
        _ predicate: FetchPredicate, depth: Int, _ replace: (String) throws(StrataError) -> FetchExpression
    ) throws(StrataError) -> FetchPredicate {
        guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
        switch predicate {
        case .constant:
            return predicate
        case .and(let parts):
            var result: [FetchPredicate] = []
            for part in parts { result.append(try substitute(part, depth: depth + 1, replace)) }
            return .and(result)
        case .or(let parts):
            var result: [FetchPredicate] = []
            for part in parts { result.append(try substitute(part, depth: depth + 1, replace)) }
            return .or(result)
        case .not(let inner):
            return .not(try substitute(inner, depth: depth + 1, replace))
        case .comparison(var comparison):
            comparison.left = try substitute(comparison.left, depth: depth, replace)
            comparison.right = try substitute(comparison.right, depth: depth, replace)
            return .comparison(comparison)
        }
    }

    /// What a value reads as a predicate value: an object as its ID.
    package static func predicateValue(_ value: PropertyValue) -> PredicateValue {
        switch value {
        case .attribute(let attribute): PredicateValue(attribute)
        case .toOne(let id): id.map { .object($0) } ?? .null
        case .toMany(let ids): .array(ids.map { .object($0) })
        }
    }

    private static func substitute(
        _ expression: FetchExpression, depth: Int, _ replace: (String) throws(StrataError) -> FetchExpression
    ) throws(StrataError) -> FetchExpression {
        switch expression {
        case .constant:
            return expression
        case .keyPath(let path):
            return try replace(path.joined(separator: "."))
        case .array(let members):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            var result: [FetchExpression] = []
            for member in members { result.append(try substitute(member, depth: depth + 1, replace)) }
            return .array(result)
        case .function(let function, let arguments):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            var result: [FetchExpression] = []
            for argument in arguments { result.append(try substitute(argument, depth: depth + 1, replace)) }
            return .function(function, result)
        case .evaluatedObject, .variable, .subquery, .index:
            throw StrataError(.invalidPredicate, "a having predicate compares columns and group keys by name; '\(expression)' is not one")
        }
    }
}

/// Resolves the key paths of a dictionary fetch against the model.
struct KeyPathResolver {
    let schema: Schema
    let entity: EntityDescription

    /// What a column reads.
    func column(_ property: ExpressionDescription) throws(StrataError) -> DictionaryPlan.Value {
        switch property.expression {
        case .keyPath(let path):
            try PredicateLimit.check(path)
            if let first = path.first, first.hasPrefix("@") {
                return try aggregate(first, Array(path.dropFirst()), text: path.joined(separator: "."))
            }
            return try value(path)
        case .evaluatedObject:
            return .object([])
        case .function:
            let computation = try computation(property.expression, name: property.name, depth: 0)
            if case .value(let value) = computation { return value }
            return .computed(computation)
        case .constant, .variable, .array, .subquery, .index:
            throw unsupported(property.expression, name: property.name)
        }
    }

    private func unsupported(_ expression: FetchExpression, name: String) -> StrataError {
        StrataError(
            .invalidPredicate,
            "the column '\(name)' has '\(expression)'; a column is a key path (an attribute, a to-one key path, a relationship), an aggregate such as '@sum.price' or 'sum:(price)', or arithmetic and functions of those")
    }

    /// An expression of a column with its key paths resolved. An aggregate function of a key
    /// path of one value per object (`sum:(price)`) aggregates the objects of a group; of a
    /// key path through a to-many relationship (`sum:(books.price)`), each object's members.
    private func computation(_ expression: FetchExpression, name: String, depth: Int) throws(StrataError) -> DictionaryPlan.Computation {
        guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .value(.object([]))
        case .keyPath(let path):
            try PredicateLimit.check(path)
            if let first = path.first, first.hasPrefix("@") {
                return .value(try aggregate(first, Array(path.dropFirst()), text: path.joined(separator: ".")))
            }
            let value = try value(path)
            if case .members = value { throw unsupported(expression, name: name) }
            return .value(value)
        case .function(let function, let arguments):
            if function.isAggregate {
                guard let aggregate = AggregateFunction(function), arguments.count == 1, case .keyPath(let path) = arguments[0],
                      let first = path.first, !first.hasPrefix("@")
                else {
                    throw StrataError(.invalidPredicate, "the column '\(name)' has '\(expression)'; in a column, sum:, count:, min:, max:, average:, median: and stddev: take one key path")
                }
                try PredicateLimit.check(path)
                // Through a to-many relationship: each object's members — counted and summed as
                // the predicate language does, a nil collection (through a nil to-one) as empty.
                if path.count > 1, !path.contains(where: { $0.hasPrefix("@") }), case .members = try value(Array(path.dropLast())) {
                    guard aggregate.isCollectionOperator else { throw unsupported(expression, name: name) }
                    let member = try value(path.dropLast() + [aggregate.rawValue, path.last!])
                    return aggregate == .sum ? .orZero(.value(member)) : .value(member)
                }
                if case .members = try value(path) {
                    guard aggregate == .count else { throw unsupported(expression, name: name) }
                    return .orZero(.value(.scalar(path + ["@count"], type: .int64)))
                }
                return .value(try self.aggregate(aggregate.rawValue, path, text: "\(aggregate.rawValue).\(path.joined(separator: "."))"))
            }
            guard function != .now, function != .noindex else { throw unsupported(expression, name: name) }
            var resolved: [DictionaryPlan.Computation] = []
            for argument in arguments { resolved.append(try computation(argument, name: name, depth: depth + 1)) }
            return .apply(function, resolved)
        case .variable, .array, .subquery, .index:
            throw unsupported(expression, name: name)
        }
    }

    /// An aggregate over the objects of a group: `@count`, `@count.key`, `@sum.key`, …
    private func aggregate(_ operation: String, _ rest: [String], text: String) throws(StrataError) -> DictionaryPlan.Value {
        guard let function = AggregateFunction(rawValue: operation) else {
            throw StrataError(.invalidPredicate, "unknown collection operator '\(operation)' in '\(text)'; use @count, @sum, @avg, @min or @max")
        }
        if function == .count && rest.isEmpty { return .aggregate(.count, [], type: .int64) }
        guard !rest.isEmpty else {
            throw StrataError(.invalidPredicate, "'\(text)' needs a key path after \(operation), such as '\(operation).price'")
        }
        let type: AttributeType
        switch try value(rest) {
        case .scalar(_, let valueType): type = valueType
        case .object:
            guard function == .count else {
                throw StrataError(.invalidPredicate, "'\(text)' aggregates objects; \(operation) takes attribute values (add the attribute's key)")
            }
            type = .int64
        case .members, .aggregate, .computed:
            throw StrataError(.invalidPredicate, "'\(text)' aggregates a collection per object; end the key path after \(operation) with an aggregate such as '@count'")
        }
        return .aggregate(function, rest, type: try Self.resultType(function, of: type, text: text))
    }

    /// The type of an aggregate's result, from the type of its values.
    static func resultType(_ function: AggregateFunction, of type: AttributeType, text: String) throws(StrataError) -> AttributeType {
        switch function {
        case .count:
            return .int64
        case .minimum, .maximum:
            return type
        case .median, .standardDeviation:
            switch type {
            case .int16, .int32, .int64, .bool, .double, .float: return .double
            case .decimal: return function == .median ? .decimal : .double
            default:
                throw StrataError(.invalidPredicate, "'\(text)' takes numbers, not \(type) values")
            }
        case .sum, .average:
            switch type {
            case .int16, .int32, .int64, .bool: return function == .sum ? .int64 : .double
            case .decimal: return function == .sum ? .decimal : .double
            case .double, .float: return .double
            default:
                throw StrataError(.invalidPredicate, "'\(text)' adds \(type) values; \(function.rawValue) takes numbers")
            }
        }
    }

    /// What a key path from the entity reaches.
    func value(_ path: [String]) throws(StrataError) -> DictionaryPlan.Value {
        try PredicateLimit.check(path)
        let text = path.joined(separator: ".")
        enum Place { case one(EntityDescription), many(EntityDescription), attribute(AttributeType), values(AttributeType) }
        var place = Place.one(entity)
        var index = 0
        while index < path.count {
            let key = path[index]
            if key.hasPrefix("@") {
                guard let function = AggregateFunction(rawValue: key), function.isCollectionOperator else {
                    throw StrataError(.invalidPredicate, "unknown collection operator '\(key)' in '\(text)'; use @count, @sum, @avg, @min or @max")
                }
                if function == .count {
                    guard index == path.count - 1 else {
                        throw StrataError(.invalidPredicate, "@count ends a key path; '\(text)' continues after it")
                    }
                    return .scalar(path, type: .int64)
                }
                let rest = Array(path[(index + 1)...])
                let element: AttributeType
                switch place {
                case .values(let type) where rest.isEmpty:
                    element = type
                case .one(let owner), .many(let owner):
                    guard !rest.isEmpty else {
                        throw StrataError(.invalidPredicate, "'\(text)' needs a key path after \(key), such as '\(key).price'")
                    }
                    guard case .scalar(_, let type) = try KeyPathResolver(schema: schema, entity: owner).value(rest) else {
                        throw StrataError(.invalidPredicate, "'\(text)': \(key) takes attribute values")
                    }
                    element = type
                default:
                    throw StrataError(.invalidPredicate, "'\(text)': \(key) needs a collection before it")
                }
                return .scalar(path, type: try Self.resultType(function, of: element, text: text))
            }
            index += 1
            if key == "self" || key == "SELF" { continue }
            let owner: EntityDescription
            let many: Bool
            switch place {
            case .one(let current): (owner, many) = (current, false)
            case .many(let current): (owner, many) = (current, true)
            case .attribute, .values:
                throw StrataError(.invalidPredicate, "'\(text)' goes on after attribute '\(path[index - 2])', which has no keys")
            }
            if let relationship = owner.relationship(named: key) {
                guard let destination = schema.entity(named: relationship.destination) else {
                    throw StrataError(.invalidPredicate, "'\(text)': the destination of '\(key)' is not in the model")
                }
                place = many || relationship.isToMany ? .many(destination) : .one(destination)
            } else if let attribute = owner.attribute(named: key) {
                place = many ? .values(attribute.type) : .attribute(attribute.type)
            } else {
                let names = owner.attributes.map(\.name) + owner.relationships.map(\.name)
                throw StrataError(
                    .invalidPredicate,
                    "entity '\(owner.name)' has no property '\(key)' (in key path '\(text)')\(Suggestion.didYouMean(key, in: names))")
            }
        }
        switch place {
        case .one: return .object(path)
        case .many: return .members(path)
        case .attribute(let type): return .scalar(path, type: type)
        case .values:
            throw StrataError(
                .invalidPredicate,
                "'\(text)' gives a collection of values per object; fetch the relationship for its objects, or an aggregate such as '\(path.dropLast().joined(separator: ".")).@max.\(path.last!)'")
        }
    }
}
