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
    /// For dictionary results: the columns, each a key path (an attribute, a to-one key path
    /// such as `publisher.name`, a relationship) or an aggregate (`@count`, `@sum.price`, …),
    /// named by itself; nil fetches every stored attribute. Reading it gives the names of
    /// ``expressionsToFetch``.
    public var propertiesToFetch: [String]? {
        get { expressionsToFetch?.map(\.name) }
        set { expressionsToFetch = newValue?.map(ExpressionDescription.init(keyPath:)) }
    }
    /// For dictionary results: the columns, each an expression with the name of its value
    /// (Core Data's `NSExpressionDescription`s in `propertiesToFetch`); nil fetches every stored
    /// attribute.
    public var expressionsToFetch: [ExpressionDescription]?
    /// For dictionary results: key paths (attributes, through to-one relationships, or to-one
    /// relationships) whose equal values make one group, or names of non-aggregate columns.
    /// With groups (or with an aggregate column and no groups: one group of every match), each
    /// result is one group, every column is a group key or an aggregate, and sort descriptors
    /// name columns or group keys. Groups come ordered by their keys (nil first) unless sorted
    /// otherwise, and a group key column shows the value of the group's object with the
    /// smallest primary key.
    public var propertiesToGroupBy: [String]
    /// For grouped dictionary results: which groups to keep, a predicate whose key paths name
    /// columns (`books > 1`, `@avg.price < 10`) or group keys (SQL's HAVING).
    public var havingPredicate: FetchPredicate?
    /// For dictionary results: whether equal rows appear once (at the place of the first of
    /// them in the request's order); the window applies after.
    public var returnsDistinctResults: Bool
    /// Whether fetched objects come back as faults: only their IDs are read, and each object's
    /// values load when first used. Objects already registered in the context come back as
    /// they are. Default false: objects come back with their values.
    public var returnsObjectsAsFaults: Bool
    /// Whether objects of subentities match too (default true).
    public var includesSubentities: Bool
    /// Whether unsaved changes of the context take part: inserted objects that match, updated
    /// objects with their new values, deleted objects left out (default true).
    public var includesPendingChanges: Bool
    /// Load objects this many at a time: as a ``FetchedResults`` is read, and in `fetch(_:)`,
    /// which reads the matching IDs first and then the objects' records this many per store
    /// request; 0 loads all at once.
    public var fetchBatchSize: Int
    /// Key paths through to-one and to-many relationships (`author.books.tags`) whose
    /// destinations are loaded with the result, one store request per step and store.
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
        self.expressionsToFetch = nil
        self.propertiesToGroupBy = []
        self.havingPredicate = nil
        self.returnsDistinctResults = false
        self.returnsObjectsAsFaults = false
        self.includesSubentities = true
        self.includesPendingChanges = true
        self.fetchBatchSize = 0
        self.relationshipKeyPathsForPrefetching = []
    }
}
