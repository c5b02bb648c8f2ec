import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataTestKit
import StrataXML

extension StoreKind {
    /// An atomic store in a JSON file whose format is defined in this test target
    /// (``TestJSONFormat``): it runs the suite's persistence checks (re-open, metadata, model
    /// mismatch) through `AtomicStore`'s file handling, independently of the real file formats.
    static let testJSON = StoreKind.file(
        "test-json", factory: AtomicStoreFactory(format: TestJSONFormat()), fileExtension: TestJSONFormat.fileExtension)

    /// Every store kind of this package that the conformance suite runs against: the one
    /// place to add a store.
    ///
    /// To add a store, `import` its module at the top of this file and append one line built
    /// with `.file(name, factory:, fileExtension:)`, using your module's `PersistentStoreFactory`:
    ///
    ///     .file("postgres", factory: PostgresStoreFactory(), fileExtension: "..."),
    ///
    /// Nothing else changes: every test picks the new kind up, including the re-open checks.
    /// A file kind must report `.persistent` in its store's `capabilities`, and
    /// `metadataForStore(at:)` must find its type from the file (header or extension). A store
    /// that is not a file makes its own `StoreKind(name:type:storeTypes:persists:makeDescription:)`.
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
