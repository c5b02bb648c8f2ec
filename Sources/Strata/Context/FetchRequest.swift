/// What to fetch: an entity (with its subentities by default), a predicate, an order, a window,
/// and the kind of result.
///
/// ```swift
/// var request = FetchRequest(entityName: "Todo")
/// request.predicate = .key("done") == false
/// request.sortDescriptors = [FetchSortDescriptor("priority", ascending: false), FetchSortDescriptor("title")]
/// request.fetchLimit = 20
/// let todos = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable, Hashable {
    public enum ResultType: Sendable, Hashable {
        case objects
        case objectIDs
        case count
        /// Dictionaries of `propertiesToFetch` (every attribute when nil).
        case dictionaries
    }

    public var entityName: String
    public var predicate: FetchPredicate?
    public var sortDescriptors: [FetchSortDescriptor]
    /// The most objects to return; 0 means no limit.
    public var fetchLimit: Int
    /// How many matching objects to skip first.
    public var fetchOffset: Int
    public var resultType: ResultType
    /// For dictionary results: attribute names or key paths through to-one relationships.
    public var propertiesToFetch: [String]?
    /// Whether objects of subentities match too (default true).
    public var includesSubentities: Bool
    /// Whether unsaved changes of the context take part: inserted objects that match, updated
    /// objects with their new values, deleted objects left out (default true).
    public var includesPendingChanges: Bool
    /// Load objects this many at a time as a result is iterated; 0 loads all at once.
    public var fetchBatchSize: Int
    /// To-one and to-many key paths whose destinations are loaded with the result.
    public var relationshipKeyPathsForPrefetching: [String]

    public init(
        entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, resultType: ResultType = .objects
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.resultType = resultType
        self.propertiesToFetch = nil
        self.includesSubentities = true
        self.includesPendingChanges = true
        self.fetchBatchSize = 0
        self.relationshipKeyPathsForPrefetching = []
    }
}
