/// Sets attributes of every object that matches a predicate, without loading the objects into a
/// context (Core Data's `NSBatchUpdateRequest`).
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Book", predicate: try FetchPredicate(format: "year < 1900"))
/// request.propertiesToUpdate = ["price": Decimal(string: "9.99")!, "subtitle": nil]
/// request.resultType = .objectIDs
/// let result = try coordinator.execute(request)
/// ```
///
/// Values are constants (plain Swift values as ``BatchInsertRequest`` takes them; `nil` or
/// `NSNull` removes the value) or expressions of each object's own values, as Core Data takes
/// `NSExpression`s: `["price": try FetchExpression(format: "price * 1.1")]`, `count + 1`,
/// `lowercase:(name)`, another attribute, `author.name`, `sum:(items.amount)`. Every expression
/// is computed from the values before the update (as SQL's `UPDATE … SET` does), by the store —
/// in SQL on SQLite, by the evaluator on the others, with the same results — then converted to
/// the attribute's type (a number to another kind only when nothing is lost: 3.0, not 3.5, for
/// an integer) and checked as a constant is; a value that cannot be converted refuses the
/// request (`outOfRange`, naming the object). An aggregate of the matching objects (`@sum.price`)
/// is refused. Attributes only; relationships cannot be set.
///
/// Unlike Core Data, the model's rules are enforced: a value an attribute's rules refuse
/// (required, range, length, pattern) refuses the whole request, listing each matching object
/// with the rule, and a uniqueness constraint the new values would break refuses it too, naming
/// the objects. Only the rules of the attributes set are checked, as they are the only ones the
/// request changes. The request is all-or-nothing; every updated object's version is bumped as
/// a save bumps it, so a context that read the object before meets a merge conflict (or, merging
/// the coordinator's notification, takes the new values).
///
/// On SQLite the request is one `UPDATE … WHERE` statement (the predicate compiled to SQL; a
/// predicate SQL cannot express falls back to fetching the matching IDs and saving them); on
/// the XML, binary and in-memory stores it is one pass over the records and one write of the
/// file.
public struct BatchUpdateRequest {
    public var entityName: String
    /// Which objects to update; nil for all of them.
    public var predicate: FetchPredicate?
    /// The new values, by attribute name: constants, or ``FetchExpression``s of each object's
    /// values.
    public var propertiesToUpdate: [String: Any?]
    /// Whether objects of the entity's subentities are updated too (the default).
    public var includesSubentities: Bool
    public var resultType: BatchResultType

    public init(
        entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: Any?] = [:],
        includesSubentities: Bool = true, resultType: BatchResultType = .statusOnly
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
        self.includesSubentities = includesSubentities
        self.resultType = resultType
    }
}
