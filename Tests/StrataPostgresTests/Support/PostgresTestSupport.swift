import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// The server the tests use: `STRATA_POSTGRES_URL` (`.ci/run` starts one and sets it). Without
/// it every test fails, saying how to start one: a PostgreSQL test never passes without a server.
enum TestServer {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "STRATA_POSTGRES_URL is not set: the PostgreSQL store's tests need a server. Start a throwaway one and point the tests at it: `export STRATA_POSTGRES_URL=$(Scripts/postgres-server.sh start)` before `swift test` (.ci/run does so)"
        }
    }

    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty else { throw Missing() }
        return url
    }
}

/// A store location in a schema of its own (`t_<uuid>`), dropped by `drop()`.
struct TestSchema {
    let url: URL
    let name: String

    init() throws {
        name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let base = try TestServer.url()
        url = URL(string: base + (base.contains("?") ? "&" : "?") + "schema=\(name)")!
    }

    /// A coordinator with one PostgreSQL store in this schema.
    func coordinator(_ schema: Schema) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withPostgres)
        try coordinator.addStore(StoreDescription(type: .postgres, url: url))
        return coordinator
    }

    func store(_ schema: Schema) throws -> PostgresStore {
        try PostgresStore(location: PostgresLocation(url), schema: schema)
    }

    func drop() { try? PostgresStoreFactory().destroyStore(at: url) }

    /// A PostgreSQL store in this schema and an in-memory store, both holding the seeded
    /// `Library` graph (40 items): the SQL-against-evaluator tests.
    func libraryStores(seed: UInt64) throws -> (postgres: PostgresStore, memory: AtomicStore, graph: LibraryGraph) {
        let schema = try LibraryFixture.schema()
        let postgres = try store(schema)
        let memory = try AtomicStore(format: nil, type: .inMemory, url: nil, schema: schema, configurationName: nil)
        let graph = LibraryGraph(schema: schema, storeIdentifier: postgres.metadata.storeIdentifier, seed: seed, items: 40)
        _ = try postgres.save(StoreChangeset(inserted: graph.all))
        _ = try memory.save(StoreChangeset(inserted: graph.all))
        return (postgres, memory, graph)
    }

    /// The store's URL with libpq's `application_name`, so that a test can find the store's
    /// connections in `pg_stat_activity` (at most 63 bytes: the schema's name and a prefix).
    func url(applicationName prefix: String) -> (url: URL, applicationName: String) {
        let name = "\(prefix)_\(self.name)"
        return (URL(string: url.absoluteString + "&application_name=\(name)")!, name)
    }

    /// Whether a connection named `applicationName` waits for a lock now.
    func waitsForALock(_ applicationName: String) -> Bool {
        (try? column("SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(applicationName)' AND wait_event_type = 'Lock'")) == ["1"]
    }

    /// The first column of every row of `sql`, run in the schema.
    func column(_ sql: String) throws -> [String?] {
        try PGConnectionPool(location: PostgresLocation(url)).read { (connection) throws(StrataError) in
            let result = try connection.run(sql)
            return (0..<result.count).map { result.text($0, 0) }
        }
    }
}

/// Waits (at most 30 s, polling) until `condition` holds; the test then checks what it must.
func waitUntil(_ condition: () throws -> Bool) rethrows {
    let deadline = Date().addingTimeInterval(30)
    while try !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
}

extension StoreTypeRegistry {
    static var withPostgres: StoreTypeRegistry { StoreTypeRegistry([PostgresStoreFactory()]) }
}

enum Models {
    static func schema(_ json: String) throws -> Schema {
        try Schema(data: Data(json.utf8), file: "test schema")
    }

    /// Every attribute type, a hierarchy with a subentity, to-one, one-to-many (ordered),
    /// many-to-many, a to-many without inverse, a uniqueness constraint.
    static func shop() throws -> Schema {
        try schema("""
        {
          "name": "Shop", "version": "1",
          "entities": [
            { "name": "Product",
              "attributes": [
                { "name": "name", "type": "string", "optional": true },
                { "name": "sku", "type": "string", "optional": true },
                { "name": "small", "type": "int16", "optional": true },
                { "name": "medium", "type": "int32", "optional": true },
                { "name": "large", "type": "int64", "optional": true },
                { "name": "price", "type": "decimal", "optional": true },
                { "name": "ratio", "type": "double", "optional": true },
                { "name": "weight", "type": "float", "optional": true },
                { "name": "active", "type": "bool", "optional": true },
                { "name": "added", "type": "date", "optional": true },
                { "name": "image", "type": "binary", "optional": true },
                { "name": "uid", "type": "uuid", "optional": true },
                { "name": "page", "type": "uri", "optional": true },
                { "name": "extra", "type": "transformable", "transformer": "Extra", "optional": true }
              ],
              "relationships": [
                { "name": "maker", "destination": "Maker", "inverse": "products", "optional": true },
                { "name": "labels", "destination": "Label", "inverse": "products", "toMany": true },
                { "name": "steps", "destination": "Step", "inverse": "product", "toMany": true, "ordered": true },
                { "name": "similar", "destination": "Product", "toMany": true }
              ],
              "uniquenessConstraints": [["sku"]] },
            { "name": "Bundle", "parent": "Product",
              "attributes": [ { "name": "discount", "type": "double", "optional": true } ] },
            { "name": "Maker",
              "attributes": [ { "name": "name", "type": "string", "optional": true } ],
              "relationships": [ { "name": "products", "destination": "Product", "inverse": "maker", "toMany": true } ] },
            { "name": "Label",
              "attributes": [ { "name": "text", "type": "string", "optional": true } ],
              "relationships": [ { "name": "products", "destination": "Product", "inverse": "labels", "toMany": true } ] },
            { "name": "Step",
              "attributes": [ { "name": "title", "type": "string", "optional": true } ],
              "relationships": [ { "name": "product", "destination": "Product", "inverse": "steps", "optional": true } ] }
          ]
        }
        """)
    }
}

/// Executables SwiftPM built beside the test bundle (`strata`, `strata-pg-stress`).
enum BuiltExecutable {
    static func url(_ name: String) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().standardizedFileURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        throw StrataError(.storeIO, "the \(name) executable was not found beside the test bundle; build it with `swift build --build-tests`")
    }

    /// Runs `name arguments…` in `directory` (with `environment` instead of the test's, when
    /// given): its exit status, and its standard output and error together.
    static func run(
        _ name: String, _ arguments: [String], in directory: URL, environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try url(name)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        let output = directory.appendingPathComponent("out-\(UUID().uuidString)")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }
}
