internal import Foundation

/// Batch updates that set attributes to expressions of each object's own values (Core Data's
/// `propertiesToUpdate` with `NSExpression` values): `price * 1.1`, `count + 1`,
/// `lowercase:(name)`, `author.name`, `sum:(books.pages)`. The expressions are the columns of a
/// dictionary fetch of the matching objects (``DictionaryPlan``), so every store computes them
/// as it computes such a fetch — SQLite in SQL, the others with the evaluator — and gets the same
/// values; this type turns the values into the attributes' and checks them, for every store alike.
package enum BatchExpressions {
    /// The column of the object itself.
    static let objectColumn = "\u{1}object"

    /// The dictionary fetch that computes each matching object's new values: the object, then
    /// one column per attribute, named by it.
    /// - Throws: `invalidPredicate` for an unknown key (with the closest one) or an aggregate of
    ///   the matching objects (`@sum.price`): an expression reads one object's values.
    static func request(
        _ expressions: [String: FetchExpression], entity: EntityDescription, schema: Schema, fetch: StoreFetchRequest
    ) throws(StrataError) -> StoreDictionaryRequest {
        var columns = [ExpressionDescription(name: objectColumn, expression: .evaluatedObject)]
        for key in expressions.keys.sorted() {
            let column = ExpressionDescription(name: key, expression: expressions[key]!)
            let alone = try DictionaryPlan(
                schema: schema, entity: entity, properties: [column], groupBy: [], having: nil, distinct: false, sortDescriptors: [])
            if alone.isGrouped {
                throw StrataError(
                    .invalidPredicate,
                    "the batch update sets '\(key)' to an aggregate of the matching objects ('\(column.expression)'); an expression reads each object's own values (sum:(books.price) aggregates an object's books)")
            }
            columns.append(column)
        }
        let plan = try DictionaryPlan(
            schema: schema, entity: entity, properties: columns, groupBy: [], having: nil, distinct: false, sortDescriptors: [])
        var whole = fetch
        whole.sortDescriptors = []
        return StoreDictionaryRequest(fetch: whole, plan: plan)
    }

    /// Each object's new values, from the rows of ``request(_:entity:schema:fetch:)``.
    /// - Throws: `validationFailed` listing every object whose value its attribute cannot hold
    ///   (another kind, a fraction for an integer) or whose rules it breaks (required, range,
    ///   length, pattern); nothing is written then.
    package static func values(_ rows: [DictionaryRow], entity: EntityDescription) throws(StrataError) -> [ObjectID: [String: AttributeValue?]] {
        var values: [ObjectID: [String: AttributeValue?]] = [:]
        values.reserveCapacity(rows.count)
        var failures: [ValidationFailure] = []
        let attributes = entity.attributes.filter { !$0.isTransient }
        for row in rows {
            guard case .toOne(let id?)? = row[objectColumn] else { continue }
            var set: [String: AttributeValue?] = [:]
            for (key, cell) in row where key != objectColumn {
                guard let attribute = attributes.first(where: { $0.name == key }) else { continue }
                // An object or none (a relationship's) is no attribute's value.
                guard case .attribute(let computed) = cell, let value = converted(computed, to: attribute.type) else {
                    let given = switch cell {
                    case .attribute(let computed): computed.map { "\($0)" } ?? "nil"
                    case .toOne(let object): object.map { "the object \($0)" } ?? "no object"
                    case .toMany(let objects): "\(objects.count) object\(objects.count == 1 ? "" : "s")"
                    }
                    failures.append(ValidationFailure(
                        code: .outOfRange, objectID: id, key: key,
                        message: "the expression gives \(given), which \(BatchValues.article(attribute.type)) \(attribute.type.rawValue) attribute cannot hold"))
                    continue
                }
                failures += BatchValues.failures(of: value, for: attribute, objectID: id)
                set[key] = value
            }
            values[id] = set
        }
        guard failures.isEmpty else { throw StrataError.saveRefused(failures) }
        return values
    }

    /// A computed value as a value of an attribute of `type`; nil when the attribute cannot hold
    /// it. Numbers convert to the attribute's kind when nothing is lost: a double or decimal that
    /// is whole to an integer, any number to a double or float, an integer or double (by its
    /// shortest decimal text) to a decimal.
    static func converted(_ value: AttributeValue?, to type: AttributeType) -> AttributeValue?? {
        guard let value else { return .some(nil) }
        if ManagedObject.fits(value, type) { return .some(ManagedObject.normalize(value, to: type)) }
        switch (value, type) {
        case (.double(let double), .int16), (.double(let double), .int32), (.double(let double), .int64):
            guard let integer = Int64(exactly: double) else { return nil }
            return .some(.integer(integer))
        case (.decimal(let decimal), .int16), (.decimal(let decimal), .int32), (.decimal(let decimal), .int64):
            guard !decimal.isNaN, let integer = Int64(exactly: NSDecimalNumber(decimal: decimal).doubleValue),
                  Decimal(integer) == decimal else { return nil }
            return .some(.integer(integer))
        case (.decimal(let decimal), .double):
            return decimal.isNaN ? nil : .some(.double(NSDecimalNumber(decimal: decimal).doubleValue))
        case (.decimal(let decimal), .float):
            return decimal.isNaN ? nil : .some(.float(NSDecimalNumber(decimal: decimal).floatValue))
        case (.double(let double), .decimal):
            guard double.isFinite, let decimal = Decimal(string: "\(double)") else { return nil }
            return .some(.decimal(decimal))
        default:
            return nil
        }
    }
}
