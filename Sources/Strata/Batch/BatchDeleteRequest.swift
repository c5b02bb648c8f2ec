/// Deletes every object that matches a predicate, without loading the objects into a context
/// (Core Data's `NSBatchDeleteRequest`).
///
/// ```swift
/// let request = BatchDeleteRequest(entityName: "Todo", predicate: try FetchPredicate(format: "done == YES"))
/// let result = try coordinator.execute(request)
/// ```
///
/// Unlike Core Data's batch delete, which ignores delete rules and leaves dangling references,
/// Strata applies them exactly as a context's delete and save do: `cascade` deletes the
/// destinations too (and applies their rules in turn), `nullify` removes the deleted objects
/// from the inverse relationships (a required to-one or a `minCount` left unmet there refuses
/// the request), `deny` refuses the request while the relationship has members that are not
/// deleted with it, `noAction` does nothing. The request is all-or-nothing: a refusal lists every
/// problem, by object and relationship, and deletes nothing. Objects the rules change (nullified
/// inverses) get new versions as a save gives them.
///
/// On SQLite, an entity without relationships is deleted with one `DELETE … WHERE` statement;
/// with relationships, the matching IDs are fetched, the rules planned over their records, and
/// the result saved in one transaction. On the XML, binary and in-memory stores it is one pass
/// over the records and one write of the file.
public struct BatchDeleteRequest {
    public var entityName: String
    /// Which objects to delete; nil for all of them.
    public var predicate: FetchPredicate?
    /// Whether objects of the entity's subentities are deleted too (the default).
    public var includesSubentities: Bool
    public var resultType: BatchResultType

    public init(entityName: String, predicate: FetchPredicate? = nil, includesSubentities: Bool = true, resultType: BatchResultType = .statusOnly) {
        self.entityName = entityName
        self.predicate = predicate
        self.includesSubentities = includesSubentities
        self.resultType = resultType
    }

    /// A request for the objects a fetch request matches (its entity, predicate and
    /// `includesSubentities`; its sort and window are ignored).
    public init(fetchRequest: FetchRequest, resultType: BatchResultType = .statusOnly) {
        self.init(entityName: fetchRequest.entityName, predicate: fetchRequest.predicate, includesSubentities: fetchRequest.includesSubentities, resultType: resultType)
    }
}
