/// A store that takes a load's objects as they are read (``DataImporter/load(contentsOf:)``):
/// rows written straight from the reader into a store that holds no object yet, in one
/// transaction, with no record, object or change set in between.
///
/// The importer checks every rule of the model before anything is made durable; the store
/// checks uniqueness. Whenever either finds a problem the load is rolled back and done again
/// the ordinary way, which reports it exactly — a bulk load is only ever a faster way to the
/// same result.
package protocol BulkLoadingStore: PersistentStore {
    /// Runs `body` with a session in one write transaction of a store that holds no object.
    /// Commits when `body` returns true and the session's ``BulkLoadSession/finish()`` does;
    /// rolls back when it returns false, throws, or `finish()` finds a uniqueness constraint
    /// broken.
    /// - Returns: whether the load was committed; false, with nothing written, also when the
    ///   store holds objects already (or cannot take a bulk load).
    func bulkLoad(_ body: (any BulkLoadSession) throws(StrataError) -> Bool) throws(StrataError) -> Bool
}

/// How a bulk load writes a relationship of an entity (``BulkLoadSession/plan(entity:relationship:)``).
package enum BulkRelationshipPlan: Sendable, Hashable {
    /// A to-one kept in the object's own row: a destination the object gives itself is written
    /// with its row (``BulkLoadSession/insert(entity:key:values:toOneKeys:)``); one set from the
    /// other side is given to ``BulkLoadSession/relate(entity:key:relationship:members:)``.
    case withRow
    /// Given to ``BulkLoadSession/relate(entity:key:relationship:members:)`` once every row is
    /// written — or, for a list the object gives itself, as soon as its own row is (a join
    /// table's rows need no member's row).
    case afterRows
    /// Given to ``BulkLoadSession/relate(entity:key:relationship:members:)`` once every row is
    /// written — or, for a list the object gives itself, as soon as the rows of the object and
    /// of every member are (the members' rows are updated).
    case afterMemberRows
    /// Written by the other side of the relationship: never given.
    case byInverse
}

/// One bulk load into a store, valid inside ``BulkLoadingStore/bulkLoad(_:)``. Entities are named
/// by their index in the schema's `entities`, relationships by their position in the entity's
/// `relationships`.
package protocol BulkLoadSession: AnyObject {
    /// How the relationship at `relationship` of entity `entity` is written; nil when the store
    /// holds no such entity (the load then goes the ordinary way).
    func plan(entity: Int, relationship: Int) -> BulkRelationshipPlan?
    /// Writes a new object's row: every attribute value (defaults included; transient ones are
    /// not stored) and, by relationship position, the keys of the ``BulkRelationshipPlan/withRow``
    /// to-ones the object gives itself (nil for the others).
    func insert(entity: Int, key: Int64, values: AttributeValues, toOneKeys: [Int64?]) throws(StrataError)
    /// Writes a relationship of a row written before: `members` (entity index and key), in
    /// order; one member for a to-one, none to leave it empty. A member's entity is needed only
    /// for a to-one (-1 when unknown for a to-many). Rows and relationships are written in the
    /// order they are given, and each relationship once.
    func relate(entity: Int, key: Int64, relationship: Int, members: [(entity: Int, key: Int64)]) throws(StrataError)
    /// Says that every row is given (relationships may follow): the store may start on what it
    /// does once for all rows (the SQLite store builds its indexes) while the load resolves
    /// its relationships.
    func rowsComplete() throws(StrataError)
    /// Completes the load: the indexes (if ``rowsComplete()`` did not) and the key counters.
    /// False when a uniqueness constraint does not hold (nothing is committed then). Called
    /// again, it answers the same and does nothing more.
    func finish() throws(StrataError) -> Bool
}
