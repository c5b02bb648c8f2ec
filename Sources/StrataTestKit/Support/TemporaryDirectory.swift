public import Foundation

/// A new, empty directory under the system's temporary directory, removed with everything in
/// it when the value goes away (or at ``cleanup()``).
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let url = directory.file("store.sqlite")
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory, named `strata-<prefix>-<UUID>`.
    public init(prefix: String = "tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { cleanup() }

    /// The URL of `name` in the directory (not created).
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the directory, sorted.
    public var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// Removes the directory and everything in it now.
    public func cleanup() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a new, empty temporary directory, removed when `body` returns or throws.
public func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    return try withExtendedLifetime(directory) { try body(directory.url) }
}
