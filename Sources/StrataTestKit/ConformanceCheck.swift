public import Testing

/// One behaviour every store must have, checked against a ``StoreKind``: the unit of the
/// conformance suite.
///
/// A store module runs every check that applies to its store as one parameterised test, so
/// that each check shows up as its own test case, named by ``name``:
///
/// ```swift
/// @Test(arguments: ConformanceCheck.all(for: .myStore))
/// func conformance(_ check: ConformanceCheck) async throws {
///     try await check.run(on: .myStore)
/// }
/// ```
///
/// A check makes each store it needs with `kind.makeDescription()` and deletes it when done;
/// its expectations (`#expect`, `#require`) are recorded against the test that runs it.
public struct ConformanceCheck: Sendable, CustomTestStringConvertible {
    /// What a store kind must offer for a check to apply to it.
    public struct Requirements: OptionSet, Sendable {
        /// The requirements as bits.
        public let rawValue: Int
        /// Requirements from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The store keeps its data in a file that outlives the coordinator (see
        /// ``StoreKind/persists``): checks that re-open a store in another coordinator, as
        /// another process would, or that migrate or replace the file.
        public static let persistent = Requirements(rawValue: 1 << 0)
        /// The store's contents can be migrated: a file store through `StoreMigrator`, or the
        /// built-in in-memory store (whose contents the check migrates itself).
        public static let migratable = Requirements(rawValue: 1 << 1)
    }

    /// The check's name, `Suite.behaviour` (`CRUD.insertFetchUpdateDelete`), unique in ``all``.
    public let name: String
    /// What a store kind must offer for the check to apply to it.
    public let requirements: Requirements
    private let body: @Sendable (StoreKind) async throws -> Void

    init(_ suite: String, _ name: String, requires requirements: Requirements = [], _ body: @escaping @Sendable (StoreKind) async throws -> Void) {
        self.name = "\(suite).\(name)"
        self.requirements = requirements
        self.body = body
    }

    /// The check's ``name``, which test results show for each test case.
    public var testDescription: String { name }

    /// Whether the check applies to stores of `kind`.
    public func applies(to kind: StoreKind) -> Bool {
        if requirements.contains(.persistent) && !kind.persists { return false }
        if requirements.contains(.migratable) && !(kind.persists || kind.type == .inMemory) { return false }
        return true
    }

    /// Runs the check against new stores of `kind`. A failed expectation is recorded as an
    /// issue of the running test; an unexpected error is thrown.
    public func run(on kind: StoreKind) async throws {
        try await body(kind)
    }

    /// The checks of ``all`` that apply to `kind`.
    public static func all(for kind: StoreKind) -> [ConformanceCheck] {
        all.filter { $0.applies(to: kind) }
    }
}
