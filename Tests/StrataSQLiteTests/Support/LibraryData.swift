import Foundation
import Strata
@testable import StrataSQLite
import StrataTestKit

extension LibraryGraph {
    /// A SQLite store and an in-memory store holding the same seeded graph of 40 items: the two
    /// sides of the property tests.
    static func stores(seed: UInt64) throws -> (sqlite: SQLiteStore, memory: AtomicStore, graph: LibraryGraph) {
        let schema = try LibraryFixture.schema()
        let sqlite = try SQLiteStore(url: nil, schema: schema)
        let memory = try AtomicStore(format: nil, type: .inMemory, url: nil, schema: schema, configurationName: nil)
        let graph = LibraryGraph(schema: schema, storeIdentifier: sqlite.metadata.storeIdentifier, seed: seed, items: 40)
        _ = try sqlite.save(StoreChangeset(inserted: graph.all))
        _ = try memory.save(StoreChangeset(inserted: graph.all))
        return (sqlite, memory, graph)
    }
}
