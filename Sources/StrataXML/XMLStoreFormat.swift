public import Foundation
public import Strata

/// Core Data's XML store layout, for `AtomicStore`: a readable file that holds a whole
/// object graph, read with libxml2's streaming SAX2 parser and written with its `xmlTextWriter`
/// (the header) and a buffer of serialized objects (the rest).
///
/// ```swift
/// var types = StoreTypeRegistry()
/// types.register(XMLStoreFactory())
/// let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
/// try coordinator.addStore(StoreDescription(type: .xml, url: URL(fileURLWithPath: "todos.xml")))
/// ```
///
/// The layout (names in exact case; see `Docs/XMLStore.md` for every value encoding):
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <database>
///   <databaseInfo>
///     <version>1</version>
///     <UUID>…store identifier…</UUID>
///     <nextObjectID>3</nextObjectID>
///     <metadata>…model name, hashes, key sequences, custom keys, the schema JSON…</metadata>
///   </databaseInfo>
///   <object type="Tag" id="p1">
///     <attribute name="name" type="string">home</attribute>
///     <relationship name="todos" type="0/0" destination="Todo" idrefs="p1 p2"></relationship>
///   </object>
/// </database>
/// ```
///
/// An object's `id` is `p` and its primary key; `idrefs` lists members the same way
/// (space-separated, in stored order for an ordered to-many). A relationship's `type` is its
/// minimum and maximum count as Core Data writes it: `1/1` required to-one, `0/1` optional
/// to-one, `0/0` unbounded to-many. Files that declare a document type or entities are refused.
public struct XMLStoreFormat: AtomicStoreFormat {
    public init() {}

    public var type: StoreType { .xml }
    public var fileExtensions: [String] { ["xml"] }

    /// True for text that starts (after an optional byte-order mark and whitespace) with
    /// `<?xml` or `<database`, unless it declares Core Data's document type: that is a Core
    /// Data XML store (`coredata-xml`, read by StrataCoreData).
    public func recognizes(header: Data) -> Bool {
        var bytes = header[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return (bytes.starts(with: Array("<?xml".utf8)) || bytes.starts(with: Array("<database".utf8)))
            && !CoreDataDocumentType.isDeclared(inHeader: header)
    }

    /// Reads a whole store, checking every element, value and reference.
    /// - Throws: `corruptStore` naming the problem with its line and column; `storeIO` when
    ///   the file cannot be read.
    public func read(from url: URL) throws(StrataError) -> AtomicStoreContents {
        try LibXML2.withoutErrorOutput { () throws(StrataError) in try XMLStoreReader(path: url.path, scope: .everything).read() }
    }

    /// Reads `<databaseInfo>` and stops: the cost does not grow with the number of objects.
    public func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata {
        try LibXML2.withoutErrorOutput { () throws(StrataError) in try XMLStoreReader(path: url.path, scope: .metadataOnly).readMetadata() }
    }

    /// Writes a whole store to a new file at `url`.
    /// - Throws: `storeIO` when the file cannot be written; `invalidData` when a record does not
    ///   fit the store's model (a value of another type, an unknown property, a temporary ID).
    public func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError) {
        try LibXML2.withoutErrorOutput { () throws(StrataError) in try XMLStoreWriter(path: url.path).write(contents) }
    }
}

/// Opens XML stores: `AtomicStoreFactory` with ``XMLStoreFormat``.
///
/// ```swift
/// var types = StoreTypeRegistry()
/// types.register(XMLStoreFactory())
/// ```
public struct XMLStoreFactory: PersistentStoreFactory {
    private let factory = AtomicStoreFactory(format: XMLStoreFormat())

    public init() {}

    public var type: StoreType { factory.type }
    public var fileExtensions: [String] { factory.fileExtensions }
    public func recognizes(header: Data) -> Bool { factory.recognizes(header: header) }

    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        try factory.open(url: url, schema: schema, configurationName: configurationName, options: options)
    }

    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        try factory.metadata(at: url)
    }

    /// Migrates the store at `url` through `plan`: every record transformed in memory, the file
    /// replaced once, atomically (`AtomicStoreMigration`).
    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        try factory.migrateStore(at: url, plan: plan, options: options, progress: progress)
    }
}
