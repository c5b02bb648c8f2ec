/// Inserts many objects of one entity from dictionaries, without a context (Core Data's
/// `NSBatchInsertRequest`).
///
/// Each dictionary gives attribute values by name; attributes it leaves out take their defaults.
/// Values are plain Swift values (`String`, `Int`, `Double`, `Bool`, `Date`, `Decimal`, `UUID`,
/// `Data`, `URL`, an ``AttributeValue``), `nil` or `NSNull` for no value. Relationships cannot be
/// set (as in Core Data): a new object's required to-one relationship refuses the request.
///
/// Unlike Core Data, every rule of the model is enforced as a context's save enforces it —
/// required values, ranges, lengths, patterns, uniqueness constraints — and the request is
/// all-or-nothing: one broken rule refuses it, lists every problem (by the position of the
/// dictionary in ``objects``), and writes nothing. Primary keys come from the store's key
/// sequence, as a context's new objects get theirs.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Book", objects: [["title": "Emma", "year": 1815], ["title": "Persuasion", "year": 1817]])
/// let result = try coordinator.execute(request)   // result.count == 2
/// ```
public struct BatchInsertRequest {
    public var entityName: String
    /// The objects to insert, as attribute values by name.
    public var objects: [[String: Any]]
    public var resultType: BatchResultType

    public init(entityName: String, objects: [[String: Any]], resultType: BatchResultType = .statusOnly) {
        self.entityName = entityName
        self.objects = objects
        self.resultType = resultType
    }

    /// A request from typed values: each object's attribute values by name.
    public init(entityName: String, values: [[String: AttributeValue]], resultType: BatchResultType = .statusOnly) {
        self.init(entityName: entityName, objects: values.map { $0.mapValues { $0 as Any } }, resultType: resultType)
    }
}
