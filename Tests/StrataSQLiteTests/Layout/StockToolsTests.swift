import Foundation
import Strata
import StrataTestKit
import Testing
import StrataSQL
@testable import StrataSQLite

/// A store's file works with tools that know nothing of Strata: its schema names no collation
/// or function of Strata's, and comparisons still follow Swift's string rules and decimal values.
@Suite struct StockToolsTests {
    /// A KitchenSink store (string indexes, uniqueness constraints, a partial unique index,
    /// decimals) with non-NFC strings, written and closed.
    func kitchenSinkStore(_ directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("sink.sqlite")
        let coordinator = PersistentStoreCoordinator(schema: try Fixtures.schema("KitchenSink"), storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        for (name, label) in [("Cafe\u{301}", "red"), ("Zo\u{308}e", "blue")] {
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = label
            let owner = try context.insertObject(entityName: "Owner")
            owner["name"] = name
            owner["email"] = "\(label)@example.com"
            owner["joinedAt"] = Date(timeIntervalSinceReferenceDate: 0)
        }
        try context.save()
        return url
    }

    @Test func aConnectionWithoutStrataChecksVacuumsReindexesAndEditsTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = try kitchenSinkStore(directory)
        let raw = try RawSQLite(url)
        #expect(try raw.rows("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%COLLATE%' OR sql LIKE '%strata!_fold%' ESCAPE '!' OR sql LIKE '%strata!_compare%' ESCAPE '!'") == ["0"])
        #expect(try raw.rows("PRAGMA integrity_check") == ["ok"])
        #expect(try raw.rows("PRAGMA quick_check") == ["ok"])
        try raw.rows("REINDEX")
        try raw.rows("VACUUM")
        try raw.rows("UPDATE Tag SET name = 'yellow' WHERE name = 'red'")
        try raw.rows("UPDATE Owner SET email = 'x@example.com', _email_nfc = NULL WHERE _pk = 1")
        #expect(try raw.rows("SELECT name, _name_nfc FROM Owner ORDER BY _pk") == ["Cafe\u{301}|Caf\u{E9}", "Zo\u{308}e|Z\u{F6}e"])
        #expect(try raw.rows("PRAGMA integrity_check") == ["ok"])
    }

    /// The real `sqlite3` shell (`apt-get install sqlite3`; `.ci/run` installs it).
    @Test func theSqlite3ShellChecksTheStore() throws {
        let shell = try #require(
            ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "this test needs the sqlite3 shell: apt-get install sqlite3")
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = try kitchenSinkStore(directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = [url.path, "PRAGMA integrity_check; REINDEX; VACUUM; UPDATE Tag SET name = 'green' WHERE name = 'red'; SELECT name FROM Tag ORDER BY _pk;"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(errorText == "")
        #expect(process.terminationStatus == 0)
        #expect(text == "ok\ngreen\nblue\n")
    }

    /// Equality, ranges, IN and sorting on strings and decimals use the indexes: the query
    /// compares the same expressions the indexes hold.
    @Test func comparisonsOnStringsAndDecimalsUseTheIndexes() throws {
        let store = try SQLiteStore(url: nil, schema: try Fixtures.schema(json: StoreLayoutUpgradeTests.shopJSON))
        let table = try #require(store.layout.tables["Product"])
        func plan(_ format: String, sortedBy sort: String? = nil, _ arguments: [any PredicateArgument]) throws -> String {
            var compiler = PredicateCompiler(layout: store.layout)
            let compiled = try compiler.fetch(
                table: table, entityNames: ["Product", "Book"], predicate: try FetchPredicate(format: format, argumentArray: arguments),
                sortDescriptors: sort.map { [FetchSortDescriptor($0)] } ?? [], limit: 0, offset: 0)
            return try store.pool.read { (database) throws(StrataError) -> String in
                try database.rows("EXPLAIN QUERY PLAN " + compiled.select, compiled.arguments) { $0.text(3) }.joined(separator: "; ")
            }
        }
        // Either index on the name (the plain one or the unique one) holds the same expression.
        #expect(try plan("name == %@", ["Cafe\u{301}"]).contains("SEARCH t USING INDEX unique.Product.name (<expr>=?)"))
        #expect(try plan("name IN %@", [["a", "b\u{308}"]]).contains("SEARCH t USING INDEX unique.Product.name (<expr>=?)"))
        #expect(try plan("name > %@ AND name < %@", ["m", "p"]).contains("SEARCH t USING INDEX unique.Product.name (<expr>>? AND <expr><?)"))
        #expect(try plan("price == %@", [PredicateValue.decimal(Decimal(string: "1.50")!)]).contains("SEARCH t USING INDEX index.Product.price (_price_key=?)"))
        #expect(try plan("price > 1 AND price < 2", []).contains("SEARCH t USING INDEX index.Product.price (_price_key>? AND _price_key<?)"))
        #expect(try plan("TRUEPREDICATE", sortedBy: "name", []).contains("SCAN t USING INDEX unique.Product.name"))
    }

    @Test func decimalKeysSortAsTheDecimalsDo() {
        let texts = [
            "0", "-0", "1", "1.0", "1.00", "1.5", "-1.5", "-1.25", "-1.2", "-1.19", "0.001", "-0.001", "0.0010", "10", "100", "-100", "9.99",
            "123456789012345678.901234567890", "-123456789012345678.901234567890", "1E+100", "-1E+100", "1E-100", "-1E-100", "99999", "0.5",
        ]
        let values = texts.map { Decimal(string: $0)! }
        for a in values {
            for b in values {
                let (x, y) = (ComparisonKey.decimal(a), ComparisonKey.decimal(b))
                #expect((a < b) == (Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))), "\(a) \(b): \(x) \(y)")
                #expect((a == b) == (x == y), "\(a) \(b): \(x) \(y)")
            }
        }
        #expect(ComparisonKey.decimal(Decimal(string: "-0")!) == "1")
        #expect(ComparisonKey.decimal(text: "abc") == nil)
    }
}
