import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// A stored value that is not of its column's type is an error naming the table, the row and
/// the column — never nil, a truncated number or NaN in its place (issue 10, W4).
@Suite struct StrictReadingTests {
    static let model = """
    { "name": "Strict", "version": "1", "entities": [
      { "name": "Thing", "attributes": [
          { "name": "s", "type": "string", "optional": true },
          { "name": "i16", "type": "int16", "optional": true },
          { "name": "i32", "type": "int32", "optional": true },
          { "name": "i64", "type": "int64", "optional": true },
          { "name": "dec", "type": "decimal", "optional": true },
          { "name": "dbl", "type": "double", "optional": true },
          { "name": "flt", "type": "float", "optional": true },
          { "name": "flag", "type": "bool", "optional": true },
          { "name": "when", "type": "date", "optional": true },
          { "name": "data", "type": "binary", "optional": true },
          { "name": "uid", "type": "uuid", "optional": true },
          { "name": "link", "type": "uri", "optional": true },
          { "name": "shape", "type": "transformable", "transformer": "Shape", "optional": true } ],
        "relationships": [ { "name": "other", "destination": "Thing", "optional": true } ] },
      { "name": "Sub", "parent": "Thing" } ] }
    """

    /// A store on a file with one Thing (key 1) whose values are all good, and another (key 2)
    /// that points at it; its tables are made non-STRICT, as a hand-made or edited file may be,
    /// so that any storage class can be put in any column.
    func makeStore(_ directory: TemporaryDirectory) throws -> (URL, Schema) {
        let schema = try Fixtures.schema(json: Self.model)
        let url = directory.file("strict.sqlite")
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            let id = { (key: Int64) in ObjectID(entityName: "Thing", storeIdentifier: store.storeIdentifier, primaryKey: key) }
            let values: AttributeValues = [
                "s": .string("text"), "i16": .integer(-32768), "i32": .integer(2_147_483_647), "i64": .integer(.min),
                "dec": .decimal(Decimal(string: "12.50")!), "dbl": .double(.nan), "flt": .float(1.5), "flag": .bool(true),
                "when": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "data": .binary(Data([1, 2])),
                "uid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                "link": .uri(URL(string: "https://example.com/a")!), "shape": .binary(Data()),
            ]
            _ = try store.save(StoreChangeset(inserted: [
                StoreRecord(objectID: id(1), attributes: values),
                StoreRecord(objectID: id(2), attributes: [:], toOne: ["other": id(1)]),
            ]))
        }
        try raw(url, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, ') STRICT', ')') WHERE name = 'Thing'")
        return (url, schema)
    }

    /// Runs SQL on the file through a connection of its own.
    func raw(_ url: URL, _ sql: String) throws {
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        try database.execute(sql)
    }

    func records(_ url: URL, _ schema: Schema) throws -> [ObjectID: StoreRecord] {
        let store = try SQLiteStore(url: url, schema: schema)
        let ids = [1, 2].map { ObjectID(entityName: "Thing", storeIdentifier: store.storeIdentifier, primaryKey: Int64($0)) }
        return try store.records(for: ids)
    }

    @Test func goodValuesReadBackExactly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        let found = try records(url, schema)
        let first = try #require(found.values.first { $0.objectID.primaryKey == 1 })
        #expect(first.attributes["i16"] == .integer(-32768))
        #expect(first.attributes["dec"] == .decimal(Decimal(string: "12.5")!))
        guard case .double(let nan)? = first.attributes["dbl"] else { Issue.record("dbl: \(String(describing: first.attributes["dbl"]))"); return }
        #expect(nan.isNaN)
        #expect(first.attributes["shape"] == .binary(Data()))
        #expect(first.attributes["uid"] == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        // Whole numbers in a double column, as the sqlite3 shell stores `2`, are doubles.
        try raw(url, "UPDATE Thing SET dbl = 2, flt = 3, \"when\" = 4, dec = '-1e-7' WHERE _pk = 1")
        let edited = try #require(try records(url, schema).values.first { $0.objectID.primaryKey == 1 })
        #expect(edited.attributes["dbl"] == .double(2))
        #expect(edited.attributes["flt"] == .float(3))
        #expect(edited.attributes["when"] == .date(Date(timeIntervalSinceReferenceDate: 4)))
        #expect(edited.attributes["dec"] == .decimal(Decimal(string: "-0.0000001")!))
    }

    static let suffix = ". The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell"

    @Test(arguments: [
        ("s = CAST(x'FF' AS TEXT)", "column \"s\": the text \"\u{FFFD}\" is not a text in UTF-8"),
        ("s = x'41'", #"column "s": a blob of 1 byte is not a text in UTF-8"#),
        ("i16 = 100000", #"column "i16": the integer 100000 is not an int16 (an integer from -32768 to 32767)"#),
        ("i16 = 1.5", #"column "i16": the real 1.5 is not an int16 (an integer from -32768 to 32767)"#),
        ("i32 = 3000000000", #"column "i32": the integer 3000000000 is not an int32 (an integer from -2147483648 to 2147483647)"#),
        ("i64 = 'abc'", #"column "i64": the text "abc" is not an integer"#),
        ("dec = '12abc'", #"column "dec": the text "12abc" is not a decimal written as text, like "12.50""#),
        ("dec = x'0102'", #"column "dec": a blob of 2 bytes is not a decimal written as text, like "12.50""#),
        // 45 significant digits: Foundation would round it to 38, a different value.
        ("dec = '123456789012345678901234567890123456789012345'", #"column "dec": the text "123456789012345678901234567890123456789012345" is not a decimal written as text, like "12.50""#),
        ("dbl = 'hello'", #"column "dbl": the text "hello" is not a number (a real, an integer or the text 'NaN')"#),
        ("dbl = x'00'", #"column "dbl": a blob of 1 byte is not a number (a real, an integer or the text 'NaN')"#),
        ("flt = 1e300", #"column "flt": the real 1e+300 is not a float (a number within ±3.4028235e+38)"#),
        ("flag = 2", #"column "flag": the integer 2 is not a bool (an integer from 0 to 1)"#),
        ("\"when\" = 'yesterday'", #"column "when": the text "yesterday" is not a date (seconds since 2001 as a real)"#),
        ("\"when\" = 9e999", #"column "when": the real inf is not a date (a finite number of seconds since 2001)"#),
        ("data = 'text'", #"column "data": the text "text" is not a blob"#),
        ("uid = 'not-a-uuid'", #"column "uid": the text "not-a-uuid" is not a UUID like "E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#),
        ("uid = 'E621E1F8-C36C-495A-93FC-0C247A3E6EZZ'", #"column "uid": the text "E621E1F8-C36C-495A-93FC-0C247A3E6EZZ" is not a UUID like "E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#),
        ("link = ''", #"column "link": the text "" is not a URI like "https://example.com/a""#),
        ("shape = 3", #"column "shape": the integer 3 is not a blob"#),
        ("_version = 'v'", #"column "_version": the text "v" is not a version number (an integer)"#),
        ("_entity = 'Ghost'", #"column "_entity": the text "Ghost" is not the name of an entity of the Thing hierarchy (Thing, Sub)"#),
        ("s = 'a\n' || printf('%.100c', 'x')", #"column "s": the text "a\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… is not a text in UTF-8"#),
    ])
    func aBadValueIsAnErrorNamingTableRowAndColumn(_ assignment: String, _ message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        // The long text is also not UTF-8, so that it fails.
        let sql = assignment.hasPrefix("s = 'a") ? "UPDATE Thing SET \(assignment) || CAST(x'FF' AS TEXT) WHERE _pk = 1" : "UPDATE Thing SET \(assignment) WHERE _pk = 1"
        try raw(url, sql)
        let error = #expect(throws: StrataError.self) { try records(url, schema) }
        #expect(error?.code == .corruptStore)
        #expect(error?.file == url.path)
        #expect(error?.message == #"table "Thing", row _pk = 1, "# + message + Self.suffix)
    }

    @Test(arguments: [
        ("other = 'x'", #"column "other": the text "x" is not the primary key (an integer) of a Thing"#),
        ("_other_entity = 'Strict'", #"column "_other_entity": the text "Strict" is not the name of Thing or one of its subentities"#),
    ])
    func aBadForeignKeyIsAnError(_ assignment: String, _ message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        try raw(url, "UPDATE Thing SET \(assignment) WHERE _pk = 2")
        let error = #expect(throws: StrataError.self) { try records(url, schema) }
        #expect(error?.code == .corruptStore)
        #expect(error?.message == #"table "Thing", row _pk = 2, "# + message + Self.suffix)
    }

    @Test func fetchesAndObjectIDsAreStrictToo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        try raw(url, "UPDATE Thing SET i16 = 100000 WHERE _pk = 1; UPDATE Thing SET _entity = 'Ghost' WHERE _pk = 2")
        let store = try SQLiteStore(url: url, schema: schema)
        let fetch = #expect(throws: StrataError.self) { try store.fetch(StoreFetchRequest(entityNames: ["Thing"])) }
        #expect(fetch?.message.hasPrefix(#"table "Thing", row _pk = 1, column "i16": the integer 100000"#) == true)
        // Without a predicate on the entity, the keys of every row are read: the unknown entity is refused.
        let ids = #expect(throws: StrataError.self) { try store.fetchObjectIDs(StoreFetchRequest(entityNames: ["Thing", "Sub"])) }
        #expect(ids?.message.hasPrefix(#"table "Thing", row _pk = 2, column "_entity": the text "Ghost""#) == true, "\(ids?.message ?? "")")
    }

    @Test(arguments: [
        ("layoutVersion", "99", StrataError.Code.storeIO,
         "the store was written by a newer Strata (layout version 99; this Strata reads layout versions up to \(StoreFile.layoutVersion)); open it with a newer Strata"),
        ("layoutVersion", "one\n", .corruptStore, #"the Strata metadata's layoutVersion is "one\n", which no Strata writes; the store is damaged"#),
        ("storeType", "xml", .corruptStore, #"the Strata metadata gives the store type as "xml", but the file is a SQLite store ('sqlite'); the store is damaged"#),
    ])
    func badMetadataIsRefused(_ key: String, _ value: String, _ code: StrataError.Code, _ message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        try database.run("UPDATE strata_metadata SET value = ? WHERE key = ?", [.text(value), .text(key)])
        for error in [
            #expect(throws: StrataError.self) { try SQLiteStore(url: url, schema: schema) },
            #expect(throws: StrataError.self) { try SQLiteStoreFactory().metadata(at: url) },
        ] {
            #expect(error?.code == code)
            #expect(error?.message == message)
            #expect(error?.file == url.path)
        }
    }

    @Test func theFirstAndTheCurrentLayoutVersionsAreRead() throws {
        #expect(StoreFile.readableLayoutVersions == ["1", StoreFile.layoutVersion])
        try StoreFile.checkLayoutVersion("1", file: "x")
        try StoreFile.checkLayoutVersion(StoreFile.layoutVersion, file: "x")
    }
}

extension StrictReadingTests {
    static let rowsModel = """
    { "name": "Rows", "version": "1", "entities": [
      { "name": "Row", "attributes": [
          { "name": "name", "type": "string" },
          { "name": "data", "type": "binary" },
          { "name": "n", "type": "int64" },
          { "name": "note", "type": "string", "optional": true } ] } ] }
    """

    /// Edits the file with the `sqlite3` shell, as a user repairing (or breaking) a store would.
    func shell(_ url: URL, _ sql: String) throws {
        let shell = try #require(
            ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "this test needs the sqlite3 shell: apt-get install sqlite3")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = [url.path, sql]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(errorText == "")
        #expect(process.terminationStatus == 0)
    }

    /// A row in the middle of a fetch whose integer column holds a text (put there with the
    /// sqlite3 shell): the fetch, through the store or a context, fails with `corruptStore`
    /// naming the row and column — again and again, the values already read for that row and
    /// the rows before it freed — the context registers nothing, and once the row is repaired
    /// the same store and context read every row.
    @Test func aCorruptRowInTheMiddleOfAFetchIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema(json: Self.rowsModel)
        let url = directory.file("rows.sqlite")
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            _ = try store.save(StoreChangeset(inserted: (1...5).map { key in
                StoreRecord(
                    objectID: ObjectID(entityName: "Row", storeIdentifier: store.storeIdentifier, primaryKey: Int64(key)),
                    attributes: [
                        "name": .string("row \(key) with a name long enough to live on the heap"),
                        "data": .binary(Data(repeating: UInt8(key), count: 100)), "n": .integer(Int64(key)),
                        "note": .string("a note after the bad column"),
                    ])
            }))
        }
        try raw(url, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, ') STRICT', ')') WHERE name = 'Row'")
        try shell(url, "UPDATE Row SET n = 'three' WHERE _pk = 3")

        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        let store = try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        let expected = #"table "Row", row _pk = 3, column "n": the text "three" is not an integer"# + Self.suffix
        for _ in 0..<50 {
            let direct = #expect(throws: StrataError.self) { try store.fetch(StoreFetchRequest(entityNames: ["Row"])) }
            #expect(direct?.code == .corruptStore)
            #expect(direct?.message == expected)
            let fetched = #expect(throws: StrataError.self) {
                try context.fetch(FetchRequest(entityName: "Row", sortDescriptors: [FetchSortDescriptor("name")]))
            }
            #expect(fetched?.code == .corruptStore)
            #expect(fetched?.message == expected)
            #expect(fetched?.file == url.path)
        }
        #expect(context.registeredObjects.isEmpty)

        try shell(url, "UPDATE Row SET n = 3 WHERE _pk = 3")
        let rows = try context.fetch(FetchRequest(entityName: "Row", sortDescriptors: [FetchSortDescriptor("name")]))
        #expect(rows.map { $0["n"] as? Int64 } == [1, 2, 3, 4, 5])
        #expect(rows.map { ($0["data"] as? Data)?.first } == [1, 2, 3, 4, 5])
        #expect(rows[2]["name"] as? String == "row 3 with a name long enough to live on the heap")
        #expect(rows[2]["note"] as? String == "a note after the bad column")
    }
}
