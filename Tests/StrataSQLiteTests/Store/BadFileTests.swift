import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Files that are not (good) Strata stores are refused with a clear error, and left untouched.
@Suite struct BadFileTests {
    /// Opens `url` with `schema` and returns the error, after checking the file's bytes did not change.
    func openingFails(_ url: URL, _ schema: Schema) throws -> StrataError {
        let before = try bytes(of: url)
        let caught = #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: schema) }
        #expect(try bytes(of: url) == before, "the file was modified")
        return try #require(caught)
    }

    func makeStore(_ url: URL, _ schema: Schema, objects: Int = 50) throws {
        let store = try SQLiteStore(url: url, schema: schema)
        let keys = try store.allocatePrimaryKeys(rootEntity: "Person", count: objects)
        _ = try store.save(StoreChangeset(inserted: keys.map { key in
            StoreRecord(
                objectID: ObjectID(entityName: "Person", storeIdentifier: store.metadata.storeIdentifier, primaryKey: key),
                attributes: ["firstName": .string(String(repeating: "x", count: 500)), "lastName": .string("\(key)")])
        }))
        // Closing the last connection folds the WAL into the file (https://sqlite.org/wal.html).
    }

    @Test func aFileThatIsNotSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("notes.sqlite")
        try Data("<?xml version=\"1.0\"?><database/>".utf8).write(to: url)
        let error = try openingFails(url, try Fixtures.schema("People"))
        #expect(error.code == .corruptStore)
        #expect(error.file == url.path)
        #expect(error.description.contains("not a SQLite database"))
        #expect(error.description.hasPrefix(url.path + ": "))
    }

    @Test func anEmptyFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("empty.sqlite")
        try Data().write(to: url)
        let error = try openingFails(url, try Fixtures.schema("People"))
        #expect(error.code == .corruptStore)
        #expect(error.message.contains("the file is empty"))
    }

    @Test func aTruncatedDatabase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema("People")
        let original = directory.file("people.sqlite")
        try makeStore(original, schema)
        let whole = try bytes(of: original)
        #expect(whole.count > 8192)
        for length in [50, 4096, whole.count / 2] {
            let url = directory.file("cut-\(length).sqlite")
            try whole.prefix(length).write(to: url)
            let error = try openingFails(url, schema)
            #expect(error.code == .corruptStore, "\(length) bytes")
            #expect(error.message.contains("truncated"), "\(length) bytes: \(error.message)")
            #expect(error.file == url.path)
        }
    }

    /// While another process checkpoints, the header of a WAL database may count pages the file
    /// does not have yet: with a `-wal` beside it, a header that says more than the file holds is
    /// not taken for a truncated file (SQLite judges the file under its locks instead).
    @Test func aHeaderAheadOfTheFileIsNotTruncationWhileALogExists() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("people.sqlite")
        try makeStore(url, try Fixtures.schema("People"))
        var data = try bytes(of: url)
        // One more page in the header's page count (bytes 28-31), as a checkpoint growing the
        // file writes it before the page itself.
        let count = UInt32(data[28]) << 24 | UInt32(data[29]) << 16 | UInt32(data[30]) << 8 | UInt32(data[31])
        withUnsafeBytes(of: (count + 1).bigEndian) { data.replaceSubrange(28..<32, with: $0) }
        try data.write(to: url)
        #expect(throws: StrataError.self) { try StoreFile.checkHeader(url) }
        try Data().write(to: directory.file("people.sqlite-wal"))
        #expect(try StoreFile.checkHeader(url).isWAL)
    }

    @Test func aSQLiteFileThatIsNotAStrataStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("other.sqlite")
        do {
            let other = try Database(path: url.path, mode: .init(readOnly: false, create: true))
            try other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello')")
        }
        let error = try openingFails(url, try Fixtures.schema("People"))
        #expect(error.code == .corruptStore)
        #expect(error.message.hasPrefix("the file is a SQLite database but not a Strata store: it has no strata_metadata table"))
        #expect(throws: StrataError.self) { try SQLiteStoreFactory().metadata(at: url) }
    }

    @Test func aStoreWrittenWithAnotherModel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("people.sqlite")
        try makeStore(url, try Fixtures.schema("People"))
        let changed = try Fixtures.schema(json: """
        { "name": "People", "version": "1", "entities": [ { "name": "Person", "attributes": [
          { "name": "firstName", "type": "string" }, { "name": "lastName", "type": "string" }, { "name": "age", "type": "int16", "optional": true } ] } ] }
        """)
        let error = try openingFails(url, changed)
        #expect(error.code == .incompatibleModel)
        #expect(error.file == url.path)
        #expect(error.message.contains("changed: Person"))
    }

    @Test func metadataIsReadWithoutOpeningAStack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("people.sqlite")
        let schema = try Fixtures.schema("People")
        try makeStore(url, schema, objects: 2)
        let before = try bytes(of: url)
        let metadata = try SQLiteStoreFactory().metadata(at: url)
        #expect(metadata.modelName == "People")
        #expect(metadata.modelVersionHash == schema.versionHash)
        #expect(metadata.storeType == .sqlite)
        #expect(metadata.schemaJSON == schema.jsonString)
        #expect(metadata.entityVersionHashes == schema.entityVersionHashes)
        #expect(try bytes(of: url) == before)
        let registry = StoreTypeRegistry.withSQLite
        #expect(try registry.type(of: url) == .sqlite)
        #expect(try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: registry) == metadata)
        #expect(SQLiteStoreFactory().recognizes(header: Data("SQLite format 3\0".utf8)))
        #expect(!SQLiteStoreFactory().recognizes(header: Data("SQLite format 2\0".utf8)))
    }

    @Test func customMetadataIsKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("people.sqlite")
        let schema = try Fixtures.schema("People")
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            try store.setCustomMetadata(["syncToken": "42", "owner": "me"])
            #expect(store.metadata.custom == ["syncToken": "42", "owner": "me"])
            try store.setCustomMetadata(["syncToken": "43"])
        }
        #expect(try SQLiteStoreFactory().metadata(at: url).custom == ["syncToken": "43"])
        #expect(try SQLiteStore(url: url, schema: schema).metadata.custom == ["syncToken": "43"])
    }

    @Test func aLogWithoutItsDatabaseIsNotTakenIntoANewOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("people.sqlite")
        try Data(repeating: 7, count: 4096).write(to: directory.file("people.sqlite-wal"))
        let error = #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: try Fixtures.schema("People")) }
        #expect(error?.code == .storeIO)
        #expect(error?.file == url.path)
        #expect(error?.message == "there is no store here, but a write-ahead log 'people.sqlite-wal' of a database that was deleted or moved is: put the database back, or remove 'people.sqlite-wal' and 'people.sqlite-shm'")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["people.sqlite-wal"])
    }

    @Test func aMissingDirectoryIsAnIOError() throws {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/store.sqlite")
        let schema = try Fixtures.schema("People")
        let error = #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: schema) }
        #expect(error?.code == .storeIO)
        #expect(error?.file == url.path)
    }

    /// Found by fuzzing (Fuzz/FuzzSQLiteStore): a row whose `_entity` names no entity of its
    /// table came back as an object ID of an unknown entity, and touching the relationship that
    /// listed it trapped (`object ID … names entity …, which the model does not have`); a fetch
    /// dropped the row without a word. Now every read that meets it, or a to-one entity column
    /// naming an entity that is not the destination's kind, says the store is damaged.
    @Test func aRowNamingAnEntityItsTableDoesNotHold() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema(json: """
            {"name": "Zoo", "entities": [
              {"name": "Animal", "attributes": [{"name": "name", "type": "string"}], "relationships": [
                {"name": "keeper", "destination": "Keeper", "inverse": "animals", "optional": true}]},
              {"name": "Cat", "parent": "Animal", "relationships": [
                {"name": "favoriteOf", "destination": "Keeper", "inverse": "favorite", "toMany": true}]},
              {"name": "Lion", "parent": "Cat"},
              {"name": "Keeper", "attributes": [{"name": "name", "type": "string"}], "relationships": [
                {"name": "animals", "destination": "Animal", "inverse": "keeper", "toMany": true},
                {"name": "favorite", "destination": "Cat", "inverse": "favoriteOf", "optional": true}]}
            ]}
            """)
        let url = directory.file("zoo.sqlite")
        let (store, keeper) = try Self.damagedZoo(schema, at: url, damage: #"UPDATE "Animal" SET "_entity" = 'Dog'; UPDATE "Keeper" SET "_favorite_entity" = 'Animal'"#) { keeper, cat in [
            StoreRecord(objectID: keeper, attributes: ["name": .string("Ann")], toOne: ["favorite": cat], toMany: ["animals": [cat]]),
            StoreRecord(objectID: cat, attributes: ["name": .string("Tom")], toOne: ["keeper": keeper], toMany: ["favoriteOf": [keeper]]),
        ] }
        let rowError = #"table "Animal", row _pk = 1, column "_entity": the text "Dog" is not the name of an entity of the Animal hierarchy (Animal, Cat, Lion). The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell"#
        for read in [
            { _ = try store.relatedObjectIDs(of: keeper, relationship: "animals") },
            { _ = try store.fetchObjectIDs(StoreFetchRequest(entityNames: ["Animal", "Cat", "Lion"])) },
            { _ = try store.fetch(StoreFetchRequest(entityNames: ["Animal", "Cat", "Lion"])) },
        ] as [() throws -> Void] {
            let error = try #require(#expect(throws: StrataError.self, performing: read))
            #expect(error.code == .corruptStore)
            #expect(error.message == rowError)
            #expect(error.file == url.path)
        }
        let error = try #require(#expect(throws: StrataError.self) { try store.fetch(StoreFetchRequest(entityNames: ["Keeper"])) })
        #expect(error.code == .corruptStore)
        #expect(error.message == #"table "Keeper", row _pk = 1, column "_favorite_entity": the text "Animal" is not the name of Cat or one of its subentities. The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell"#)
    }

    /// A to-many member whose `_entity` is an entity of the right table but not of the
    /// relationship's destination (an `Animal` among a keeper's `Cat`s) is a damaged store, not
    /// an object a typed accessor would trap on.
    @Test func aMemberOfTheWrongKindIsADamagedStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema(json: """
            {"name": "Zoo", "entities": [
              {"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
              {"name": "Cat", "parent": "Animal", "relationships": [
                {"name": "owners", "destination": "Keeper", "inverse": "cats", "toMany": true}]},
              {"name": "Keeper", "attributes": [{"name": "name", "type": "string"}], "relationships": [
                {"name": "cats", "destination": "Cat", "inverse": "owners", "toMany": true}]}
            ]}
            """)
        let url = directory.file("zoo.sqlite")
        let (store, keeper) = try Self.damagedZoo(schema, at: url, damage: #"UPDATE "Animal" SET "_entity" = 'Animal'"#) { keeper, cat in [
            StoreRecord(objectID: keeper, attributes: ["name": .string("Ann")], toMany: ["cats": [cat]]),
            StoreRecord(objectID: cat, attributes: ["name": .string("Tom")], toMany: ["owners": [keeper]]),
        ] }
        let error = try #require(#expect(throws: StrataError.self) { try store.relatedObjectIDs(of: keeper, relationship: "cats") })
        #expect(error.code == .corruptStore)
        #expect(error.message == #"table "Animal", row _pk = 1, column "_entity": the text "Animal" is not the name of Cat or one of its subentities. The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell"#)
        #expect(error.file == url.path)
    }

    /// A store of a zoo model at `url` holding the records `records` makes of keeper 1 and cat 1,
    /// damaged by `damage` run on a plain connection, then opened again.
    private static func damagedZoo(
        _ schema: Schema, at url: URL, damage: String, _ records: (_ keeper: ObjectID, _ cat: ObjectID) -> [StoreRecord]
    ) throws -> (SQLiteStore, keeper: ObjectID) {
        let keeper: ObjectID
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            let id = store.metadata.storeIdentifier
            keeper = ObjectID(entityName: "Keeper", storeIdentifier: id, primaryKey: 1)
            _ = try store.save(StoreChangeset(inserted: records(keeper, ObjectID(entityName: "Cat", storeIdentifier: id, primaryKey: 1))))
        }
        do {
            let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
            try database.execute(damage)
        }
        return (try SQLiteStore(url: url, schema: schema), keeper)
    }
}
