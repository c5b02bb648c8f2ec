import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Every attribute type keeps its exact value through a save and a reopened store.
@Suite struct ValueRoundTripTests {
    static let schemaJSON = """
    { "name": "Values", "entities": [ { "name": "Sample", "attributes": [
      { "name": "text", "type": "string", "optional": true },
      { "name": "small", "type": "int16", "optional": true },
      { "name": "medium", "type": "int32", "optional": true },
      { "name": "large", "type": "int64", "optional": true },
      { "name": "exact", "type": "decimal", "optional": true },
      { "name": "real", "type": "double", "optional": true },
      { "name": "single", "type": "float", "optional": true },
      { "name": "flag", "type": "bool", "optional": true },
      { "name": "instant", "type": "date", "optional": true },
      { "name": "bytes", "type": "binary", "optional": true },
      { "name": "identifier", "type": "uuid", "optional": true },
      { "name": "address", "type": "uri", "optional": true },
      { "name": "shape", "type": "transformable", "transformer": "Shape", "optional": true }
    ] } ] }
    """

    static let samples: [[String: AttributeValue]] = [
        [
            "text": .string("e\u{301}tude — naïve 日本 🎉"), "small": .integer(-32768), "medium": .integer(2_147_483_647),
            "large": .integer(.max), "exact": .decimal(Decimal(string: "123456789012345678.901234567890123456")!),
            "real": .double(.nan), "single": .float(.nan), "flag": .bool(true),
            "instant": .date(Date(timeIntervalSince1970: 1_714_557_600.123)), "bytes": .binary(Data()),
            "identifier": .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!),
            "address": .uri(URL(string: "https://example.com/a%20b?q=1#f")!), "shape": .binary(Data([0, 1, 2, 255])),
        ],
        [
            "text": .string(""), "small": .integer(32767), "medium": .integer(-2_147_483_648), "large": .integer(.min),
            "exact": .decimal(Decimal(string: "-0.00000000000000000000000000000000001")!), "real": .double(-0.0),
            "single": .float(-0.0), "flag": .bool(false), "instant": .date(Date(timeIntervalSinceReferenceDate: 736_000_000.000_123_4)),
            "bytes": .binary(Data(repeating: 0, count: 3)), "identifier": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
            "address": .uri(URL(string: "file:///tmp/x")!),
        ],
        ["real": .double(.infinity), "single": .float(-.infinity), "large": .integer(9_007_199_254_740_993), "exact": .decimal(Decimal(string: "99999999999999999999999999999999999999")!)],
        ["real": .double(-.infinity), "single": .float(.greatestFiniteMagnitude), "exact": .decimal(0)],
        ["real": .double(.leastNonzeroMagnitude), "single": .float(.leastNonzeroMagnitude), "instant": .date(Date(timeIntervalSinceReferenceDate: -0.001))],
        ["real": .double(3.0), "single": .float(1.5), "exact": .decimal(Decimal(string: "1.50")!)],
        [:],
    ]

    @Test func everyValueComesBackExactlyAfterReopening() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema(json: Self.schemaJSON)
        let url = directory.file("values.sqlite")
        var ids: [ObjectID] = []
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            let keys = try store.allocatePrimaryKeys(rootEntity: "Sample", count: Self.samples.count)
            let records = zip(keys, Self.samples).map { key, attributes in
                StoreRecord(objectID: ObjectID(entityName: "Sample", storeIdentifier: store.metadata.storeIdentifier, primaryKey: key), attributes: AttributeValues(attributes))
            }
            ids = records.map(\.objectID)
            #expect(try store.save(StoreChangeset(inserted: records)) == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
        }
        let store = try SQLiteStore(url: url, schema: schema)
        let records = try store.records(for: ids)
        for (id, expected) in zip(ids, Self.samples) {
            let actual = try #require(records[id])
            #expect(actual.attributes.dictionary == expected)
            #expect(actual.version == 1)
            // Bit for bit, where == is looser: -0.0's sign, NaN, the decimal's digits.
            for (key, value) in expected {
                switch (value, actual.attributes[key]) {
                case (.double(let a), .double(let b)?): #expect(a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN), "\(key)")
                case (.float(let a), .float(let b)?): #expect(a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN), "\(key)")
                case (.decimal(let a), .decimal(let b)?): #expect(a.description == b.description, "\(key)")
                case (.date(let a), .date(let b)?): #expect(a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern, "\(key)")
                default: break
                }
            }
        }
        // Empty binary is not nil.
        #expect(records[ids[0]]?.attributes["bytes"] == .binary(Data()))
        #expect(records[ids[2]]?.attributes["bytes"] == nil)
    }

    @Test func textsKeepEveryCharacterIncludingNUL() throws {
        let schema = try Fixtures.schema(json: Self.schemaJSON)
        let store = try SQLiteStore(url: nil, schema: schema)
        let id = ObjectID(entityName: "Sample", storeIdentifier: store.metadata.storeIdentifier, primaryKey: 1)
        // Texts are bound with their length, so a NUL inside one is kept, not taken as the end.
        let text = "nul\u{0}inside, then\ttab and\nnewline"
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["text": .string(text)])]))
        #expect(try store.records(for: [id])[id]?.attributes["text"] == .string(text))
        let length = try #require(try store.rawQuery("SELECT length(CAST(text AS BLOB)) AS bytes FROM Sample", []).first)
        #expect(length["bytes"] == .integer(Int64(text.utf8.count)))
    }

    @Test func storageClassesAreTheDocumentedOnes() throws {
        let schema = try Fixtures.schema(json: Self.schemaJSON)
        let store = try SQLiteStore(url: nil, schema: schema)
        let id = ObjectID(entityName: "Sample", storeIdentifier: store.metadata.storeIdentifier, primaryKey: 1)
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: AttributeValues(Self.samples[0]))]))
        let row = try #require(try store.rawQuery("""
            SELECT typeof(text) AS text, typeof(large) AS large, exact, typeof(exact) AS exactType, real, typeof(single) AS single,
                   flag, instant, typeof(bytes) AS bytes, length(bytes) AS length, identifier, address
            FROM Sample
            """, []).first)
        #expect(row["text"] == .string("text"))
        #expect(row["large"] == .string("integer"))
        #expect(row["exact"] == .string("123456789012345678.901234567890123456"))
        #expect(row["exactType"] == .string("text"))
        #expect(row["real"] == .string("NaN"))
        #expect(row["single"] == .string("text"))
        #expect(row["flag"] == .integer(1))
        #expect(row["instant"] == .double(Date(timeIntervalSince1970: 1_714_557_600.123).timeIntervalSinceReferenceDate))
        #expect(row["bytes"] == .string("blob"))
        #expect(row["length"] == .integer(0))
        #expect(row["identifier"] == .string("3F2504E0-4F89-11D3-9A0C-0305E82C3301"))
        #expect(row["address"] == .string("https://example.com/a%20b?q=1#f"))
    }

    @Test func valuesCompareAsValuesInPredicates() throws {
        let schema = try Fixtures.schema(json: Self.schemaJSON)
        let store = try SQLiteStore(url: nil, schema: schema)
        let records = Self.samples.enumerated().map { index, attributes in
            StoreRecord(objectID: ObjectID(entityName: "Sample", storeIdentifier: store.metadata.storeIdentifier, primaryKey: Int64(index + 1)), attributes: AttributeValues(attributes))
        }
        _ = try store.save(StoreChangeset(inserted: records))
        func keys(_ predicate: FetchPredicate, sort: [FetchSortDescriptor] = []) throws -> [Int64] {
            try store.fetch(StoreFetchRequest(entityNames: ["Sample"], predicate: predicate, sortDescriptors: sort)).map { $0.objectID.primaryKey! }
        }
        func compare(_ key: String, _ op: ComparisonOperator, _ value: PredicateValue) -> FetchPredicate {
            .comparison(Comparison(.key(key), op, .constant(value)))
        }
        #expect(try keys(compare("real", .equal, .double(.nan))) == [1])
        #expect(try keys(compare("real", .equal, .integer(0))) == [2])
        #expect(try keys(compare("real", .greaterThan, .integer(0))) == [3, 5, 6])
        #expect(try keys(.not(compare("real", .lessThan, .integer(100)))) == [1, 3, 7])
        #expect(try keys(compare("large", .greaterThan, .double(9_007_199_254_740_992))) == [1, 3])
        #expect(try keys(compare("exact", .greaterThan, .decimal(Decimal(string: "123456789012345678.9012345678901234")!))) == [1, 3])
        #expect(try keys(compare("exact", .equal, .decimal(Decimal(string: "1.5")!))) == [6])
        #expect(try keys(compare("exact", .lessThan, .integer(1))) == [2, 4])
        #expect(try keys(compare("instant", .lessThan, .date(Date(timeIntervalSinceReferenceDate: 0)))) == [5])
        #expect(try keys(compare("bytes", .equal, .data(Data()))) == [1])
        #expect(try keys(compare("text", .equal, .string("\u{E9}tude — naïve 日本 🎉"))) == [1])
        #expect(try keys(.true, sort: [FetchSortDescriptor("real")]) == [7, 4, 2, 5, 6, 3, 1])
        #expect(try keys(.true, sort: [FetchSortDescriptor("exact", ascending: false)]) == [3, 1, 6, 4, 2, 5, 7])
    }
}
