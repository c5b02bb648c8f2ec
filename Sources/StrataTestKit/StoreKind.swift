package import Foundation
public import Strata
public import Testing

/// One type of store that the conformance suite runs against: how to make a new, empty store
/// of it, which factories open it, and whether its data outlives the coordinator that wrote it.
///
/// A store module describes its store once, usually with ``file(_:factory:fileExtension:)``:
///
/// ```swift
/// let kind = StoreKind.file("mystore", factory: MyStoreFactory(), fileExtension: "mystore")
/// ```
///
/// and runs every ``ConformanceCheck`` that applies to it (see <doc:TestingYourOwnStore>).
public struct StoreKind: Sendable, CustomTestStringConvertible {
    /// A short name, shown in test results (`memory`, `sqlite`, ...).
    public let name: String
    /// The store type the kind's descriptions name.
    public let type: StoreType
    /// The registry a coordinator needs to open this kind (the in-memory store is always in it).
    public let storeTypes: StoreTypeRegistry
    /// Whether a store re-opened in a fresh coordinator holds what was saved. The checks
    /// assert this against the store's `.persistent` capability, then re-open persistent kinds
    /// and check that the data survived exactly. Checks that need a store file run only on
    /// kinds that persist (``ConformanceCheck/Requirements/persistent``).
    public let persists: Bool
    /// A description of a new, empty store. When it has a URL, the file must be alone in a
    /// new directory of its own: the checks delete that directory when they are done (a
    /// store directly in the temporary, home or current directory is left there, and the
    /// check records an issue).
    public let makeDescription: @Sendable () throws -> StoreDescription

    /// A kind made of its parts; ``file(_:factory:fileExtension:)`` and ``memory`` cover the
    /// usual cases.
    public init(
        name: String, type: StoreType, storeTypes: StoreTypeRegistry, persists: Bool,
        makeDescription: @escaping @Sendable () throws -> StoreDescription
    ) {
        self.name = name
        self.type = type
        self.storeTypes = storeTypes
        self.persists = persists
        self.makeDescription = makeDescription
    }

    /// The kind's ``name``, which test results show for each test case.
    public var testDescription: String { name }

    /// The in-memory store: nothing survives its coordinator.
    public static let memory = StoreKind(
        name: "memory", type: .inMemory, storeTypes: StoreTypeRegistry(), persists: false,
        makeDescription: { .inMemory() })

    /// A store kept in a file, opened by `factory`: `store.<fileExtension>` in a new temporary
    /// directory for every store a check makes.
    ///
    /// The store must report `.persistent` in its `capabilities`, and the factory's
    /// `metadata(at:)` must read the store's metadata from the file.
    public static func file(_ name: String, factory: any PersistentStoreFactory, fileExtension: String) -> StoreKind {
        let type = factory.type
        return StoreKind(
            name: name, type: type, storeTypes: StoreTypeRegistry([factory]), persists: true,
            makeDescription: {
                let directory = FileManager.default.temporaryDirectory
                    .appendingPathComponent("strata-conformance", isDirectory: true)
                    .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                return StoreDescription(type: type, url: directory.appendingPathComponent("store.\(fileExtension)"))
            })
    }
}

extension StoreKind {
    /// Removes the directory `makeDescription` made for the store at `url`, with everything in it: what
    /// the checks do with every store they make. A directory that cannot be one made for a
    /// single store — the root, the temporary, home or current directory, or one above them —
    /// is left alone and the mistake recorded as an issue: a kind whose stores are files
    /// directly in `/tmp` must never have `/tmp` removed.
    package static func removeStoreDirectory(of url: URL?, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard let url, url.isFileURL else { return }
        let directory = url.deletingLastPathComponent()
        guard !isSharedDirectory(directory) else {
            Issue.record(
                "the store \(url.path) is not in a directory of its own, so the checks leave it there: give each store a new directory (see StoreKind.makeDescription)",
                sourceLocation: sourceLocation)
            return
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether `directory` is the root, the temporary, home or current directory, or holds one
    /// of them.
    package static func isSharedDirectory(_ directory: URL) -> Bool {
        let path = canonicalPath(directory)
        let shared = [
            FileManager.default.temporaryDirectory, FileManager.default.homeDirectoryForCurrentUser,
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
        ].map(canonicalPath)
        return path == "/" || shared.contains { $0 == path || $0.hasPrefix(path + "/") }
    }

    private static func canonicalPath(_ url: URL) -> String {
        var path = url.standardizedFileURL.resolvingSymlinksInPath().path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}

