import Foundation
import Strata
import StrataSQLite
import StrataTestKit
import Testing

/// A store on a file no other process knows yet (``SQLiteStore/privateFileOption``) is written
/// without the write-ahead log, commits whole, and is an ordinary WAL file once finished.
@Suite struct PrivateFileTests {
    private static let schema = """
        { "name": "Notes", "entities": [ { "name": "Note", "attributes": [
          { "name": "text", "type": "string" } ],
          "uniquenessConstraints": [ [ "text" ] ] } ] }
        """

    private func open(_ url: URL, privateFile: Bool) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(schema: try Schema(data: Data(Self.schema.utf8)), storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        let options = privateFile ? [SQLiteStore.privateFileOption: "true"] : [:]
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url, options: options))
        return (coordinator, ManagedObjectContext(coordinator: coordinator))
    }

    private func texts(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Note")).compactMap { $0["text"] as? String }.sorted()
    }

    @Test func aPrivateFileIsWrittenWithoutTheLogAndOpensAsAWALStoreAfter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("notes.sqlite")
        do {
            let (_, context) = try open(url, privateFile: true)
            for text in ["a", "b", "c"] { try context.insertObject(entityName: "Note")["text"] = text }
            try context.save()
            // No log beside the file while it is written: the journal is in memory.
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: url.path + "-journal"))
            #expect(try texts(ManagedObjectContext(coordinator: context.coordinator)) == ["a", "b", "c"])
            // Rollback mode in the file's header (bytes 18 and 19: 1, WAL 2) until finished.
            #expect(try Array(Data(contentsOf: url)[18...19]) == [1, 1])
            try #require(context.coordinator.stores.first as? SQLiteStore).finishPrivateFile()
            #expect(try texts(ManagedObjectContext(coordinator: context.coordinator)) == ["a", "b", "c"])
        }
        #expect(try Array(Data(contentsOf: url)[18...19]) == [2, 2])
        // Opened again as any store is: in WAL mode, with what was saved.
        let (_, context) = try open(url, privateFile: false)
        #expect(try texts(context) == ["a", "b", "c"])
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        try context.insertObject(entityName: "Note")["text"] = "d"
        try context.save()
        #expect(try texts(ManagedObjectContext(coordinator: context.coordinator)) == ["a", "b", "c", "d"])
    }

    @Test func aFailedSaveToAPrivateFileLeavesItAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("notes.sqlite")
        let (_, context) = try open(url, privateFile: true)
        for text in ["a", "b"] { try context.insertObject(entityName: "Note")["text"] = text }
        try context.save()
        // A save whose last insert breaks the uniqueness constraint is rolled back whole, with
        // the journal in memory as with the log.
        for text in ["c", "d", "a"] { try context.insertObject(entityName: "Note")["text"] = text }
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .validationFailed)
        #expect(try texts(ManagedObjectContext(coordinator: context.coordinator)) == ["a", "b"])
    }
}
