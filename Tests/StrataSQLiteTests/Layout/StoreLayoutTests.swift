import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// The file layout, as a person with the sqlite3 shell sees it.
@Suite struct StoreLayoutTests {
    /// Rows as text, columns in the order of the SELECT (named c0, c1, … by the caller).
    func rows(_ store: SQLiteStore, _ sql: String) throws -> [[String]] {
        try store.rawQuery(sql, []).map { row in
            row.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }.map { key in
                switch row[key]! {
                case nil: "NULL"
                case .string(let s)?: s
                case .integer(let i)?: String(i)
                case let value?: value.description
                }
            }
        }
    }

    func columns(_ store: SQLiteStore, _ table: String) throws -> [String] {
        try store.rawQuery("SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", [.string(table)]).map { row in
            guard case .string(let name)?? = row["name"], case .string(let type)?? = row["type"], case .integer(let pk)?? = row["pk"] else { return "?" }
            return pk > 0 ? "\(name) \(type) pk" : "\(name) \(type)"
        }
    }

    func names(_ store: SQLiteStore, _ type: String) throws -> [String] {
        try store.rawQuery("SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name", [.string(type)]).map { row in
            guard case .string(let name)?? = row["name"] else { return "?" }
            return name
        }
    }

    func sql(_ store: SQLiteStore, _ name: String) throws -> String {
        guard case .string(let sql)?? = try store.rawQuery("SELECT sql FROM sqlite_master WHERE name = ?", [.string(name)]).first?["sql"] else { return "" }
        return sql
    }

    @Test func todoListTablesColumnsAndIndexes() throws {
        let store = try SQLiteStore(url: nil, schema: try Fixtures.schema("TodoList"))
        #expect(try names(store, "table") == ["Location", "Tag", "Tag.todos", "Todo", "strata_keys", "strata_metadata"])
        #expect(try columns(store, "Todo") == [
            "_pk INTEGER pk", "_version INTEGER", "title TEXT", "createdAt REAL", "priority INTEGER", "done INTEGER", "notes TEXT", "location INTEGER",
            "_title_nfc TEXT", "_notes_nfc TEXT",
        ])
        #expect(try columns(store, "Location") == ["_pk INTEGER pk", "_version INTEGER", "name TEXT", "latitude ANY", "longitude ANY", "_name_nfc TEXT"])
        #expect(try columns(store, "Tag") == ["_pk INTEGER pk", "_version INTEGER", "name TEXT", "_name_nfc TEXT"])
        #expect(try columns(store, "Tag.todos") == ["source INTEGER pk", "destination INTEGER pk"])
        #expect(try columns(store, "strata_metadata") == ["key TEXT pk", "value TEXT"])
        #expect(try columns(store, "strata_keys") == ["entity TEXT pk", "last INTEGER"])
        #expect(try names(store, "index") == ["index.Tag.todos.destination", "index.Todo.createdAt", "index.Todo.location", "unique.Tag.name", "unique.Todo.title"])
        #expect(try sql(store, "unique.Todo.title") == "CREATE UNIQUE INDEX \"unique.Todo.title\" ON \"Todo\" (coalesce(\"_title_nfc\", \"title\"))")
        #expect(try sql(store, "index.Todo.createdAt") == "CREATE INDEX \"index.Todo.createdAt\" ON \"Todo\" (\"createdAt\")")
        #expect(try sql(store, "Todo").hasSuffix(") STRICT"))
        #expect(try sql(store, "Tag.todos").hasSuffix(") STRICT, WITHOUT ROWID"))
    }

    @Test func hierarchiesOrderedRelationshipsAndPartialUniqueIndexes() throws {
        let store = try SQLiteStore(url: nil, schema: try Fixtures.schema("KitchenSink"))
        #expect(try names(store, "table") == [
            "Album", "Album.photos", "Asset", "Asset.tags", "Owner", "Owner.friends", "Product", "Profile", "Tag", "strata_keys", "strata_metadata",
        ])
        #expect(try columns(store, "Asset") == [
            "_pk INTEGER pk", "_entity TEXT", "_version INTEGER", "title TEXT", "createdAt REAL", "pageCount INTEGER", "body BLOB",
            "dpi INTEGER", "ocrText TEXT", "width INTEGER", "height INTEGER", "image BLOB", "takenAt REAL", "owner INTEGER",
            "_title_nfc TEXT", "_ocrText_nfc TEXT",
        ])
        #expect(try columns(store, "Product") == [
            "_pk INTEGER pk", "_version INTEGER", "name TEXT", "stock INTEGER", "views INTEGER", "serial INTEGER", "price TEXT",
            "score ANY", "reach ANY", "weight ANY", "ratio ANY", "available INTEGER", "releaseDate REAL", "thumbnail BLOB",
            "batch TEXT", "homepage TEXT", "dimensions BLOB", "notes TEXT", "replacement INTEGER",
            "_name_nfc TEXT", "_price_key TEXT", "_homepage_nfc TEXT", "_notes_nfc TEXT",
        ])
        // One-to-one: a foreign key on both sides.
        #expect(try columns(store, "Profile") == ["_pk INTEGER pk", "_version INTEGER", "bio TEXT", "avatar BLOB", "owner INTEGER", "_bio_nfc TEXT"])
        #expect(try columns(store, "Owner") == [
            "_pk INTEGER pk", "_version INTEGER", "name TEXT", "email TEXT", "joinedAt REAL", "profile INTEGER", "_name_nfc TEXT", "_email_nfc TEXT",
        ])
        #expect(try columns(store, "Album.photos") == ["source INTEGER pk", "destination INTEGER pk", "source_order INTEGER"])
        #expect(try columns(store, "Owner.friends") == ["source INTEGER pk", "destination INTEGER pk"])
        #expect(try sql(store, "unique.Document.owner.title")
            == "CREATE UNIQUE INDEX \"unique.Document.owner.title\" ON \"Asset\" (\"owner\", coalesce(\"_title_nfc\", \"title\")) WHERE \"_entity\" IN ('Document', 'ScannedDocument')")
        #expect(try sql(store, "named.Product.byReleaseDateNewestFirst")
            == "CREATE INDEX \"named.Product.byReleaseDateNewestFirst\" ON \"Product\" (\"releaseDate\" DESC, coalesce(\"_name_nfc\", \"name\"))")
        #expect(try sql(store, "named.Asset.byOwnerNewestFirst") == "CREATE INDEX \"named.Asset.byOwnerNewestFirst\" ON \"Asset\" (\"owner\", \"createdAt\" DESC)")
        #expect(try names(store, "index").contains("index.Asset._entity"))
        // No collation or function of Strata's anywhere in the schema.
        let schemaSQL = try store.rawQuery("SELECT group_concat(sql, ';') AS s FROM sqlite_master", []).first?["s"]
        guard case .string(let all)?? = schemaSQL else { Issue.record("no schema"); return }
        #expect(!all.lowercased().contains("collate") && !all.contains("strata_fold") && !all.contains("strata_compare"))
    }

    @Test func foreignKeysToHierarchiesKeepTheEntityAndOrderedOneToManyKeepsAnOrderColumn() throws {
        let store = try SQLiteStore(url: nil, schema: try LibraryFixture.schema())
        #expect(try names(store, "table") == ["Item", "Item.related", "Item.tags", "Owner", "Part", "Tag", "strata_keys", "strata_metadata"])
        #expect(try columns(store, "Part") == [
            "_pk INTEGER pk", "_version INTEGER", "label TEXT", "size INTEGER", "cost TEXT", "item INTEGER", "_item_entity TEXT", "_item_order INTEGER",
            "_label_nfc TEXT", "_cost_key TEXT",
        ])
        #expect(try columns(store, "Item").suffix(8) == [
            "extra TEXT", "owner INTEGER", "next INTEGER", "_next_entity TEXT", "_name_nfc TEXT", "_price_key TEXT", "_link_nfc TEXT", "_extra_nfc TEXT",
        ])
    }

    @Test func metadataAndKeySequencesAreTables() throws {
        let schema = try Fixtures.schema("TodoList")
        let store = try SQLiteStore(url: nil, schema: schema)
        let metadata = try rows(store, "SELECT key AS c0, value AS c1 FROM strata_metadata ORDER BY key")
        #expect(metadata.map { $0[0] } == ["entityVersionHashes", "layoutVersion", "modelName", "modelVersionHash", "schema", "storeIdentifier", "storeType"])
        let values = Dictionary(uniqueKeysWithValues: metadata.map { ($0[0], $0[1]) })
        #expect(values["modelName"] == "TodoList")
        #expect(values["modelVersionHash"] == schema.versionHash)
        #expect(values["schema"] == schema.jsonString)
        #expect(values["storeType"] == "sqlite")
        #expect(values["storeIdentifier"] == store.metadata.storeIdentifier)
        let hashes = try JSONSerialization.jsonObject(with: Data(values["entityVersionHashes"]!.utf8)) as? [String: String]
        #expect(hashes == schema.entityVersionHashes)
        #expect(try rows(store, "SELECT entity AS c0, last AS c1 FROM strata_keys ORDER BY entity") == [["Location", "0"], ["Tag", "0"], ["Todo", "0"]])
        #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 3) == [1, 2, 3])
        #expect(try rows(store, "SELECT last FROM strata_keys WHERE entity = 'Todo'") == [["3"]])
    }

    @Test func savedObjectsAreReadableWithPlainSQL() throws {
        let coordinator = PersistentStoreCoordinator(schema: try Fixtures.schema("TodoList"), storeTypes: .withSQLite)
        let store = try #require(try coordinator.addStore(StoreDescription(type: .sqlite)) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        let todo = try context.insertObject(entityName: "Todo")
        todo["title"] = "Buy milk"
        todo["createdAt"] = Date(timeIntervalSinceReferenceDate: 1.5)
        todo["priority"] = Int64(3)
        let tag = try context.insertObject(entityName: "Tag")
        tag["name"] = "home"
        todo.addObject(tag, forKey: "tags")
        try context.save()
        #expect(try rows(store, "SELECT _pk AS c0, _version AS c1, title AS c2, createdAt AS c3, priority AS c4, done AS c5, notes AS c6, location AS c7 FROM Todo") == [["1", "1", "Buy milk", "1.5", "3", "0", "NULL", "NULL"]])
        #expect(try rows(store, "SELECT source AS c0, destination AS c1 FROM \"Tag.todos\"") == [["1", "1"]])
    }

    @Test func aModelTheLayoutCannotHoldIsRefusedWithReasons() throws {
        let schema = try Fixtures.schema(json: """
        { "name": "Clash", "entities": [
          { "name": "Shape", "abstract": true, "attributes": [] },
          { "name": "Circle", "parent": "Shape", "attributes": [ { "name": "size", "type": "double" } ] },
          { "name": "Square", "parent": "Shape", "attributes": [ { "name": "size", "type": "string" } ] } ] }
        """)
        let reasons = SQLiteStoreFactory().unsupportedFeatures(of: schema, configurationName: nil)
        #expect(reasons == ["entities 'Circle' and 'Square' share the table 'Shape' and both have a property 'size', stored differently (attribute of type double and attribute of type string); rename one"])
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        #expect(throws: StrataError.self) { try coordinator.addStore(StoreDescription(type: .sqlite)) }
    }
    /// M1: names SQLite would refuse or confuse are reported before any file is made, in words.
    @Test func namesSQLiteCannotTakeAreReportedBeforeAnyFileIsMade() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cases: [(String, String)] = [
            ("Strata_metadata", "entity 'Strata_metadata' cannot be a SQLite table: SQLite compares names without case, and 'strata_metadata' is Strata's own table; rename the entity"),
            ("STRATA_KEYS", "entity 'STRATA_KEYS' cannot be a SQLite table: SQLite compares names without case, and 'strata_keys' is Strata's own table; rename the entity"),
            ("Sqlite_stat1", "entity 'Sqlite_stat1' cannot be a SQLite table: SQLite reserves names starting with 'sqlite_' (in any case); rename the entity"),
        ]
        for (name, expected) in cases {
            let schema = try Fixtures.schema(json: """
            { "name": "M", "entities": [ { "name": "\(name)", "attributes": [ { "name": "title", "type": "string" } ] } ] }
            """)
            #expect(SQLiteStoreFactory().unsupportedFeatures(of: schema, configurationName: nil) == [expected])
            let url = directory.file("\(name).sqlite")
            let error = #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: schema) }
            #expect(error?.code == .unsupportedModel)
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
        // Sibling entities share their root's table; the model validator checks case within a
        // lineage only.
        let cased = try Fixtures.schema(json: """
        { "name": "M", "entities": [
          { "name": "Shape", "abstract": true, "attributes": [] },
          { "name": "Circle", "parent": "Shape", "attributes": [ { "name": "aB", "type": "string" } ] },
          { "name": "Square", "parent": "Shape", "attributes": [ { "name": "ab", "type": "string" } ] } ] }
        """)
        #expect(SQLiteStoreFactory().unsupportedFeatures(of: cased, configurationName: nil) == [
            "the SQLite columns '_aB_nfc' and '_ab_nfc' of table 'Shape' would have one name, as SQLite compares names without case; rename all but one",
            "the SQLite columns 'aB' and 'ab' of table 'Shape' would have one name, as SQLite compares names without case; rename all but one",
        ])
    }

    /// Entities named like layout 1's generated names (`unique_Tag_name`, `index_Todo_title`,
    /// in another case) no longer meet an index of that name.
    @Test func entitiesNamedLikeGeneratedIndexesAreStored() throws {
        let schema = try Fixtures.schema(json: """
        { "name": "M", "entities": [
          { "name": "Tag", "attributes": [ { "name": "name", "type": "string", "indexed": true } ], "uniquenessConstraints": [ ["name"] ] },
          { "name": "Unique_Tag_name", "attributes": [] }, { "name": "Index_Tag_name", "attributes": [] },
          { "name": "Unique", "relationships": [ { "name": "tag", "destination": "Tag", "optional": true } ] } ] }
        """)
        #expect(SQLiteStoreFactory().unsupportedFeatures(of: schema, configurationName: nil) == [])
        let store = try SQLiteStore(url: nil, schema: schema)
        #expect(try names(store, "table") == ["Index_Tag_name", "Tag", "Unique", "Unique_Tag_name", "strata_keys", "strata_metadata"])
        #expect(try names(store, "index") == ["index.Tag.name", "index.Unique.tag", "unique.Tag.name"])
    }

    /// M1: a hierarchy wider than SQLite's 2,000 columns is reported with its name and count
    /// (it used to reach `CREATE TABLE` and echo the whole statement).
    @Test func aHierarchyWithTooManyColumnsIsReportedWithItsCount() throws {
        let attributes = (0..<2_001).map { "{ \"name\": \"a\($0)\", \"type\": \"int64\" }" }.joined(separator: ", ")
        let schema = try Fixtures.schema(json: """
        { "name": "Wide", "entities": [ { "name": "Wide", "attributes": [ \(attributes) ] } ] }
        """)
        #expect(SQLiteStoreFactory().unsupportedFeatures(of: schema, configurationName: nil) == [
            "entity hierarchy 'Wide' has 2,003 stored columns; a SQLite store holds at most 2,000 in one table (the hierarchy's attributes, to-one relationships and Strata's own columns); split the hierarchy or move attributes to related entities",
        ])
    }

    @Test func sqliteErrorsEchoAtMostAFewHundredCharactersOfTheStatement() throws {
        let database = try Database(path: ":memory:", mode: .init(readOnly: false, create: true))
        let statement = "CREATE TABLE t (" + (0..<3_000).map { "c\($0) INTEGER" }.joined(separator: ", ") + ")"
        let error = #expect(throws: StrataError.self) { try database.execute(statement) }
        let message = error?.message ?? ""
        #expect(message.hasPrefix("SQLite error 1 (SQL logic error): too many columns on t\n  while running: CREATE TABLE t (c0 INTEGER"))
        #expect(message.hasSuffix("… (\(statement.count) characters in all)"))
        #expect(message.count < 500)
    }
}
