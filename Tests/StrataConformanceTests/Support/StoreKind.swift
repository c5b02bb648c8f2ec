import Foundation
import Strata
import StrataBinaryPlist
import StrataXML
import StrataSQLite
import Testing

/// One store type the conformance suite runs against: how to make a fresh store of it, which
/// factories open it, and whether its data outlives the coordinator that wrote it.
///
/// Every conformance test takes a `StoreKind` argument: `@Test(arguments: StoreKind.all)`.
struct StoreKind: Sendable, CustomTestStringConvertible {
    /// A short name, shown in test results (`memory`, `sqlite`, ...).
    let name: String
    let type: StoreType
    /// The registry a coordinator needs to open this kind (the in-memory store is always in it).
    let storeTypes: StoreTypeRegistry
    /// Whether a store re-opened in a fresh coordinator holds what was saved. The suite asserts
    /// this against the store's `.persistent` capability, then re-opens persistent kinds after
    /// every test and checks the data survived exactly.
    let persists: Bool
    /// A description of a new, empty store; file kinds put it in a unique temporary directory,
    /// which the fixture deletes when it is done.
    let makeDescription: @Sendable () throws -> StoreDescription

    var testDescription: String { name }

    /// The in-memory store: nothing survives its coordinator.
    static let memory = StoreKind(
        name: "memory", type: .inMemory, storeTypes: StoreTypeRegistry(), persists: false,
        makeDescription: { .inMemory() })

    /// A store kept in a file, opened by `factory`: `store.<fileExtension>` in a new temporary
    /// directory per test.
    static func file(_ name: String, factory: any PersistentStoreFactory, fileExtension: String) -> StoreKind {
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

    /// An atomic store in a JSON file whose format is defined in this test target
    /// (``TestJSONFormat``): it runs the suite's persistence checks (re-open, metadata, model
    /// mismatch) through `AtomicStore`'s file handling, independently of the real file formats.
    static let testJSON = StoreKind.file(
        "test-json", factory: AtomicStoreFactory(format: TestJSONFormat()), fileExtension: TestJSONFormat.fileExtension)

    /// Every store kind the suite runs against.
    ///
    /// To add a store, `import` its module at the top of this file and append one line built
    /// with `.file(name, factory:, fileExtension:)`, using your module's `PersistentStoreFactory`
    /// (the type names below are examples):
    ///
    ///     .file("sqlite", factory: SQLiteStoreFactory(), fileExtension: "sqlite"),
    ///     .file("xml", factory: XMLStoreFactory(), fileExtension: "xml"),
    ///     .file("binary", factory: BinaryPlistStoreFactory(), fileExtension: "bplist"),
    ///
    /// Nothing else changes: every test picks the new kind up, including the re-open checks.
    /// A file kind must report `.persistent` in its store's `capabilities`, and
    /// `metadataForStore(at:)` must find its type from the file (header or extension).
    static let all: [StoreKind] = [
        .memory,
        .testJSON,
        .file("binary", factory: BinaryPlistStoreFactory(), fileExtension: "bplist"),
        .file("xml", factory: XMLStoreFactory(), fileExtension: "xml"),
        .sqlite,
    ]

    /// The SQLite store, for tests of what only it does (a streamed load).
    static let sqlite = StoreKind.file("sqlite", factory: SQLiteStoreFactory(), fileExtension: "sqlite")
}
