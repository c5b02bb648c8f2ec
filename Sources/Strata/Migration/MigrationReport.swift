/// What a migration did.
public struct MigrationReport: Sendable, Hashable {
    /// One step carried out.
    public struct Step: Sendable, Hashable {
        /// ``MigrationStep/summary``.
        public var summary: String
        /// How many changes of the model the step carried out.
        public var changeCount: Int
        public var isCustom: Bool

        public init(summary: String, changeCount: Int, isCustom: Bool) {
            self.summary = summary
            self.changeCount = changeCount
            self.isCustom = isCustom
        }
    }

    public var steps: [Step]
    /// True when the store already had the destination model (nothing to do, or another
    /// process migrated it first).
    public var wasAlreadyCurrent: Bool

    public init(steps: [Step] = [], wasAlreadyCurrent: Bool = false) {
        self.steps = steps
        self.wasAlreadyCurrent = wasAlreadyCurrent
    }

    /// The report of a plan carried out in full.
    public init(plan: MigrationPlan) {
        self.init(steps: plan.steps.map { Step(summary: $0.summary, changeCount: $0.diff.changes.count, isCustom: $0.isCustom) })
    }
}

/// How far a migration is, for a progress display: reported at the start of each step and
/// every so often within long ones.
public struct MigrationProgressEvent: Sendable, Hashable {
    /// The step, from 1, and the number of steps.
    public var step: Int
    public var stepCount: Int
    /// What is being done: "Person: copying rows", "checking uniqueness".
    public var activity: String
    /// Units done and to do in this activity (rows, records); nil when not counted.
    public var completed: Int?
    public var total: Int?

    public init(step: Int, stepCount: Int, activity: String, completed: Int? = nil, total: Int? = nil) {
        self.step = step
        self.stepCount = stepCount
        self.activity = activity
        self.completed = completed
        self.total = total
    }
}

/// Receives ``MigrationProgressEvent``s; called on the migrating thread.
public typealias MigrationProgress = @Sendable (MigrationProgressEvent) -> Void
