import Testing

/// A workspace that the tests of a suite share, made once before the suite runs and removed
/// after it: for tests that only read stores, so that each does not pay for its own
/// `strata load`.
///
/// ```swift
/// @Suite(.sharedWorkspace { try Workspace.todo() })
/// struct QueryTests {
///     @Test func count() throws {
///         let workspace = try SharedWorkspace.get()
///     }
/// }
/// ```
struct SharedWorkspace: SuiteTrait, TestScoping {
    @TaskLocal private static var current: Workspace?

    let make: @Sendable () throws -> Workspace

    /// The workspace of the suite that is running.
    static func get() throws -> Workspace {
        try #require(current, "the suite has no .sharedWorkspace trait")
    }

    /// Once for the suite, not once per test.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? self : nil
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let workspace = try make()
        try await Self.$current.withValue(workspace) {
            try await function()
        }
    }
}

extension Trait where Self == SharedWorkspace {
    /// Runs the suite's tests with one workspace made by `make`; see ``SharedWorkspace``.
    static func sharedWorkspace(_ make: @escaping @Sendable () throws -> Workspace) -> Self {
        SharedWorkspace(make: make)
    }
}
