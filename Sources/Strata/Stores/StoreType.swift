/// The kind of a store: `memory`, `sqlite`, `xml`, `binary`; store modules add theirs.
public struct StoreType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static let inMemory: StoreType = "memory"
    public static let sqlite: StoreType = "sqlite"
    public static let xml: StoreType = "xml"
    public static let binaryPlist: StoreType = "binary"

    public var description: String { rawValue }
}

/// What a store can do. Where a store cannot honour part of a model the coordinator refuses to
/// add it, with the reason; it never degrades silently.
public struct StoreCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Fetches run in the store (SQL) rather than over records loaded at open.
    public static let incrementalFetching = StoreCapabilities(rawValue: 1 << 0)
    /// Several readers can fetch while a save is in progress.
    public static let concurrentReaders = StoreCapabilities(rawValue: 1 << 1)
    /// Uniqueness constraints are enforced by the storage engine itself.
    public static let engineUniqueness = StoreCapabilities(rawValue: 1 << 2)
    /// Large binary values can be kept outside the store file.
    public static let externalBinaryStorage = StoreCapabilities(rawValue: 1 << 3)
    /// The store keeps its data in a file that outlives the process.
    public static let persistent = StoreCapabilities(rawValue: 1 << 4)
}
