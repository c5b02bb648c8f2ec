import Foundation
public import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataXML

/// Opens a store file the way `strata dump` does and reads everything in it: each step must
/// either work or throw a ``StrataError``, never trap.
public enum StoreProbe {
    /// Every store type, as the CLI registers them.
    public static let registry = StoreTypeRegistry([
        SQLiteStoreFactory(),
        XMLStoreFactory(),
        BinaryPlistStoreFactory(),
    ])

    /// Reads `url` with an atomic store's `format` (the metadata, then the whole file), then
    /// opens and dumps it as ``openAndDump(_:type:)`` does.
    public static func readAndDump(_ url: URL, format: any AtomicStoreFormat) {
        _ = try? format.readMetadata(from: url)
        if let contents = try? format.read(from: url) {
            _ = contents.orderedRecords
        }
        openAndDump(url, type: format.type)
    }

    /// Reads the metadata, loads the schema stored in it, opens a coordinator on the file with
    /// that schema, dumps every object and counts every entity through a context.
    ///
    /// - Returns: the dump, or the first error (for checking by hand: the fuzzers ignore it).
    @discardableResult
    public static func openAndDump(_ url: URL, type: StoreType) -> Result<String, StrataError> {
        do throws(StrataError) {
            let metadata = try PersistentStoreCoordinator.metadataForStore(at: url, type: type, storeTypes: registry)
            let schema = try metadata.schema()
            let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: registry)
            let store = try coordinator.addStore(StoreDescription(type: type, url: url))
            defer { coordinator.removeStore(store) }
            let dump = try DataExporter.dump(coordinator)
            let context = ManagedObjectContext(coordinator: coordinator)
            for entity in schema.entities {
                let objects = try context.fetch(FetchRequest(entityName: entity.name))
                for object in objects {
                    for relationship in entity.relationships {
                        _ = object.value(forKey: relationship.name)
                    }
                }
            }
            return .success(dump)
        } catch {
            return .failure(error)
        }
    }
}
