import Foundation
import Strata
import StrataBinaryPlist
import StrataCoreData
import StrataSQLite
import StrataXML

/// Every store type, Core Data's first: the registry the tests open and convert stores with.
let allStoreTypes = StoreTypeRegistry([SQLiteStoreFactory(), XMLStoreFactory(), BinaryPlistStoreFactory(), CoreDataSQLiteStoreFactory()])

/// A coordinator on `schema` with the Core Data store at `url` added.
func openCoreDataStore(_ url: URL, schema: Schema) throws -> (PersistentStoreCoordinator, any PersistentStore) {
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: allStoreTypes)
    let store = try coordinator.addStore(StoreDescription(type: .coreDataSQLite, url: url))
    return (coordinator, store)
}

/// The names and bytes of every file in a directory, to show that reading changed nothing.
func directorySnapshot(_ directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
        files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
    }
    return files
}

/// Rows of a table read with plain SQL from a read-only connection, each as column name → value.
func sqlRows(_ url: URL, _ sql: String, immutable: Bool = true) throws -> [[String: SQLValue]] {
    let database = try Database(path: url.path, mode: .init(readOnly: true, create: false, immutable: immutable))
    return try database.rows(sql, []) { row in
        var values: [String: SQLValue] = [:]
        for index in 0..<row.columnCount { values[row.columnName(index)] = row.value(at: Int32(index)) }
        return values
    }
}
