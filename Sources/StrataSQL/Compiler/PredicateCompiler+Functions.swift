internal import Foundation
package import Strata

extension PredicateCompiler {
    /// The evaluator's `apply`: aggregates as their collection operators, `now` as a constant
    /// read once per compiled request, `noindex:` as its argument, and every other function
    /// through `strata_function` (``PredicateFunction/apply(_:)``), mapped over a collection
    /// argument.
    package mutating func function(_ function: PredicateFunction, _ arguments: [FetchExpression], _ context: Context) throws(Unsupported) -> Shape {
        guard arguments.count == function.arity else { throw Unsupported(reason: "\(function.rawValue) with \(arguments.count) arguments") }
        var shapes: [Shape] = []
        try nested { (compiler) throws(Unsupported) in
            for argument in arguments { shapes.append(try compiler.value(argument, context)) }
        }
        if let operation = function.collectionOperator {
            // `elements(of:)` of a nil collection is empty: a nil owner gives 0 and nil, not nil.
            var collection = shapes[0]
            if case .rows(let rows) = collection, rows.nullWhenNil != nil {
                collection = .rows(rows.copy(nullWhenNil: nil))
            }
            return try aggregate(operation, collection, [])
        }
        switch function {
        case .now: return lift(.date(Date()))
        case .noindex: return shapes[0]
        default: return try map(function, shapes)
        }
    }

    /// A scalar function of shapes, applied to each member of the one collection among them.
    private mutating func map(_ function: PredicateFunction, _ shapes: [Shape]) throws(Unsupported) -> Shape {
        let collections = shapes.indices.filter { shapes[$0].isCollection }
        guard let position = collections.first else { return try call(function, shapes) }
        guard collections.count == 1 else { return .null }
        switch shapes[position] {
        case .list(let members):
            var mapped: [Shape] = []
            for member in members {
                var arguments = shapes
                arguments[position] = member
                mapped.append(try map(function, arguments))
            }
            return .list(mapped)
        case .rows(let rows):
            guard !rows.distinct else { throw Unsupported(reason: "a function of each of a collection's distinct values") }
            var arguments = shapes
            arguments[position] = rows.element
            return .rows(rows.copy(element: try map(function, arguments)))
        default:
            return .null
        }
    }

    /// One call of a scalar function: folded when every argument is a constant, nil when one is
    /// an object or always nil for its kind, else `strata_function`.
    private mutating func call(_ function: PredicateFunction, _ shapes: [Shape]) throws(Unsupported) -> Shape {
        var constants: [PredicateValue] = []
        for shape in shapes {
            guard let value = Self.staticValue(shape) else { break }
            constants.append(value)
        }
        if constants.count == shapes.count { return lift(function.apply(constants)) }
        var kinds: [ValueKind?] = []
        var operands: [String] = []
        for shape in shapes {
            switch shape {
            case .null:
                kinds.append(nil)
                operands.append("\(ValueKind.integer.rawValue), NULL")
            case .scalar(let scalar):
                kinds.append(scalar.kind)
                operands.append("\(scalar.kind.rawValue), \(scalar.sql)")
            default:
                // An object is not a number, a string or a date: every function of one is nil.
                return .null
            }
        }
        guard let kind = Self.resultKind(function, kinds) else { return .null }
        let code = PredicateFunction.allCases.firstIndex(of: function)!
        return .scalar(ScalarSQL(sql: try dialect.applicationFunction("strata_function", "\(code), \(operands.joined(separator: ", "))"), kind: kind, nullable: true))
    }

    /// How the result of `function` is kept, from its arguments' kinds (nil: always nil); see
    /// ``PredicateFunction`` for the rules it mirrors. A result that may be an integer, a double
    /// or a decimal is a `.number`.
    package static func resultKind(_ function: PredicateFunction, _ kinds: [ValueKind?]) -> ValueKind? {
        let numeric: Set<ValueKind> = [.integer, .bool, .double, .decimal, .number]
        switch function {
        case .lowercase, .uppercase:
            return kinds[0] == .string ? .string : nil
        case .length:
            return kinds[0] == .string ? .integer : nil
        case .sqrt, .log, .ln, .exp:
            return kinds[0].map(numeric.contains) == true ? .double : nil
        case .negate, .abs, .floor, .ceiling, .trunc:
            switch kinds[0] {
            case .integer?, .bool?: return [.floor, .ceiling, .trunc].contains(function) ? .integer : .number
            case .double?: return .double
            case .decimal?, .number?: return .number
            default: return nil
            }
        case .add, .subtract, .multiply, .divide, .modulus, .raise:
            guard let a = kinds[0], let b = kinds[1] else { return nil }
            if a == .date || b == .date {
                switch function {
                case .add where numeric.contains(a) || numeric.contains(b): return .date
                case .subtract where a == .date && b == .date: return .double
                case .subtract where a == .date && numeric.contains(b): return .date
                default: return nil
                }
            }
            guard numeric.contains(a), numeric.contains(b) else { return nil }
            if function == .raise { return .double }
            if a == .number || b == .number { return .number }
            if a == .double || b == .double { return .double }
            if a == .decimal || b == .decimal { return .number }
            switch function {
            case .divide: return .double
            case .modulus: return .integer
            default: return .number
            }
        default:
            return nil
        }
    }

    // MARK: - Subscripts

    /// `collection[index]` followed by `path`: the evaluator's member at a position of
    /// `elements(of:)`, which for rows is their order (an ordered relationship's positions).
    package mutating func index(_ collection: FetchExpression, _ index: PredicateIndex, _ path: ArraySlice<String>, _ context: Context) throws(Unsupported) -> Shape {
        let source = try nested { (compiler) throws(Unsupported) in try compiler.value(collection, context) }
        var offset: Int?
        var fromEnd = false
        switch index {
        case .size:
            return try walk(.scalar(try size(of: source)), path)
        case .first:
            offset = 0
        case .last:
            offset = 0
            fromEnd = true
        case .position(let expression):
            let position = try nested { (compiler) throws(Unsupported) in try compiler.value(expression, context) }
            guard let value = Self.staticValue(position) else { throw Unsupported(reason: "a subscript whose position is not a constant") }
            offset = PredicateEvaluator<Never>.position(value)
        }
        guard let offset else { return .null }
        switch source {
        case .null:
            return .null
        case .scalar, .object:
            return offset == 0 ? try walk(source, path) : .null
        case .list(let members):
            guard offset < members.count else { return .null }
            return try walk(members[fromEnd ? members.count - 1 - offset : offset], path)
        case .rows(let rows):
            return try member(of: rows, at: offset, fromEnd: fromEnd, path)
        }
    }

    /// The number of elements, as `elements(of:)` counts them (0 for nil).
    private func size(of shape: Shape) throws(Unsupported) -> ScalarSQL {
        switch shape {
        case .null:
            return ScalarSQL(sql: "0", kind: .integer, nullable: false, constant: .integer(0))
        case .scalar(let scalar):
            return ScalarSQL(sql: dialect.integer(ofCondition: "(\(scalar.sql) IS NOT NULL)"), kind: .integer, nullable: false)
        case .object(let object):
            return ScalarSQL(sql: dialect.integer(ofCondition: "(\(object.pk) IS NOT NULL)"), kind: .integer, nullable: false)
        case .list(let members):
            return ScalarSQL(sql: "\(members.count)", kind: .integer, nullable: false, constant: .integer(Int64(members.count)))
        case .rows(let rows):
            if rows.distinct {
                let code = SQLAggregate.count.rawValue + SQLAggregate.distinctFlag
                let count = try dialect.applicationFunction("strata_aggregate", "\(code), \(Self.valueOf(rows.element))")
                return ScalarSQL(sql: "coalesce((SELECT \(count)\(rows.body())), 0)", kind: .integer, nullable: false)
            }
            return ScalarSQL(sql: "(SELECT count(*)\(rows.body()))", kind: .integer, nullable: false)
        }
    }

    /// `kind, value` of an element for `strata_aggregate`: an object by its key.
    package static func valueOf(_ element: Shape) -> String {
        switch element {
        case .scalar(let scalar): "\(scalar.kind.rawValue), \(scalar.sql)"
        case .object(let object): "\(ValueKind.integer.rawValue), \(object.pk)"
        default: "\(ValueKind.integer.rawValue), NULL"
        }
    }

    /// The row at `offset` in the rows' order (from the end with `fromEnd`), followed by `path`.
    private mutating func member(of rows: RowSource, at offset: Int, fromEnd: Bool, _ path: ArraySlice<String>) throws(Unsupported) -> Shape {
        guard !rows.distinct else { throw Unsupported(reason: "a subscript of distinct values") }
        guard !rows.order.isEmpty || rows.scope.isEmpty else { throw Unsupported(reason: "a subscript of an unordered collection") }
        let element = try walk(rows.element, path)
        let order = rows.order.isEmpty ? "" : " ORDER BY " + rows.order.map { fromEnd ? "\($0) DESC" : $0 }.joined(separator: ", ")
        let limit = " LIMIT 1 OFFSET \(offset)"
        switch element {
        case .null:
            return .null
        case .scalar(let scalar):
            return .scalar(ScalarSQL(sql: "(SELECT \(scalar.sql)\(rows.body())\(order)\(limit))", kind: scalar.kind, nullable: true))
        case .object(let object):
            let entity = object.staticEntity.map { dialect.literal($0) } ?? "(SELECT \(object.entity)\(rows.body())\(order)\(limit))"
            return .object(ObjectSQL(
                pk: "(SELECT \(object.pk)\(rows.body())\(order)\(limit))", entity: entity, staticEntity: object.staticEntity,
                alias: nil, table: nil, scope: nil, nullable: true, constant: nil))
        case .rows, .list:
            throw Unsupported(reason: "a collection after a subscript")
        }
    }

    // MARK: - @distinctUnionOfObjects

    /// `@distinctUnionOfObjects` followed by `rest`: the non-nil values of `rest` over the
    /// elements of `start`, as rows marked distinct, which aggregates count once each (the
    /// evaluator's `distinctUnion`); membership tests need no more than the non-nil values.
    package mutating func distinctUnion(_ start: Shape, _ rest: ArraySlice<String>) throws(Unsupported) -> Shape {
        if case .rows(let rows) = start, rows.distinct { throw Unsupported(reason: "@distinctUnionOfObjects of distinct values") }
        let walked = try walk(start, rest)
        let owner: String?
        if case .rows(let rows) = start { owner = rows.nullWhenNil } else { owner = nil }
        switch walked {
        case .null:
            return .list([])
        case .scalar, .object:
            let present = Self.presence(walked)
            return .rows(RowSource(scope: QueryScope(), conditions: present.map { [$0] } ?? [], element: walked, order: []).markedDistinct())
        case .rows(let rows):
            var conditions = rows.conditions
            if let present = Self.presence(rows.element) { conditions.append(present) }
            if case .null = rows.element { return .list([]) }
            return .rows(RowSource(
                scope: rows.scope, conditions: conditions, element: rows.element, order: rows.order,
                nullWhenNil: owner, presence: rows.presence).markedDistinct())
        case .list:
            throw Unsupported(reason: "@distinctUnionOfObjects of an array")
        }
    }

    /// SQL that holds when a value or object is not nil; nil when it never is.
    private static func presence(_ shape: Shape) -> String? {
        switch shape {
        case .scalar(let scalar): scalar.nullable ? "\(scalar.sql) IS NOT NULL" : nil
        case .object(let object): object.nullable ? "\(object.pk) IS NOT NULL" : nil
        default: nil
        }
    }
}

extension RowSource {
    /// The same rows, without the owner that makes them nil.
    package func copy(nullWhenNil: String?) -> RowSource {
        let copy = RowSource(scope: scope, conditions: conditions, element: element, order: order, nullWhenNil: nullWhenNil, presence: presence)
        copy.distinct = distinct
        return copy
    }

    /// The same rows, each yielding `element`.
    package func copy(element: Shape) -> RowSource {
        let copy = RowSource(scope: scope, conditions: conditions, element: element, order: order, nullWhenNil: nullWhenNil, presence: presence)
        copy.distinct = distinct
        return copy
    }

    package func markedDistinct() -> RowSource {
        distinct = true
        return self
    }
}
