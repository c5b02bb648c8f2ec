internal import Foundation

/// One dictionary result: the value of each column, by the column's name.
public typealias DictionaryRow = [String: PropertyValue]

extension DictionaryPlan {
    /// The rows of the plan over the matching objects, evaluated in memory: the definition
    /// every store follows.
    /// - Parameters:
    ///   - subjects: every object the request's entities and predicate select, in primary-key
    ///     order (``inKeyOrder(_:_:)``): a group shows the group key values of its first object.
    ///   - sortDescriptors: the request's order; for a grouped request, of columns and group keys
    ///     (``sortPositions``).
    package func rows<Subject>(
        _ subjects: [Subject], evaluator: PredicateEvaluator<Subject>, sortDescriptors: [FetchSortDescriptor], offset: Int, limit: Int
    ) throws(StrataError) -> [DictionaryRow] {
        var cells: [[Cell]]
        if isGrouped {
            cells = try groupRows(subjects, evaluator: evaluator, sortDescriptors: sortDescriptors)
        } else {
            let sorted = try RecordSorter.sort(subjects, by: sortDescriptors, evaluator: evaluator, id: evaluator.access.objectID)
            cells = []
            cells.reserveCapacity(sorted.count)
            for subject in sorted {
                var row: [Cell] = []
                for column in columns { row.append(try cell(column, of: subject, evaluator)) }
                cells.append(row)
            }
        }
        if distinct { cells = Self.firstOfEqual(cells) }
        var result: [DictionaryRow] = []
        for row in AtomicStore.window(cells, offset: offset, limit: limit) {
            var dictionary: DictionaryRow = [:]
            for (column, cell) in zip(columns, row) { dictionary[column.name] = try column.finished(cell.value) }
            result.append(dictionary)
        }
        return result
    }

    /// A value as it is compared: the property value, and the predicate value it compares as
    /// (nil for to-many members, compared by their IDs).
    package struct Cell {
        package var value: PropertyValue
        package var key: PredicateValue?

        package init(_ value: PropertyValue) {
            self.value = value
            switch value {
            case .attribute(let attribute): key = PredicateValue(attribute)
            case .toOne(let id): key = id.map { .object($0) } ?? .null
            case .toMany: key = nil
            }
        }

        /// -1, 0 or 1 in ascending sort order (nil first); equal values are 0.
        package static func compare(_ a: Cell, _ b: Cell) -> Int {
            if let x = a.key, let y = b.key { return ascending.compare(x, y) }
            guard case .toMany(let x) = a.value, case .toMany(let y) = b.value else { return 0 }
            if x == y { return 0 }
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        }

        static let ascending = FetchSortDescriptor("")
    }

    /// The value of a non-aggregate column for one object.
    private func cell<Subject>(_ column: Column, of subject: Subject, _ evaluator: PredicateEvaluator<Subject>) throws(StrataError) -> Cell {
        switch column.value {
        case .scalar(let path, let type):
            if case .scalar(let value) = try evaluator.value(ofKeyPath: path, on: subject) {
                return Cell(.attribute(Self.attributeValue(value, type)))
            }
            return Cell(.attribute(nil))
        case .object(let path):
            if path.isEmpty { return Cell(.toOne(evaluator.access.objectID(subject))) }
            if case .object(let object) = try evaluator.value(ofKeyPath: path, on: subject) {
                return Cell(.toOne(evaluator.access.objectID(object)))
            }
            return Cell(.toOne(nil))
        case .members(let path):
            guard case .collection(let members) = try evaluator.value(ofKeyPath: path, on: subject) else { return Cell(.toMany([])) }
            var ids: [ObjectID] = []
            for member in members { if case .object(let object) = member { ids.append(evaluator.access.objectID(object)) } }
            return Cell(.toMany(ids))
        case .computed(let computation):
            // The values as the evaluator has them (as SQL hands them to the functions).
            let value = try computation.evaluate { (leaf) throws(StrataError) -> PredicateValue in
                guard case .scalar(let path, _) = leaf else {
                    return try cell(Column(name: column.name, value: leaf), of: subject, evaluator).key ?? .null
                }
                if case .scalar(let value) = try evaluator.value(ofKeyPath: path, on: subject) { return value }
                return .null
            }
            return Cell(.attribute(Self.attributeValue(value, nil)))
        case .aggregate:
            preconditionFailure("an aggregate column of a request without groups")
        }
    }

    /// The rows of a grouped request: one per group, having applied, in order.
    private func groupRows<Subject>(
        _ subjects: [Subject], evaluator: PredicateEvaluator<Subject>, sortDescriptors: [FetchSortDescriptor]
    ) throws(StrataError) -> [[Cell]] {
        // Group keys of every object; objects with equal keys are neighbours once sorted, and a
        // stable sort keeps each group's members in object-ID order (its first one represents it).
        var keys: [[Cell]] = []
        keys.reserveCapacity(subjects.count)
        for subject in subjects {
            var row: [Cell] = []
            for key in groupKeys { row.append(try cell(key, of: subject, evaluator)) }
            keys.append(row)
        }
        let order = Self.stableOrder(keys)
        var groups: [[Int]] = []
        for index in order {
            if let last = groups.last?.last, Self.equal(keys[last], keys[index]) {
                groups[groups.count - 1].append(index)
            } else {
                groups.append([index])
            }
        }
        // Without group keys, every object is in one group, even when there is none.
        if groupKeys.isEmpty && groups.isEmpty { groups = [[]] }
        var rows: [[Cell]] = []
        for group in groups {
            var row: [Cell] = []
            let members = group.map { subjects[$0] }
            for column in named {
                if case .aggregate(let function, let path, let type) = column.value {
                    row.append(Cell(.attribute(Self.attributeValue(try aggregate(function, path, members, evaluator), type))))
                } else if case .computed(let computation) = column.value {
                    let value = try computation.evaluate { (leaf) throws(StrataError) -> PredicateValue in
                        if case .aggregate(let function, let path, _) = leaf {
                            return try aggregate(function, path, members, evaluator)
                        }
                        let position = groupKeys.firstIndex { $0.value == leaf }!
                        return keys[group[0]][position].key ?? .null
                    }
                    row.append(Cell(.attribute(Self.attributeValue(value, nil))))
                } else {
                    let position = groupKeys.firstIndex { $0.value == column.value }!
                    row.append(keys[group[0]][position])
                }
            }
            if let having {
                let names = named.map(\.name)
                let bound = try Self.substitute(having, depth: 0) { (name) throws(StrataError) in
                    .constant(row[names.firstIndex(of: name)!].key ?? .null)
                }
                // Only constants are left: no object is read.
                if try Self.constants.evaluate(bound, on: ()) { rows.append(row) }
            } else {
                rows.append(row)
            }
        }
        if !sortDescriptors.isEmpty {
            let indexed = rows.enumerated().sorted { lhs, rhs in
                for (descriptor, position) in zip(sortDescriptors, sortPositions) {
                    let order = Self.compare(lhs.element[position], rhs.element[position], descriptor)
                    if order != 0 { return order < 0 }
                }
                return lhs.offset < rhs.offset
            }
            rows = indexed.map(\.element)
        }
        return rows.map { Array($0.prefix(columns.count)) }
    }

    /// An aggregate of the members of one group, as the evaluator computes it.
    private func aggregate<Subject>(
        _ function: AggregateFunction, _ path: [String], _ members: [Subject], _ evaluator: PredicateEvaluator<Subject>
    ) throws(StrataError) -> PredicateValue {
        if function == .count && path.isEmpty { return .integer(Int64(members.count)) }
        var values: [PredicateValue] = []
        var count: Int64 = 0
        for member in members {
            switch try evaluator.value(ofKeyPath: path, on: member) {
            case .scalar(let value) where value != .null:
                values.append(value)
                count += 1
            case .object:
                count += 1
            default:
                break
            }
        }
        if function == .count { return .integer(count) }
        return PredicateEvaluator<Subject>.aggregate(function.rawValue, values)
    }

    /// The order of the objects a plan runs over: by primary key (the order of a fetch without
    /// sort descriptors), unsaved objects last, by ID.
    package static func inKeyOrder(_ a: ObjectID, _ b: ObjectID) -> Bool {
        switch (a.primaryKey, b.primaryKey) {
        case (let x?, let y?): x != y ? x < y : a < b
        case (_?, nil): true
        case (nil, _?): false
        case (nil, nil): a < b
        }
    }

    /// An evaluator for predicates of constants only (a having predicate with its columns'
    /// values in place).
    static var constants: PredicateEvaluator<Void> {
        PredicateEvaluator(GraphAccessor<Void>(
            entity: { _ in preconditionFailure("a predicate of constants reads no object") },
            objectID: { _ in preconditionFailure("a predicate of constants reads no object") },
            attribute: { _, _ in nil }, toOne: { _, _ in nil }, toMany: { _, _ in [] }))
    }

    /// Sort descriptor order of two cells (a string comparison applies to strings only).
    static func compare(_ a: Cell, _ b: Cell, _ descriptor: FetchSortDescriptor) -> Int {
        if let x = a.key, let y = b.key { return descriptor.compare(x, y) }
        let order = Cell.compare(a, b)
        return descriptor.ascending ? order : -order
    }

    static func equal(_ a: [Cell], _ b: [Cell]) -> Bool {
        zip(a, b).allSatisfy { Cell.compare($0, $1) == 0 }
    }

    /// Positions of `rows` sorted ascending by every cell, equal rows in their order.
    static func stableOrder(_ rows: [[Cell]]) -> [Int] {
        rows.indices.sorted { i, j in
            for (a, b) in zip(rows[i], rows[j]) {
                let order = Cell.compare(a, b)
                if order != 0 { return order < 0 }
            }
            return i < j
        }
    }

    /// The first of every run of equal rows, in their order (`returnsDistinctResults`).
    static func firstOfEqual(_ rows: [[Cell]]) -> [[Cell]] {
        var keep = [Bool](repeating: false, count: rows.count)
        var previous: Int?
        for index in stableOrder(rows) {
            if let last = previous, equal(rows[last], rows[index]) { continue }
            keep[index] = true
            previous = index
        }
        return rows.indices.filter { keep[$0] }.map { rows[$0] }
    }

    /// A computed value as the attribute value of a column whose values have `type`: integers
    /// of decimal and floating-point columns (an empty `@sum`) become that type, doubles of
    /// float columns floats; an integer `@sum` too large for 64 bits stays a double.
    package static func attributeValue(_ value: PredicateValue, _ type: AttributeType?) -> AttributeValue? {
        switch (value, type) {
        case (.integer(let v), .decimal): return .decimal(Decimal(v))
        case (.integer(let v), .double): return .double(Double(v))
        case (.integer(let v), .float): return .float(Float(v))
        // The median of booleans (as 0 and 1) is a double, as SQL reads it back.
        case (.bool(let v), .double): return .double(v ? 1 : 0)
        case (.double(let v), .float): return .float(Float(v))
        case (.null, _), (.array, _), (.object, _): return nil
        case (.bool(let v), _): return .bool(v)
        case (.integer(let v), _): return .integer(v)
        case (.double(let v), _): return .double(v)
        case (.decimal(let v), _): return .decimal(v)
        case (.string(let v), _): return .string(v)
        case (.date(let v), _): return .date(v)
        case (.data(let v), _): return .binary(v)
        case (.uuid(let v), _): return .uuid(v)
        case (.uri(let v), _): return .uri(v)
        }
    }
}

extension DictionaryPlan.Column {
    /// The value as the column returns it: converted to ``resultType`` when one is asked for.
    /// - Throws: `invalidPredicate` for a value that cannot be of that type.
    package func finished(_ value: PropertyValue) throws(StrataError) -> PropertyValue {
        guard let resultType, case .attribute(let attribute?) = value else { return value }
        if let converted = Self.convert(attribute, to: resultType) { return .attribute(converted) }
        if Self.isNumber(attribute) && Self.isNumber(resultType) { return .attribute(nil) }
        if Self.kind(attribute) == Self.kind(resultType) { return value }
        throw StrataError(.invalidPredicate, "the column '\(name)' has the value \(attribute), which cannot be returned as \(resultType.rawValue)")
    }

    private static func isNumber(_ value: AttributeValue) -> Bool {
        switch value {
        case .integer, .decimal, .double, .float, .bool: true
        default: false
        }
    }

    /// The kind of value an attribute type holds, to tell which values already are of a type.
    private static func kind(_ type: AttributeType) -> AttributeType {
        switch type {
        case .transformable: .binary
        default: type
        }
    }

    private static func kind(_ value: AttributeValue) -> AttributeType? {
        switch value {
        case .string: .string
        case .date: .date
        case .binary: .binary
        case .uuid: .uuid
        case .uri: .uri
        default: nil
        }
    }

    private static func isNumber(_ type: AttributeType) -> Bool {
        switch type {
        case .int16, .int32, .int64, .decimal, .double, .float, .bool: true
        default: false
        }
    }

    /// A number as another number type: toward zero for integers (nil out of range or not
    /// finite); nil when either is not a number.
    private static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue? {
        let number: PredicateValue
        switch value {
        case .integer(let v): number = .integer(v)
        case .decimal(let v): number = .decimal(v)
        case .double(let v): number = .double(v)
        case .float(let v): number = .double(Double(v))
        case .bool(let v): number = .integer(v ? 1 : 0)
        default: return nil
        }
        switch type {
        case .int16, .int32, .int64:
            let integer: Int64?
            switch number {
            case .integer(let v): integer = v
            case .decimal(let v):
                var whole = Decimal()
                var source = v
                NSDecimalRound(&whole, &source, 0, .down)
                integer = Int64(whole.description)
            default:
                let double = PredicateEvaluator<Never>.doubleValue(number) ?? .nan
                integer = double.isFinite ? Int64(exactly: double.rounded(.towardZero)) : nil
            }
            guard let integer else { return nil }
            let range: ClosedRange<Int64> = type == .int16 ? Int64(Int16.min)...Int64(Int16.max)
                : type == .int32 ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
            return range.contains(integer) ? .integer(integer) : nil
        case .double:
            return PredicateEvaluator<Never>.doubleValue(number).map { .double($0) }
        case .float:
            return PredicateEvaluator<Never>.doubleValue(number).map { .float(Float($0)) }
        case .decimal:
            switch number {
            case .integer(let v): return .decimal(Decimal(v))
            case .decimal(let v): return .decimal(v)
            default:
                guard let double = PredicateEvaluator<Never>.doubleValue(number), double.isFinite else { return nil }
                return Decimal(string: "\(double)").map { .decimal($0) }
            }
        case .bool:
            return PredicateEvaluator<Never>.doubleValue(number).map { .bool($0 != 0) }
        default:
            return nil
        }
    }
}
