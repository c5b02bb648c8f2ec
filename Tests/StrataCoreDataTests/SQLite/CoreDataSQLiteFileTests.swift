import Foundation
import Strata
import StrataCoreData
import StrataSQLite
import StrataTestKit
import Testing

/// A store whose tables and rows are all in its `-wal`, read while the writer has it open, after
/// it closed with the `-shm` left, and with the `-shm` missing: every row is seen and no file
/// changes (no `-shm` is created, no byte of the database, log or index is written).
struct CoreDataSQLiteFileTests {
    @Test func readsAStoreKeptInItsWriteAheadLog() throws {
        let temporary = try TemporaryDirectory(prefix: "coredata-tests")
        let root = temporary.url
        let schema = try Schema(data: Data(SyntheticCoreDataStore.model.utf8))
        let fileManager = FileManager.default
        let live = root.appendingPathComponent("live"), closed = root.appendingPathComponent("closed"), noIndex = root.appendingPathComponent("noindex")
        for directory in [live, closed, noIndex] { try fileManager.createDirectory(at: directory, withIntermediateDirectories: false) }
        let store = live.appendingPathComponent("Library.sqlite")
        var writer: Database? = try SyntheticCoreDataStore.createWALOnly(at: store)
        // The main file alone holds no table: everything is in the log.
        #expect(try sqlRows(store, "SELECT count(*) AS n FROM sqlite_master").first?["n"] == .integer(0))

        // 1. While the writer has the store open. Its `-shm` is the live index the writer and its
        // readers share: SQLite maps it once per process, so a reader in the writer's process
        // (unlike one in another process, which opens it read-only) records its read mark there,
        // as every reader does. The database and the log stay as they were.
        try expectReadUnchanged(store, in: live, schema: schema, sharedIndex: true)

        // Copies: the database, log and index as the writer left them; the same without the index.
        for suffix in ["", "-wal", "-shm"] {
            try fileManager.copyItem(atPath: store.path + suffix, toPath: closed.appendingPathComponent("Library.sqlite").path + suffix)
        }
        for suffix in ["", "-wal"] {
            try fileManager.copyItem(atPath: store.path + suffix, toPath: noIndex.appendingPathComponent("Library.sqlite").path + suffix)
        }
        writer = nil
        _ = writer

        // 2. No writer; the log and its index are there.
        try expectReadUnchanged(closed.appendingPathComponent("Library.sqlite"), in: closed, schema: schema)
        // 3. No writer and no index: SQLite could not read the log without creating one.
        try expectReadUnchanged(noIndex.appendingPathComponent("Library.sqlite"), in: noIndex, schema: schema)
        #expect(try fileManager.contentsOfDirectory(atPath: noIndex.path).sorted() == ["Library.sqlite", "Library.sqlite-wal"])
    }

    /// A model whose relationships differ from the store's join tables and order columns is
    /// refused naming the table or column.
    @Test func relationshipsThatDifferAreRefused() throws {
        let temporary = try TemporaryDirectory(prefix: "coredata-tests")
        let directory = temporary.url
        let url = directory.appendingPathComponent("Library.sqlite")
        do { _ = try SyntheticCoreDataStore.createWALOnly(at: url) }
        func refusal(_ changes: (from: String, to: String)...) throws -> String? {
            let text = changes.reduce(SyntheticCoreDataStore.model) { $0.replacingOccurrences(of: $1.from, with: $1.to) }
            #expect(text != SyntheticCoreDataStore.model)
            let error = #expect(throws: StrataError.self) { try openCoreDataStore(url, schema: try Schema(data: Data(text.utf8))) }
            #expect(error?.code == .incompatibleModel)
            return error?.message
        }
        let unordered = try refusal((#""inverse": "books", "toMany": true, "ordered": true"#, #""inverse": "books", "toMany": true"#))
        #expect(unordered?.contains("the join table Z_2TAGS keeps an order in column Z_FOK_4TAGS, but Book.tags is not ordered in the model") == true)
        let ordered = try refusal((#""inverse": "featured", "toMany": true"#, #""inverse": "featured", "toMany": true, "ordered": true"#))
        #expect(ordered?.contains("Book.featuredIn is ordered in the model, but table ZTAG has no column Z_FOK_FEATURED for its order") == true)
        let renamed = try refusal((#""name": "tags", "destination": "Tag""#, #""name": "labels", "destination": "Tag""#), (#""inverse": "tags""#, #""inverse": "labels""#))
        #expect(renamed?.contains("the many-to-many relationship Book.labels has no join table Z_2LABELS (or Z_4BOOKS) in the store") == true)
    }

    /// Recognises, inspects and reads the store, checks what it holds, and that no file in its
    /// directory changed.
    private func expectReadUnchanged(_ url: URL, in directory: URL, schema: Schema, sharedIndex: Bool = false) throws {
        let before = try directorySnapshot(directory)
        #expect(try allStoreTypes.type(of: url) == .coreDataSQLite)
        let summary = try CoreDataSQLiteStoreFactory().summary(at: url)
        #expect(summary.storeUUID == SyntheticCoreDataStore.uuid)
        #expect(summary.customMetadata == ["appTheme": "dark"])
        #expect(summary.frameworkVersion == "1344")
        #expect(summary.entityVersionHashes["Book"] == Data([4, 5]))
        #expect(summary.entities.map(\.objectCount) == [2, 2, 1, 2])
        let (coordinator, store) = try openCoreDataStore(url, schema: schema)
        try expectLibrary(store)
        #expect(store.metadata.custom == ["appTheme": "dark"])
        _ = try DataExporter.dump(coordinator)
        let after = try directorySnapshot(directory)
        #expect(after.keys.sorted() == before.keys.sorted(), "files in \(directory.lastPathComponent)")
        for (name, bytes) in before where !(sharedIndex && name.hasSuffix("-shm")) {
            #expect(after[name] == bytes, "\(directory.lastPathComponent)/\(name) changed")
        }
    }

    /// The objects of ``SyntheticCoreDataStore``, exactly.
    private func expectLibrary(_ store: any PersistentStore) throws {
        func record(_ entity: String, _ key: Int64) throws -> StoreRecord {
            try #require(try store.fetch(StoreFetchRequest(entityNames: [entity])).first { $0.objectID.primaryKey == key })
        }
        func keys(_ ids: [ObjectID]?) -> [Int64] { (ids ?? []).map { $0.primaryKey ?? 0 } }
        let ada = try record("Author", 1)
        #expect(ada.attributes["name"] == .string("Ada"))
        #expect(ada.attributes["born"] == .date(Date(timeIntervalSinceReferenceDate: 86400.5)))
        #expect(ada.attributes["rating"] == .double(4.25))
        #expect(ada.attributes["id"] == .uuid(UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115")!))
        #expect(ada.attributes["homepage"] == .uri(URL(string: "https://example.com/a")!))
        #expect(ada.attributes["active"] == .bool(true))
        #expect(ada.version == 3)
        // Ordered one-to-many, in Z_FOK_AUTHOR order.
        #expect(keys(ada.toMany["books"]) == [3, 1, 2])
        #expect(ada.toMany["books"]?.first?.entityName == "Novel")
        let bo = try record("Author", 2)
        #expect(bo.attributes["active"] == .bool(false))
        #expect(bo.attributes["born"] == nil)
        #expect(bo.toMany["books"] == nil)
        let first = try record("Book", 1)
        #expect(first.attributes["price"] == .decimal(Decimal(string: "12.5")!))
        #expect(first.attributes["pages"] == .integer(320))
        // External storage: the marker byte 1, then the data.
        #expect(first.attributes["cover"] == .binary(Data("Hello".utf8)))
        #expect(first.toOne["author"]?.primaryKey == 1)
        // Ordered many-to-many, in Z_FOK_4TAGS order.
        #expect(keys(first.toMany["tags"]) == [2, 1])
        #expect(try record("Book", 2).attributes["price"] == .decimal(Decimal(string: "19.99")!))
        let novel = try record("Novel", 3)
        #expect(novel.attributes["genre"] == .string("Mystery"))
        #expect(novel.attributes["title"] == .string("Third"))
        #expect(keys(novel.toMany["tags"]) == [1])
        #expect(keys(novel.toMany["featuredIn"]) == [1])
        let crime = try record("Tag", 1)
        // A to-one to an entity with subentities (ZFEATURED beside Z2_FEATURED).
        #expect(crime.toOne["featured"] == novel.objectID)
        #expect(keys(crime.toMany["books"]) == [1, 3])
        #expect(keys(try record("Tag", 2).toMany["books"]) == [1])
        #expect(try store.count(StoreFetchRequest(entityNames: ["Book", "Novel"])) == 3)
    }
}
