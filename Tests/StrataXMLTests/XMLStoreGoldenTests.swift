import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// Small stores compared byte for byte with files under `Golden/`, the layout other tools read.
/// Re-record them with `STRATA_RECORD_GOLDEN=1 swift test --filter XMLStoreGoldenTests` and
/// review the diff.
@Suite struct XMLStoreGoldenTests {
    static let golden = GoldenFiles(directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden"))

    func expectGolden(_ url: URL, named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        try Self.golden.expect(try String(contentsOf: url, encoding: .utf8), matches: name, sourceLocation: sourceLocation)
    }

    /// The to-do example built through a context, with fixed keys and store identifier.
    @Test func todoList() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("TodoList.xml")
            try createEmptyStore(at: url, schema: schema, identifier: fixedStoreIdentifier)
            let coordinator = xmlCoordinator(schema)
            let store = try coordinator.addStore(StoreDescription(type: .xml, url: url))
            try coordinator.setMetadata("Strata tests", forKey: "createdBy", in: store)
            let context = ManagedObjectContext(coordinator: coordinator)
            let home = try context.insertObject(entityName: "Tag", primaryKey: 1)
            home["name"] = "home"
            let errands = try context.insertObject(entityName: "Tag", primaryKey: 2)
            errands["name"] = "errands"
            let shop = try context.insertObject(entityName: "Location", primaryKey: 1)
            shop["name"] = "Corner shop"
            shop["latitude"] = 48.8566
            shop["longitude"] = 2.3522
            let milk = try context.insertObject(entityName: "Todo", primaryKey: 1)
            milk["title"] = "Buy milk & eggs"
            milk["createdAt"] = Date(timeIntervalSince1970: 1_714_557_600)
            milk["priority"] = 2
            milk.setObject(shop, forKey: "location")
            milk.addObject(home, forKey: "tags")
            milk.addObject(errands, forKey: "tags")
            let call = try context.insertObject(entityName: "Todo", primaryKey: 2)
            call["title"] = "Call \"Mum\" <weekly>"
            call["createdAt"] = Date(timeIntervalSince1970: 1_714_644_000.25)
            call["done"] = true
            call["notes"] = "  Sunday\n\tafter lunch\r\n"
            call.addObject(home, forKey: "tags")
            try context.save()
            try expectGolden(url, named: "TodoList.xml")
        }
    }

    /// One object holding an edge value of every type, and one with every attribute nil: every
    /// value encoding in one file.
    @Test func values() throws {
        let schema = try valuesSchema()
        let sample = objectID("Sample", 1)
        let records = [
            StoreRecord(objectID: sample, attributes: [
                "text": .string(" <tab>\there & \"there\"\r\nbell:\u{07} 🥚 "),
                "small": .integer(Int64(Int16.min)),
                "medium": .integer(Int64(Int32.max)),
                "large": .integer(Int64.min),
                "amount": .decimal(Decimal(string: "-123456789012345678901234567890.12345678")!),
                "real": .double(.nan),
                "single": .float(0.1),
                "flag": .bool(true),
                "moment": .date(Date(timeIntervalSinceReferenceDate: 737_049_600.123456)),
                "blob": .binary(Data()),
                "identifier": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                "link": .uri(URL(string: "https://example.com/search?q=a&lang=en")!),
                "payload": .binary(Data("[\"a\"]".utf8)),
            ], toOne: ["next": objectID("Sample", 9)], toMany: ["parts": [objectID("Nut", 3), objectID("Bolt", 2)]]),
            StoreRecord(objectID: objectID("Sample", 2), attributes: [
                "text": .string(""),
                "real": .double(-.infinity),
                "moment": .date(Date(timeIntervalSince1970: -1)),
                "blob": .binary(Data([0, 1, 2, 253, 254, 255])),
            ]),
            StoreRecord(objectID: objectID("Bolt", 2), attributes: ["title": .string("M8"), "size": .integer(8)], toOne: ["sample": sample]),
            StoreRecord(objectID: objectID("Nut", 3), attributes: ["title": .string("M8 nut"), "thread": .double(1.25)], toOne: ["sample": sample]),
        ]
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Values.xml")
            try XMLStoreFormat().write(contents(schema, records, keySequences: ["Sample": 9, "Part": 3]), to: url)
            try expectGolden(url, named: "Values.xml")
            // The golden file reads back to the same records.
            let golden = try XMLStoreFormat().read(from: Self.golden.directory.appendingPathComponent("Values.xml"))
            #expect(golden.records == contents(schema, records).records)
        }
    }
}
