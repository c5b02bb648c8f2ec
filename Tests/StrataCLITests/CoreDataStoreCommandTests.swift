import Foundation
import StrataSQLite
import Testing

/// `strata` on the Core Data SQLite stores of `../shared/fixtures/coredata/stores`, read in place.
@Suite("strata on Core Data stores")
struct CoreDataStoreCommandTests {
    static let stores = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata/stores")
    static let v1 = stores.appendingPathComponent("alemar11__CoreDataPlus__SampleModel_V1.sqlite").path
    static let v2 = stores.appendingPathComponent("alemar11__CoreDataPlus__SampleModel_V2.sqlite").path
    static let users = stores.appendingPathComponent("alemar11__CoreDataPlus__SampleModel3_V1.sqlite").path

    /// The model of `SampleModel3_V1.sqlite` (its `.xcdatamodel`, by hand).
    static let usersModel = """
        {"name": "SampleModel3", "version": "1", "entities": [
          {"name": "User", "attributes": [
            {"name": "name", "type": "string"}, {"name": "petName", "type": "string", "optional": true}]}]}
        """

    /// The entity hashes Core Data computed for the SampleModel versions (the compiled model's
    /// VersionInfo.plist), base64.
    static func compiledHashes(_ version: String) throws -> [String: String] {
        let url = packageRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/coredata/models/alemar11__CoreDataPlus__SampleModel.momd.VersionInfo.plist")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        let versions = try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        return try #require(versions[version]).mapValues { $0.base64EncodedString() }
    }

    static func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: stores.path) {
            files[name] = try Data(contentsOf: stores.appendingPathComponent(name))
        }
        return files
    }

    /// Without a model: entities with their counts, the hashes Core Data stored (those of the
    /// compiled model), the Core Data version that wrote the store, its metadata.
    @Test func inspectShowsTheStoredHashes() throws {
        let workspace = try Workspace()
        let hashes = try Self.compiledHashes("SampleModel")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.v1)[.size] as? Int)
        let run = try workspace.run("inspect", Self.v1)
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(run.stdout == """
            store:       \(Self.v1)
            type:        coredata (a Core Data SQLite store; Strata reads it, never writes it)
            size:        \(size) bytes
            UUID:        753753D3-A961-4901-AB05-8CC48B1D3853
            versions:    1 (NSStoreModelVersionIdentifiers)
            written by:  Core Data 1044 (NSPersistenceFrameworkVersion)
            objects:     145
            entities:    (Z_ENT, name, parent, objects)
              1   Car                                     115
              2   SportCar           (Car)                5
              3   ExpensiveSportCar  (SportCar)           5
              4   Person                                  20
            entity version hashes: (NSStoreModelVersionHashes, base64)
              Car                \(hashes["Car"]!)
              ExpensiveSportCar  \(hashes["ExpensiveSportCar"]!)
              Person             \(hashes["Person"]!)
              SportCar           \(hashes["SportCar"]!)
            core data NSStoreModelVersionHashesDigest: fACvwxty0QWritKFX3/LTtXZvI64UnFcRtP6qcjW1Yl0owr+rH+SpCvzy/uDYRpknMXbgacd3srn9wmE2KkL8Q==
            core data NSStoreModelVersionHashesVersion: 3
            core data NSStoreType: SQLite
            core data _NSAutoVacuumLevel: 2

            """)
        let json = try workspace.run("inspect", "--format", "json", Self.v2)
        #expect(json.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["entityVersionHashes"] as? [String: String] == (try Self.compiledHashes("SampleModel2")))
        #expect(report["frameworkVersion"] as? String == "1044")
        #expect(report["objectCounts"] as? [String: Int] == ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5, "Person": 20])
        #expect(report["type"] as? String == "coredata")
    }

    @Test func dumpQueryAndConvertWithTheModel() throws {
        let before = try Self.snapshot()
        let workspace = try Workspace(["users.json": Self.usersModel])
        let noModel = try workspace.run("dump", Self.users)
        #expect(noModel.status == 2)
        #expect(noModel.stderr.contains("the coredata store keeps no Strata model; open it with its model (strata: --schema <model>)"))
        let dump = try workspace.run("dump", "--schema", "users.json", Self.users)
        #expect(dump.status == 0)
        let objects = try parseObjects(dump.stdout)
        #expect(objects["User"]?.count == 12)
        #expect(objects["User"]?.first?["name"] as? String == "User_2")
        #expect(objects["User"]?.first?["petName"] as? String == "Dog_2_0")
        let count = try workspace.run("query", "--schema", "users.json", Self.users, "User", "--where", "name == 'User_1'", "--count")
        #expect(count.stdout == "4\n")
        for copy in ["copy.sqlite", "copy.xml", "copy.plist"] {
            let convert = try workspace.run("convert", "--schema", "users.json", Self.users, copy)
            #expect(convert.status == 0, "\(convert.stderr)")
            #expect(convert.stdout.hasPrefix("converted 12 objects from coredata"))
            #expect(try workspace.run("dump", copy).stdout == dump.stdout)
        }
        let wrongModel = try workspace.run("dump", "--schema", "users.json", Self.v1)
        #expect(wrongModel.status == 1)
        #expect(wrongModel.stderr.contains("does not match model 'SampleModel3': entity User is not in the store"))
        #expect(try Self.snapshot() == before)
    }

    @Test func writingCommandsRefuseACoreDataStore() throws {
        let before = try Self.snapshot()
        let workspace = try Workspace(["users.json": Self.usersModel, "data.json": #"{"objects": {"User": [{"@id": 50, "name": "New"}]}}"#])
        let delete = try workspace.run("delete", Self.users, "User", "--where", "TRUEPREDICATE")
        #expect(delete.status == 2)
        #expect(delete.stderr.contains("is a Core Data store, which Strata reads but never writes, so `strata delete` cannot change it"))
        let migrate = try workspace.run("migrate", "--schema", "users.json", Self.users)
        #expect(migrate.status == 2)
        #expect(migrate.stderr.contains("`strata migrate` cannot change it"))
        let load = try workspace.run("load", "--schema", "users.json", Self.users, "data.json")
        #expect(load.status == 2)
        #expect(load.stderr.contains("`strata load` cannot change it"))
        let into = try workspace.run("convert", "--to", "coredata", "--schema", "users.json", Self.users, "copy.sqlite")
        #expect(into.status == 2)
        #expect(into.stderr.contains("never writes them"))
        #expect(try Self.snapshot() == before)
    }

    /// Another process (this test) has the store open and its newest row only in the `-wal`:
    /// `strata` sees it, and changes no byte of the database, the log or the index.
    @Test func readsWhileAnotherProcessWrites() throws {
        let workspace = try Workspace(["users.json": Self.usersModel])
        let store = workspace.file("Users.sqlite")
        try FileManager.default.copyItem(atPath: Self.users, toPath: store.path)
        let writer = try Database(path: store.path, mode: .init(readOnly: false, create: false))
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("INSERT INTO ZUSER VALUES (13, 1, 1, 'User_9', 'Dog_9_9')")
        let files = ["Users.sqlite", "Users.sqlite-wal", "Users.sqlite-shm"]
        let before = files.map { workspace.contents($0) }
        #expect(before.allSatisfy { $0 != nil })
        let dump = try workspace.run("dump", "--schema", "users.json", "Users.sqlite")
        #expect(dump.status == 0, "\(dump.stderr)")
        let users = try parseObjects(dump.stdout)["User"] ?? []
        #expect(users.count == 13)
        #expect(users.last?["name"] as? String == "User_9")
        let inspect = try workspace.run("inspect", "Users.sqlite")
        #expect(inspect.stdout.contains("objects:     13\n"))
        #expect(files.map { workspace.contents($0) } == before)
        withExtendedLifetime(writer) {}
    }

    @Test func aFileThatIsNoCoreDataStoreGetsAClearError() throws {
        let workspace = try Workspace(["users.json": Self.usersModel, "junk.sqlite": "not a database, only some text"])
        let run = try workspace.run("dump", "--type", "coredata", "--schema", "users.json", "junk.sqlite")
        #expect(run.status == 1)
        #expect(run.stderr.contains("junk.sqlite: the file is not a SQLite database"))
        let inspect = try workspace.run("inspect", "--type", "coredata", "junk.sqlite")
        #expect(inspect.status == 1)
        #expect(inspect.stderr.contains("not a SQLite database"))
    }

    /// `check` takes no model and a Core Data SQLite store keeps none: the error says how to
    /// check one, not to give a `--schema` that `check` does not take; the store is unchanged.
    @Test(arguments: [[], ["--repair"]])
    func checkSaysHowToCheckACoreDataStore(_ options: [String]) throws {
        let workspace = try Workspace()
        let before = try Self.snapshot()
        let run = try workspace.run(["check"] + options + [Self.v1])
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("strata: error: cannot check '"))
        #expect(run.stderr.contains("it is a Core Data store, which keeps no model Strata can read, and `strata check` takes none; convert it with its model and check the copy: strata convert --schema <model> '"))
        #expect(!run.stderr.contains("(strata: --schema <model>)"))
        #expect(try Self.snapshot() == before)
    }
}
