import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Stores of layout 1 (Strata's collations in the schema, `<Entity>_<relationship>` join
/// tables) are upgraded in place when opened, in one transaction.
@Suite struct StoreLayoutUpgradeTests {
    static let shopJSON = """
    { "name": "Shop", "version": "1", "entities": [
      { "name": "Product",
        "attributes": [
          { "name": "name", "type": "string", "indexed": true },
          { "name": "price", "type": "decimal", "optional": true, "indexed": true },
          { "name": "page", "type": "uri", "optional": true } ],
        "relationships": [ { "name": "tags", "destination": "Tag", "inverse": "products", "toMany": true } ],
        "uniquenessConstraints": [ ["name"] ] },
      { "name": "Book", "parent": "Product",
        "attributes": [ { "name": "isbn", "type": "string", "optional": true } ],
        "uniquenessConstraints": [ ["isbn"] ] },
      { "name": "Tag",
        "attributes": [ { "name": "label", "type": "string" } ],
        "relationships": [ { "name": "products", "destination": "Product", "inverse": "tags", "toMany": true } ],
        "uniquenessConstraints": [ ["label"] ] } ] }
    """

    /// Writes a layout-1 store of the Shop model as Strata wrote it before layout 2: the same
    /// DDL (with `COLLATE strata`, on a connection that has the collations), rows, keys and
    /// metadata with `layoutVersion` 1. `tagLabels` are inserted as given.
    static func writeLayout1Store(at url: URL, schema: Schema, tagLabels: [String] = ["\u{212B}ngstr\u{F6}m", "red"], uniqueTagIndex: Bool = true) throws {
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: true))
        try database.execute("PRAGMA journal_mode = WAL")
        var statements = [
            "CREATE TABLE \"Product\" (\n  \"_pk\" INTEGER PRIMARY KEY,\n  \"_entity\" TEXT NOT NULL,\n  \"_version\" INTEGER NOT NULL,\n  \"name\" TEXT,\n  \"price\" TEXT,\n  \"page\" TEXT,\n  \"isbn\" TEXT\n) STRICT",
            "CREATE TABLE \"Tag\" (\n  \"_pk\" INTEGER PRIMARY KEY,\n  \"_version\" INTEGER NOT NULL,\n  \"label\" TEXT\n) STRICT",
            "CREATE TABLE \"Product_tags\" (\n  \"source\" INTEGER NOT NULL,\n  \"destination\" INTEGER NOT NULL,\n  PRIMARY KEY (\"source\", \"destination\")\n) STRICT, WITHOUT ROWID",
            "CREATE TABLE \"strata_metadata\" (\n  \"key\" TEXT PRIMARY KEY,\n  \"value\" TEXT NOT NULL\n) STRICT",
            "CREATE TABLE \"strata_keys\" (\n  \"entity\" TEXT PRIMARY KEY,\n  \"last\" INTEGER NOT NULL\n) STRICT",
            "CREATE INDEX \"index_Product__entity\" ON \"Product\" (\"_entity\")",
            "CREATE INDEX \"index_Product_name\" ON \"Product\" (\"name\" COLLATE strata)",
            "CREATE INDEX \"index_Product_price\" ON \"Product\" (\"price\" COLLATE strata_decimal)",
            "CREATE UNIQUE INDEX \"unique_Product_name\" ON \"Product\" (\"name\" COLLATE strata)",
            "CREATE UNIQUE INDEX \"unique_Book_isbn\" ON \"Product\" (\"isbn\" COLLATE strata) WHERE \"_entity\" IN ('Book')",
            "CREATE INDEX \"index_Product_tags_destination\" ON \"Product_tags\" (\"destination\")",
        ]
        if uniqueTagIndex { statements.append("CREATE UNIQUE INDEX \"unique_Tag_label\" ON \"Tag\" (\"label\" COLLATE strata)") }
        for statement in statements { try database.execute(statement) }
        let products: [[SQLValue]] = [
            [.integer(1), .text("Product"), .text("Cafe\u{301}"), .text("1.5"), .text("https://example.com/a"), .null],
            [.integer(2), .text("Book"), .text("Zebra"), .text("-0.001"), .null, .text("X1")],
            [.integer(3), .text("Product"), .text("apple"), .text("10"), .null, .null],
        ]
        for row in products {
            try database.run("INSERT INTO \"Product\" (\"_pk\", \"_entity\", \"_version\", \"name\", \"price\", \"page\", \"isbn\") VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6)", row)
        }
        for (offset, label) in tagLabels.enumerated() {
            try database.run("INSERT INTO \"Tag\" (\"_pk\", \"_version\", \"label\") VALUES (?1, 1, ?2)", [.integer(Int64(offset + 1)), .text(label)])
        }
        for (source, destination) in [(1, 1), (2, 1), (3, 2)] {
            try database.run("INSERT INTO \"Product_tags\" (\"source\", \"destination\") VALUES (?1, ?2)", [.integer(Int64(source)), .integer(Int64(destination))])
        }
        try database.run("INSERT INTO \"strata_keys\" VALUES ('Product', 3), ('Tag', ?1)", [.integer(Int64(tagLabels.count))])
        let metadata = StoreMetadata(newStoreOf: .sqlite, schema: schema, identifier: "0D6F1E5C-1B8B-4A8E-9C55-7B1A4C3E2F10")
        for (key, value) in StoreFile.rows(metadata) {
            try database.run("INSERT INTO \"strata_metadata\" (\"key\", \"value\") VALUES (?1, ?2)", [.text(key), .text(key == "layoutVersion" ? "1" : value)])
        }
    }

    @Test func aLayout1StoreIsUpgradedInPlaceAndStockToolsWorkOnIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("shop.sqlite")
        let schema = try Fixtures.schema(json: Self.shopJSON)
        try Self.writeLayout1Store(at: url, schema: schema)
        // The stock shell's view of a layout-1 store: no collation, so no check.
        #expect(throws: RawSQLite.RawError.self) { try RawSQLite(url).rows("PRAGMA integrity_check") }

        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        let store = try #require(try coordinator.addStore(StoreDescription(type: .sqlite, url: url)) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        func names(_ format: String, _ arguments: [PredicateValue] = []) throws -> [String] {
            let request = FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: format, argumentArray: arguments), sortDescriptors: [FetchSortDescriptor("name")])
            return try context.fetch(request).map { $0["name"] as? String ?? "?" }
        }
        // Canonically equivalent strings and equal decimals find the stored values.
        #expect(try names("name == %@", [.string("Caf\u{E9}")]) == ["Cafe\u{301}"])
        #expect(try names("price == %@", [.decimal(Decimal(string: "1.50")!)]) == ["Cafe\u{301}"])
        #expect(try names("price < 0") == ["Zebra"])
        #expect(try names("price > 1") == ["Cafe\u{301}", "apple"])
        #expect(try names("ANY tags.label == %@", [.string("\u{C5}ngstr\u{F6}m")]) == ["Cafe\u{301}", "Zebra"])
        #expect(try names("TRUEPREDICATE") == ["Cafe\u{301}", "Zebra", "apple"])
        #expect(store.inMemoryFallbacks.load(ordering: .relaxed) == 0)

        let raw = try RawSQLite(url)
        #expect(try raw.rows("SELECT value FROM strata_metadata WHERE key = 'layoutVersion'") == ["2"])
        #expect(try raw.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == ["Product", "Product.tags", "Tag", "strata_keys", "strata_metadata"])
        #expect(try raw.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name") == [
            "index.Product._entity", "index.Product.name", "index.Product.price", "index.Product.tags.destination",
            "unique.Book.isbn", "unique.Product.name", "unique.Tag.label",
        ])
        #expect(try raw.rows("SELECT _pk, _name_nfc, _price_key, _page_nfc, _isbn_nfc FROM Product ORDER BY _pk") == [
            "1|Caf\u{E9}|250015|NULL|NULL", "2|NULL|05028~|NULL|NULL", "3|NULL|25011|NULL|NULL",
        ])
        #expect(try raw.rows("SELECT _pk, _label_nfc FROM Tag ORDER BY _pk") == ["1|\u{C5}ngstr\u{F6}m", "2|NULL"])
        // What a person with the sqlite3 shell does, on a connection without Strata's functions.
        #expect(try raw.rows("PRAGMA integrity_check") == ["ok"])
        #expect(try raw.rows("PRAGMA quick_check") == ["ok"])
        try raw.rows("REINDEX")
        try raw.rows("UPDATE Tag SET label = 'blue', _label_nfc = NULL WHERE _pk = 2")
        try raw.rows("VACUUM")
        #expect(try raw.rows("PRAGMA integrity_check") == ["ok"])

        // The unique index holds NFC forms: "Café" composed is the stored "Cafe\u{301}".
        let duplicate = try context.insertObject(entityName: "Product")
        duplicate["name"] = "Caf\u{E9}"
        #expect(throws: StrataError.self) { try context.save() }
    }

    /// D3 in a layout-1 file: `A.b_c` and `A_b.c` shared the table `A_b_c`, whose rows cannot
    /// be told apart; each relationship's new table gets a copy, so no link is lost.
    @Test func aJoinTableTwoRelationshipsSharedIsCopiedIntoBoth() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("clash.sqlite")
        let schema = try Fixtures.joinNameClash()
        do {
            let database = try Database(path: url.path, mode: .init(readOnly: false, create: true))
            for table in ["A", "A_b", "X", "Y"] {
                try database.execute("CREATE TABLE \"\(table)\" (\"_pk\" INTEGER PRIMARY KEY, \"_version\" INTEGER NOT NULL) STRICT")
                try database.execute("INSERT INTO \"\(table)\" VALUES (1, 1)")
            }
            try database.execute("CREATE TABLE \"A_b_c\" (\"source\" INTEGER NOT NULL, \"destination\" INTEGER NOT NULL, PRIMARY KEY (\"source\", \"destination\")) STRICT, WITHOUT ROWID")
            try database.execute("CREATE INDEX \"index_A_b_c_destination\" ON \"A_b_c\" (\"destination\")")
            try database.execute("INSERT INTO \"A_b_c\" VALUES (1, 1)")
            try database.execute("CREATE TABLE \"strata_metadata\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL) STRICT")
            try database.execute("CREATE TABLE \"strata_keys\" (\"entity\" TEXT PRIMARY KEY, \"last\" INTEGER NOT NULL) STRICT")
            try database.execute("INSERT INTO \"strata_keys\" VALUES ('A', 1), ('A_b', 1), ('X', 1), ('Y', 1)")
            let metadata = StoreMetadata(newStoreOf: .sqlite, schema: schema, identifier: "5C1F6A3E-2B7D-4E8F-9A0B-1C2D3E4F5A6B")
            for (key, value) in StoreFile.rows(metadata) {
                try database.run("INSERT INTO \"strata_metadata\" VALUES (?1, ?2)", [.text(key), .text(key == "layoutVersion" ? "1" : value)])
            }
        }
        let store = try SQLiteStore(url: url, schema: schema)
        func id(_ entity: String) -> ObjectID { ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: 1) }
        #expect(try store.relatedObjectIDs(of: id("A"), relationship: "b_c") == [id("X")])
        #expect(try store.relatedObjectIDs(of: id("A_b"), relationship: "c") == [id("Y")])
        let raw = try RawSQLite(url)
        #expect(try raw.rows("SELECT name FROM sqlite_master WHERE sql IS NOT NULL AND name LIKE '%A%b%' ORDER BY name") == [
            "A.b_c", "A_b", "A_b.c", "index.A.b_c.destination", "index.A_b.c.destination",
        ])
        #expect(try raw.rows("PRAGMA integrity_check") == ["ok"])
    }

    @Test func aFailedUpgradeLeavesTheFileAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("shop.sqlite")
        let schema = try Fixtures.schema(json: Self.shopJSON)
        // Two canonically equivalent labels, possible only without the old unique index: the
        // new one cannot be created, so the upgrade fails half-way.
        try Self.writeLayout1Store(at: url, schema: schema, tagLabels: ["\u{E9}", "e\u{301}"], uniqueTagIndex: false)
        let error = #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: schema) }
        #expect(error?.message.contains("cannot upgrade the store's file layout from version 1 to 2") == true)
        #expect(error?.message.contains("the file is unchanged") == true)
        let database = try Database(path: url.path, mode: .init(readOnly: true, create: false))
        #expect(try database.rows("SELECT value FROM strata_metadata WHERE key = 'layoutVersion'", []) { $0.text(0) } == ["1"])
        #expect(try database.rows("SELECT name FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name", []) { $0.text(0) } == [
            "Product", "Product_tags", "Tag", "index_Product__entity", "index_Product_name", "index_Product_price",
            "index_Product_tags_destination", "strata_keys", "strata_metadata", "unique_Book_isbn", "unique_Product_name",
        ])
        #expect(try database.rows("SELECT name FROM pragma_table_info('Product') ORDER BY cid", []) { $0.text(0) } == [
            "_pk", "_entity", "_version", "name", "price", "page", "isbn",
        ])
    }

    /// Two openers at once (threads here, each with its own connections, as two processes
    /// have): one upgrades, the other waits for the write lock, finds layout 2 and does nothing.
    @Test func twoOpenersAtOnceUpgradeOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("shop.sqlite")
        let schema = try Fixtures.schema(json: Self.shopJSON)
        try Self.writeLayout1Store(at: url, schema: schema)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                _ = try SQLiteStore(url: url, schema: schema)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        // A late opener that had read version 1 before the lock: it re-reads and stops.
        let late = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        try StoreLayoutUpgrade.upgradeHoldingTheWriteLock(late, layout: StoreLayout(schema: schema, configurationName: nil))
        let raw = try RawSQLite(url)
        #expect(try raw.rows("SELECT value FROM strata_metadata WHERE key = 'layoutVersion'") == ["2"])
        #expect(try raw.rows("SELECT count(*) FROM \"Product.tags\"") == ["3"])
        #expect(try raw.rows("SELECT _pk, _name_nfc FROM Product WHERE _name_nfc IS NOT NULL") == ["1|Caf\u{E9}"])
        #expect(try raw.rows("PRAGMA integrity_check") == ["ok"])
    }

    /// Opened for reading only, a layout-1 store cannot be upgraded: it is refused with what
    /// to do, and left as it was.
    @Test func aLayout1StoreOpenedForReadingOnlyIsRefusedUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("shop.sqlite")
        let schema = try Fixtures.schema(json: Self.shopJSON)
        try Self.writeLayout1Store(at: url, schema: schema)
        let before = try Data(contentsOf: url)
        let error = #expect(throws: StrataError.self) {
            try SQLiteStore(url: url, schema: schema, options: [SQLiteStore.readOnlyOption: "true"])
        }
        #expect(error?.code == .storeIO)
        #expect(error?.message == "the store has the file layout 1 of an earlier Strata, which is upgraded in place when the store is opened for writing; here it is opened for reading only, so it cannot be read. Open it once where this process can write it (any save or query does), then read it anywhere")
        #expect(try Data(contentsOf: url) == before)
        #expect(try RawSQLite(url).rows("SELECT value FROM strata_metadata WHERE key = 'layoutVersion'") == ["1"])
    }

    @Test func aLayoutVersionThatIsNoNumberOrIsNewerIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("shop.sqlite")
        let schema = try Fixtures.schema(json: Self.shopJSON)
        _ = try SQLiteStore(url: url, schema: schema)
        for (value, expected) in [("3", "the store was written by a newer Strata (layout version 3"), ("two", #"the Strata metadata's layoutVersion is "two", which no Strata writes"#)] {
            try RawSQLite(url).rows("UPDATE strata_metadata SET value = '\(value)' WHERE key = 'layoutVersion'")
            let error = #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: schema) }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
    }
}
