public import Foundation
public import Strata
internal import StrataXML

extension StoreType {
    /// A Core Data XML store (`NSXMLStoreType`), read-only: ``CoreDataXMLStoreFactory``.
    public static let coreDataXML: StoreType = "coredata-xml"
}

/// Opens the XML stores Core Data writes (`NSXMLStoreType`, and Xcode's mapping models, which
/// use the same format), read-only.
///
/// A file is recognised by its document type declaration,
/// `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">` (accepted only
/// exactly so, never loaded), whatever its extension. Opened with the model the store was
/// written with, its objects are read with that model's names, types and ordered
/// relationships; without one (``metadata(at:)``, as `strata dump` and `strata convert` use
/// it), the model is inferred from the file (``CoreDataXMLSchemaInference``).
///
/// ```swift
/// var types = StoreTypeRegistry()
/// types.register(CoreDataXMLStoreFactory())
/// let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
/// try coordinator.addStore(StoreDescription(type: .coreDataXML, url: URL(fileURLWithPath: "App.xml")))
/// ```
///
/// The layout Core Data writes, and how it is read:
/// - `<object type="EMPLOYEE" id="z102">`: the entity's name upper-cased; the object's primary
///   key is the number its id ends with (102), or, when the ids of an inheritance hierarchy do
///   not each end in their own number, 1, 2, 3… in file order;
/// - `<attribute name="hiredate" type="date">`: the attribute's name lower-cased (names match
///   whatever their case), its type, its value as text: dates in seconds since 2001-01-01,
///   booleans `1`/`0`, binary and transformable data in base64; a nil value is left out;
/// - `<relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104">`:
///   `type` is `1/1` for a to-one and `0/0` for a to-many, `idrefs` the members' ids (in
///   order for an ordered relationship); an empty relationship has no `idrefs`;
/// - `<databaseInfo>` holds the store's UUID (the store identifier), the format version, the
///   last object number and the metadata property list, whose keys become the store's custom
///   metadata (``CoreDataXMLStoreInfo/customMetadata``).
///
/// Saving is refused: convert the store to a Strata store (`strata convert App.xml app.sqlite`)
/// to change it. Reading never writes, creates or locks a file.
public struct CoreDataXMLStoreFactory: PersistentStoreFactory {
    public init() {}

    public var type: StoreType { .coreDataXML }
    /// None: Core Data XML stores are told by their content (an `.xml` file without Core Data's
    /// document type is a Strata XML store).
    public var fileExtensions: [String] { [] }

    /// True when the file's first bytes declare Core Data's document type.
    public func recognizes(header: Data) -> Bool {
        CoreDataDocumentType.isDeclared(inHeader: header)
    }

    /// Opens the store at `url` for reading with `schema`.
    /// - Throws: `storeIO` when there is no file (Core Data XML stores are never created);
    ///   `corruptStore` naming the object and line when the file is malformed or does not fit
    ///   `schema`.
    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        guard let url else {
            throw StrataError(.invalidConfiguration, "a Core Data XML store needs a file; for a store in memory use the type memory")
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no Core Data XML store at '\(url.relativePath)'; Strata reads Core Data XML stores but does not create them (create an xml store instead)", file: url.path)
        }
        let store = try AtomicStore(
            format: CoreDataXMLStoreFormat(schema: schema), type: type, url: url, schema: schema, configurationName: configurationName)
        return CoreDataXMLStore(store)
    }

    /// The store's metadata, with a model inferred from the file (``CoreDataXMLSchemaInference``):
    /// the whole file is read (a file whose objects do not fit the inferred model is reported
    /// when the store is opened).
    /// - Throws: `corruptStore` when the file is malformed or no model can be inferred from it.
    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        let document = try CoreDataXMLParser.read(path: url.path)
        let inference = try CoreDataXMLSchemaInference.infer(from: document)
        return document.metadata(with: inference.schema, storeType: type)
    }

    /// What the store's `<databaseInfo>` holds: its UUID, format version, last object number
    /// and metadata (Core Data's version hashes among them).
    /// - Throws: `corruptStore` when the file is malformed; `storeIO` when it cannot be read.
    public static func info(at url: URL) throws(StrataError) -> CoreDataXMLStoreInfo {
        try CoreDataXMLParser.read(path: url.path).info
    }
}

/// Reads a Core Data XML store for ``AtomicStore`` with the model it is opened with; never
/// writes one.
struct CoreDataXMLStoreFormat: AtomicStoreFormat {
    let schema: Schema

    var type: StoreType { .coreDataXML }
    var fileExtensions: [String] { [] }
    func recognizes(header: Data) -> Bool { CoreDataDocumentType.isDeclared(inHeader: header) }

    func read(from url: URL) throws(StrataError) -> AtomicStoreContents {
        try CoreDataXMLParser.read(path: url.path).contents(with: schema, storeType: type)
    }

    func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata {
        try read(from: url).metadata
    }

    func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError) {
        throw CoreDataXMLStore.readOnlyError(url.path)
    }
}
