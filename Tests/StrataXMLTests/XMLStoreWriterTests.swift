import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// What the writer refuses (so that a save never produces a file its reader would refuse), and
/// the order it writes objects in.
@Suite struct XMLStoreWriterTests {
    func refusal(_ records: [StoreRecord]) throws -> String? {
        let schema = try valuesSchema()
        return try withTemporaryDirectory { directory in
            let error = strataError { try XMLStoreFormat().write(contents(schema, records), to: directory.appendingPathComponent("refused.xml")) }
            #expect(error?.code == .invalidData)
            return error?.message
        }
    }

    func sample(_ attributes: AttributeValues, toOne: [String: ObjectID] = [:], toMany: [String: [ObjectID]] = [:]) -> StoreRecord {
        StoreRecord(objectID: objectID("Sample", 1), attributes: attributes, toOne: toOne, toMany: toMany)
    }

    @Test func valuesThatDoNotFitTheModelAreRefused() throws {
        #expect(try refusal([sample(["small": .string("7")])])
            == "cannot write Sample/p1.small: the model says int16, but the value is \"7\"")
        #expect(try refusal([sample(["small": .integer(40_000)])])
            == "cannot write Sample/p1.small: 40000 is out of the range of an int16")
        #expect(try refusal([sample(["medium": .integer(Int64(Int32.max) + 1)])])
            == "cannot write Sample/p1.medium: 2147483648 is out of the range of an int32")
        #expect(try refusal([sample(["link": .string("https://example.com")])])
            == "cannot write Sample/p1.link: the model says uri, but the value is \"https://example.com\"")
        #expect(try refusal([sample(["text": .integer(1)])])
            == "cannot write Sample/p1.text: the model says string, but the value is 1")
        #expect(try refusal([sample(["colour": .string("red"), "text": .string("x"), "zone": .integer(1)])])
            == "cannot write Sample/p1: entity 'Sample' has no stored attribute 'colour', 'zone'")
        #expect(try refusal([sample(["scratch": .string("transient")])])
            == "cannot write Sample/p1: entity 'Sample' has no stored attribute 'scratch'")
        // A value that does not fit is reported before an attribute the entity does not have.
        #expect(try refusal([sample(["colour": .string("red"), "small": .integer(40_000)])])
            == "cannot write Sample/p1.small: 40000 is out of the range of an int16")
        // Values laid out by the entity, a transient one among them.
        var laidOut = AttributeValues(layout: try valuesSchema().entity(named: "Sample")!.attributeLayout)
        laidOut["text"] = .string("stored")
        laidOut["scratch"] = .string("transient")
        #expect(try refusal([sample(laidOut)])
            == "cannot write Sample/p1: entity 'Sample' has no stored attribute 'scratch'")
        laidOut["scratch"] = nil
        laidOut["small"] = .string("7")
        #expect(try refusal([sample(laidOut)])
            == "cannot write Sample/p1.small: the model says int16, but the value is \"7\"")
        #expect(try refusal([sample([:], toOne: ["labels": objectID("Label", 1)])])
            == "cannot write Sample/p1: entity 'Sample' has no relationship 'labels' of that kind")
    }

    /// A device with no space left (`/dev/full`) fails the write with the system's reason,
    /// whether the failure comes while objects are written or only when the file is finished.
    @Test(arguments: [0, 1, 20_000])
    func fullDeviceIsAStoreIOError(objects: Int) throws {
        try #require(FileManager.default.fileExists(atPath: "/dev/full"))
        let schema = try valuesSchema()
        let records = (0..<objects).map { key in
            StoreRecord(objectID: objectID("Sample", Int64(key + 1)), attributes: ["text": .string("object \(key) of a store too large for the disk")])
        }
        let error = strataError { try XMLStoreFormat().write(contents(schema, records), to: URL(fileURLWithPath: "/dev/full")) }
        #expect(error?.code == .storeIO)
        #expect(error?.message == "cannot write '/dev/full': No space left on device")
    }

    /// Objects come by key whether the keys fill their range (placed by key) or not (sorted),
    /// and read back as they were.
    @Test(arguments: [
        [3, 1, 2, 5, 4],
        [10, 12, 11, 15],
        [-3, 7, 1_000_000, 2, Int64.max, Int64.min + 1, 0],
        Array(stride(from: 2_000, through: 1, by: -3)),
    ] as [[Int64]])
    func objectsAreWrittenByKey(keys: [Int64]) throws {
        let schema = try valuesSchema()
        let records = keys.map { key in
            StoreRecord(objectID: objectID("Sample", key), attributes: ["large": .integer(key), "text": .string("object \(key)")])
        }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("ordered.xml")
            try XMLStoreFormat().write(contents(schema, records, keySequences: ["Sample": keys.max()!]), to: url)
            let text = try String(contentsOf: url, encoding: .utf8)
            let written = text.components(separatedBy: "<object type=\"Sample\" id=\"p").dropFirst().map { Int64($0.prefix { $0 != "\"" })! }
            #expect(written == keys.sorted())
            let back = try XMLStoreFormat().read(from: url)
            #expect(back.records["Sample"] == Dictionary(uniqueKeysWithValues: records.map { ($0.objectID, $0) }))
        }
    }
}
