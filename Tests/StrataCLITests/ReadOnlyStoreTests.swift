import Foundation
import Strata
import StrataSQLite
import Testing

/// SQLite stores on a read-only file in a read-only directory (issue 10, M2), read by a user who
/// cannot write them. Tests run as root, whom permission bits do not stop: `strata` is run as
/// `nobody` through setpriv(1), so that the permissions really apply.
@Suite("strata on a read-only SQLite store")
struct ReadOnlyStoreTests {
    static var canDropPrivileges: Bool { StrataExecutable.canDropPrivileges }

    /// Makes the workspace read-only for the duration of `body`.
    static func readOnly(_ workspace: Workspace, _ body: () throws -> Void) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: workspace.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: workspace.url.path) }
        try body()
    }

    @Test(.enabled(if: canDropPrivileges)) func aReadOnlyFileInAReadOnlyDirectoryIsRead() throws {
        let workspace = try Workspace(["todo.json": todoData], schemas: ["TodoList"])
        try workspace.load("todo.sqlite", schema: "TodoList.json", data: [("todo.json", todoData)])
        let dump = try workspace.dump("todo.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: workspace.file("todo.sqlite").path)
        let before = try workspace.listing()
        let bytes = workspace.contents("todo.sqlite")
        try Self.readOnly(workspace) {
            let dumped = try workspace.runAsNobody("dump", "todo.sqlite")
            #expect(dumped.stderr == "")
            #expect(dumped.status == 0)
            #expect(dumped.stdout == dump)

            let inspected = try workspace.runAsNobody("inspect", "todo.sqlite")
            #expect(inspected.status == 0, "\(inspected.stderr)")
            #expect(inspected.stdout.contains("objects:     12\n"))

            let queried = try workspace.runAsNobody("query", "todo.sqlite", "Todo", "--where", "priority >= 4", "--format", "ids")
            #expect(queried.status == 0, "\(queried.stderr)")
            #expect(queried.stdout == "2\n6\n10\n")

            // A write says the store is read-only, and writes nothing.
            try workspace.write("more.json", #"{"objects": {"Tag": [{"@id": 9, "name": "new"}]}}"#)
        }
        #expect(try workspace.listing() == (before + ["more.json"]).sorted())
        try Self.readOnly(workspace) {
            let load = try workspace.runAsNobody("load", "--schema", "TodoList.json", "todo.sqlite", "more.json")
            #expect(load.status == 2)
            #expect(load.stderr == "strata: error: \(workspace.file("todo.sqlite").path): the store is read-only: it was opened for reading, or this process cannot write the file or create its '-wal' and '-shm' files beside it; nothing was written\n")
        }
        #expect(workspace.contents("todo.sqlite") == bytes)
        #expect(try workspace.listing() == (before + ["more.json"]).sorted())
    }

    @Test(.enabled(if: canDropPrivileges)) func aLiveWritersLogIsReadInAReadOnlyDirectory() throws {
        let workspace = try Workspace(schemas: ["People"])
        let url = workspace.file("people.sqlite")
        let schema = try Schema(contentsOf: workspace.file("People.json"))
        // A writer that keeps the store open, with its last commit still in the log.
        let store = try SQLiteStore(url: url, schema: schema)
        let keys = try store.allocatePrimaryKeys(rootEntity: "Person", count: 3)
        _ = try store.save(StoreChangeset(inserted: keys.map { key in
            StoreRecord(
                objectID: ObjectID(entityName: "Person", storeIdentifier: store.storeIdentifier, primaryKey: key),
                attributes: ["firstName": .string("p\(key)"), "lastName": .string("live")])
        }))
        #expect((try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0) > 0)
        try Self.readOnly(workspace) {
            let dumped = try workspace.runAsNobody("dump", "people.sqlite")
            #expect(dumped.status == 0, "\(dumped.stderr)")
            #expect(try parseObjects(dumped.stdout)["Person"]?.ids == [1, 2, 3])
        }
        // The same file and log without the log's index, where none can be made: refused, not
        // read without the log's commits.
        try FileManager.default.createDirectory(at: workspace.file("copy"), withIntermediateDirectories: false)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: workspace.file("copy/people.sqlite").path + suffix)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: workspace.file("copy").path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: workspace.file("copy").path) }
        let refused = try workspace.runAsNobody("dump", "copy/people.sqlite")
        #expect(refused.status == 2)
        let copy = workspace.file("copy/people.sqlite").path
        #expect(refused.stderr == "strata: error: \(copy): the store cannot be read here: its write-ahead log '\(copy)-wal' holds transactions that are not in the file yet, and SQLite cannot create the '-shm' index it needs to read the log in this read-only directory. Open the store once where its directory is writable, so that the log is folded into the file\n")
        #expect(refused.stdout == "")
    }

    @Test(.enabled(if: canDropPrivileges)) func aWritableFileWhoseLogCannotBeMadeIsRefused() throws {
        let workspace = try Workspace(["people.json": #"{"objects": {"Person": [{"@id": 1, "firstName": "A", "lastName": "B"}]}}"#], schemas: ["People"])
        try workspace.load("people.sqlite", schema: "People.json", data: [("people.json", #"{"objects": {"Person": [{"@id": 1, "firstName": "A", "lastName": "B"}]}}"#)])
        let before = try workspace.listing()
        // The directory is writable by its owner only, the file too: the owner could write the
        // store while another user reads it without the -shm that would tell.
        let run = try workspace.runAsNobody("inspect", "people.sqlite")
        #expect(run.status == 2)
        #expect(run.stderr == "strata: error: \(workspace.file("people.sqlite").path): the store cannot be opened here: SQLite cannot create its '-wal' and '-shm' files in this directory, so this process cannot write the store, nor read it safely, since the file is writable and another process could change it meanwhile. Make the directory writable, or make the file read-only (chmod a-w) to read it as an immutable file\n")
        #expect(try workspace.listing() == before)
    }

    @Test func theReadOnlyOptionRefusesWrites() throws {
        let workspace = try Workspace(schemas: ["People"])
        let url = workspace.file("people.sqlite")
        let schema = try Schema(contentsOf: workspace.file("People.json"))
        _ = try SQLiteStore(url: url, schema: schema)
        let store = try SQLiteStore(url: url, schema: schema, options: [SQLiteStore.readOnlyOption: "true"])
        #expect(store.isReadOnly)
        #expect(try store.count(StoreFetchRequest(entityNames: ["Person"])) == 0)
        let error = #expect(throws: StrataError.self) { try store.allocatePrimaryKeys(rootEntity: "Person", count: 1) }
        #expect(error?.code == .storeIO)
        #expect(error?.file == url.path)
        #expect(error?.message.hasPrefix("the store is read-only") == true)
        #expect(throws: StrataError.self) { try store.setCustomMetadata(["a": "b"]) }
        // Reading opens no new file for good: the last connection tidies up as SQLite does.
        _ = consume store
        #expect(try workspace.listing() == ["People.json", "people.sqlite"])
        let missing = #expect(throws: StrataError.self) {
            try SQLiteStore(url: workspace.file("missing.sqlite"), schema: schema, options: [SQLiteStore.readOnlyOption: "true"])
        }
        #expect(missing?.code == .storeIO)
        #expect(try workspace.listing() == ["People.json", "people.sqlite"])
    }
}
