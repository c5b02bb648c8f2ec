import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// Every attribute type is kept exactly: stored, read back by a new store instance, equal to
/// the bit where bits matter.
@Suite struct PostgresStoreValueTests {
    /// Values at the edges of each type.
    static let edgeCases: [[String: AttributeValue]] = [
        [
            "name": .string("Cafe\u{301} 🍰 \"quoted\" \\ back'slash"), "sku": .string("A-1"),
            "small": .integer(Int64(Int16.min)), "medium": .integer(Int64(Int32.max)), "large": .integer(Int64.min),
            "price": .decimal(Decimal(string: "-12345678901234567890.123456789")!), "ratio": .double(-0.0),
            "weight": .float(Float.leastNonzeroMagnitude), "active": .bool(true),
            "added": .date(Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789)),
            "image": .binary(Data([0, 1, 2, 0xFF, 0x5C, 0x78])), "uid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            "page": .uri(URL(string: "https://example.com/a?b=c%20d#e")!), "extra": .binary(Data()),
        ],
        [
            "name": .string(""), "sku": .string("A-2"), "small": .integer(Int64(Int16.max)), "medium": .integer(Int64(Int32.min)),
            "large": .integer(Int64.max), "price": .decimal(.nan), "ratio": .double(.nan), "weight": .float(.infinity),
            "active": .bool(false), "added": .date(Date(timeIntervalSinceReferenceDate: -1e-300)),
            "image": .binary(Data()), "uid": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
            "page": .uri(URL(string: "urn:isbn:0451450523")!), "extra": .binary(Data(repeating: 7, count: 3)),
        ],
        [
            "sku": .string("A-3"), "ratio": .double(-.infinity), "weight": .float(-0.0), "price": .decimal(Decimal(string: "0.0000000000000000000000000001")!),
            "added": .date(Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude)), "medium": .integer(0),
        ],
        ["sku": .string("A-4"), "ratio": .double(.infinity), "weight": .float(.nan), "large": .integer(0)],
        [
            // A float whose shortest digits, read through a Double, round to its neighbour.
            "sku": .string("A-5"), "weight": .float(Float(bitPattern: 0x15AE_43FD)),
            "price": .decimal(Decimal(string: "-12345678901234567890123456789012345678")!),
            "name": .string("\u{1}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFD}\u{FFFF}\u{10000}\u{1F600}\u{E0001}\u{10FFFF}"),
            "image": .binary(Data((0...255).map { UInt8($0) })), "ratio": .double(.leastNonzeroMagnitude),
            "added": .date(Date(timeIntervalSinceReferenceDate: -.greatestFiniteMagnitude)),
        ],
    ]

    @Test(arguments: 0..<edgeCases.count)
    func everyAttributeTypeRoundTripsExactly(_ index: Int) throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let values = Self.edgeCases[index]
        let id: ObjectID
        do {
            let store = try place.store(schema)
            let key = try store.allocatePrimaryKeys(rootEntity: "Product", count: 1)[0]
            id = ObjectID(entityName: "Product", storeIdentifier: store.storeIdentifier, primaryKey: key)
            let record = StoreRecord(objectID: id, attributes: AttributeValues(values))
            let versions = try store.save(StoreChangeset(inserted: [record]))
            #expect(versions == [id: 1])
        }
        let reopened = try place.store(schema)
        let record = try #require(try reopened.records(for: [id])[id])
        #expect(record.version == 1)
        let product = try #require(schema.entity(named: "Product"))
        for attribute in product.attributes {
            let stored = record.attributes[attribute.name]
            let expected = values[attribute.name]
            #expect(Self.identical(stored, expected), "\(attribute.name): stored \(String(describing: stored)), expected \(String(describing: expected))")
        }
    }

    /// Equal, and for floating-point values equal to the bit (so -0.0 is not 0.0).
    static func identical(_ lhs: AttributeValue?, _ rhs: AttributeValue?) -> Bool {
        switch (lhs, rhs) {
        case (.double(let a)?, .double(let b)?): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.float(let a)?, .float(let b)?): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.date(let a)?, .date(let b)?): a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.decimal(let a)?, .decimal(let b)?): a == b || (a.isNaN && b.isNaN)
        default: lhs == rhs
        }
    }

    @Test func aStringWithANulCharacterIsRefusedAndNothingIsWritten() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let store = try place.store(try Models.shop())
        let key = try store.allocatePrimaryKeys(rootEntity: "Product", count: 1)[0]
        let id = ObjectID(entityName: "Product", storeIdentifier: store.storeIdentifier, primaryKey: key)
        let error = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["name": .string("a\u{0}b")])]))
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains("NUL") == true)
        #expect(try store.count(StoreFetchRequest(entityNames: ["Product"])) == 0)
    }

    @Test func theTablesAreReadableWithTheirPostgreSQLTypes() throws {
        let place = try TestSchema()
        defer { place.drop() }
        _ = try place.store(try Models.shop())
        let columns = try place.column("""
            SELECT column_name || ' ' || data_type FROM information_schema.columns
            WHERE table_schema = '\(place.name)' AND table_name = 'Product' ORDER BY ordinal_position
            """)
        #expect(columns.prefix(17) == [
            "_pk bigint", "_entity text", "_version bigint", "name text", "sku text", "small smallint", "medium integer",
            "large bigint", "price numeric", "ratio double precision", "weight real", "active boolean",
            "added double precision", "image bytea", "uid uuid", "page text", "extra bytea",
        ])
        let tables = try place.column("SELECT table_name FROM information_schema.tables WHERE table_schema = '\(place.name)' ORDER BY table_name")
        #expect(tables == ["Label", "Label.products", "Maker", "Product", "Product.similar", "Step", "strata_history", "strata_keys", "strata_metadata"])
        let model = try place.column("SELECT value FROM strata_metadata WHERE key = 'modelName'")
        #expect(model == ["Shop"])
    }
}
