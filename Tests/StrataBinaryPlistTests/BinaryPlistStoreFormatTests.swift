import Foundation
import Strata
import StrataTestKit
import Testing
import StrataBinaryPlist

@Suite struct BinaryPlistStoreFormatTests {
    let format = Fixtures.format

    /// Encodes and decodes `contents`, expecting the very same store back.
    @discardableResult
    func roundTrip(_ contents: AtomicStoreContents, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> AtomicStoreContents {
        let bytes = try format.encode(contents)
        let back = try format.decode(bytes)
        #expect(back.metadata == contents.metadata, sourceLocation: sourceLocation)
        #expect(back.keySequences == contents.keySequences, sourceLocation: sourceLocation)
        #expect(back.records == contents.records, sourceLocation: sourceLocation)
        return back
    }

    /// One `Item` per value of `attribute`, keys from 1; the decoded values in the same order.
    func roundTrip(_ attribute: String, _ values: [AttributeValue], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [AttributeValue?] {
        let records = values.enumerated().map { Fixtures.record("Item", Int64($0.offset + 1), [attribute: $0.element]) }
        let back = try roundTrip(Fixtures.contents(records), sourceLocation: sourceLocation)
        return values.indices.map { back.record(Fixtures.id("Item", Int64($0 + 1)))?.attributes[attribute] }
    }

    @Test func smallStoreRoundTrips() throws {
        let back = try roundTrip(Fixtures.smallStore())
        #expect(back.recordCount == 7)
        // The dangling reference (Item 9 was never in the store) is kept as it was.
        #expect(back.record(Fixtures.id("Item", 1))?.toOne["next"] == Fixtures.id("Item", 9))
        // Ordered to-many into a hierarchy keeps its order and concrete entities.
        #expect(back.record(Fixtures.id("Owner", 1))?.toMany["assets"] == [Fixtures.id("Photo", 2), Fixtures.id("Document", 1)])
        // An empty to-many stays present and empty; an absent one stays absent.
        #expect(back.record(Fixtures.id("Owner", 2))?.toMany["items"] == [])
        #expect(back.record(Fixtures.id("Item", 2))?.toMany["tags"] == nil)
        #expect(back.record(Fixtures.id("Owner", 2))?.version == 3)
    }

    @Test func emptyStoreRoundTrips() throws {
        let contents = Fixtures.contents([])
        try roundTrip(contents)
        #expect(try format.decodeMetadata(format.encode(contents)) == contents.metadata)
    }

    @Test func strings() throws {
        let values: [String] = [
            "", "plain", "with \"double\" and 'single' quotes", "<&>", "a\tb", "line\nbreak\r\nand return",
            "emoji 😀👍🏽", "non-BMP 𝄞 𠀀 🜁", "é à ü ß", "nul\u{0}byte", "  leading and trailing  ",
            String(repeating: "x", count: 14), String(repeating: "y", count: 15), String(repeating: "z", count: 300),
            String(repeating: "long ascii ", count: 7000), String(repeating: "ünïcödé 😀 ", count: 7000),
            "\u{FEFF}bom", "\u{10FFFF}",
        ]
        let back = try roundTrip("text", values.map { .string($0) })
        #expect(back == values.map { .string($0) })
    }

    @Test func integers() throws {
        let values: [Int64] = [
            0, 1, 14, 15, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .max, .min, -1, -255, -65_536,
            Int64(Int32.min), Int64(Int32.max), Int64(Int16.min), Int64(Int16.max),
        ]
        #expect(try roundTrip("large", values.map { .integer($0) }) == values.map { .integer($0) })
        let small: [Int64] = [Int64(Int16.min), -1, 0, Int64(Int16.max)]
        #expect(try roundTrip("small", small.map { .integer($0) }) == small.map { .integer($0) })
        let medium: [Int64] = [Int64(Int32.min), -1, 0, Int64(Int32.max)]
        #expect(try roundTrip("medium", medium.map { .integer($0) }) == medium.map { .integer($0) })
    }

    @Test func decimals() throws {
        let texts = [
            "123456789012345678.901234567890", "-123456789012345678.901234567890", "0.000000000000000000000000000001",
            "99999999999999999999999999999999999999", "-12.50", "0", "1e100", "-1e-100", "3.14159265358979323846264338327950288",
        ]
        var values = texts.map { AttributeValue.decimal(Decimal(string: $0)!) }
        values += [.decimal(.greatestFiniteMagnitude), .decimal(.leastNonzeroMagnitude), .decimal(-.greatestFiniteMagnitude)]
        let more = ["12.50", "1200", "-0.5", "18446744073709551615", "18446744073709551616", "0.1", "1e-128", "99999999999999999999e100"]
        values += more.map { AttributeValue.decimal(Decimal(string: $0)!) }
        values += [.decimal(Decimal(sign: .plus, exponent: 40, significand: 5)), .decimal(Decimal(sign: .minus, exponent: -3, significand: 12_345))]
        #expect(try roundTrip("amount", values) == values)
        // Stored as text: plain when that is exact, else significand and exponent.
        let records = values.enumerated().map { Fixtures.record("Item", Int64($0.offset + 1), ["amount": $0.element]) }
        let items = try BinaryPlistValue.decode(format.encode(Fixtures.contents(records)))["objects"]?["Item"]
        #expect(items?[0]?["amount"] == .string("123456789012345678.90123456789"))
        #expect(items?[4]?["amount"] == .string("-12.5"))
        #expect(items?[6]?["amount"] == .string("1e100"))
        #expect(items?[9]?["amount"] == .string("340282366920938463463374607431768211455e127"))
        let written: [BinaryPlistValue?] = (12..<22).map { items?[$0]?["amount"] }
        #expect(written == ["12.5", "1200", "-0.5", "18446744073709551615", "18446744073709551616", "0.1",
                          "0.\(String(repeating: "0", count: 127))1", "99999999999999999999" + String(repeating: "0", count: 100), "5e40", "-12.345"].map { BinaryPlistValue.string($0) })
    }

    @Test func doubles() throws {
        let values: [Double] = [
            .nan, .infinity, -.infinity, 0, -0.0, 0.1, .pi, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e-300, 9_007_199_254_740_992, 123_456.789,
        ]
        let back = try roundTrip("ratio", values.map { .double($0) })
        for (value, decoded) in zip(values, back) {
            guard case .double(let double)? = decoded else {
                Issue.record("\(value) came back as \(String(describing: decoded))")
                continue
            }
            #expect(double.bitPattern == value.bitPattern, "\(value) came back as \(double)")
        }
    }

    @Test func floats() throws {
        let values: [Float] = [.nan, .infinity, -.infinity, 0, -0.0, 0.1, 0.25, .pi, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 16_777_216, 0.1 + 0.2]
        let back = try roundTrip("level", values.map { .float($0) })
        for (value, decoded) in zip(values, back) {
            guard case .float(let float)? = decoded else {
                Issue.record("\(value) came back as \(String(describing: decoded))")
                continue
            }
            #expect(float.bitPattern == value.bitPattern, "\(value) came back as \(float)")
        }
    }

    @Test func booleans() throws {
        #expect(try roundTrip("flag", [.bool(true), .bool(false), .bool(true)]) == [.bool(true), .bool(false), .bool(true)])
    }

    @Test func datesKeepTheirMilliseconds() throws {
        let texts = [
            "1969-12-31T23:59:59.999Z", "1900-01-01T00:00:00.001Z", "1000-06-15T12:30:45.678Z", "0001-01-01T00:00:00.000Z",
            "1970-01-01T00:00:00.000Z", "2001-01-01T00:00:00.000Z", "2024-05-01T10:00:00.123Z", "2100-03-01T00:00:00.999Z",
            "2999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z",
        ]
        let dates = texts.map { ISO8601.date(from: $0)! }
        let values = dates.map { AttributeValue.date($0) } + [.date(.distantPast), .date(.distantFuture), .date(Date(timeIntervalSince1970: 1e-3))]
        let back = try roundTrip("when", values)
        #expect(back == values)
        for (text, decoded) in zip(texts, back) {
            guard case .date(let date)? = decoded else {
                Issue.record("\(text) came back as \(String(describing: decoded))")
                continue
            }
            #expect(ISO8601.string(from: date) == text)
        }
    }

    @Test func binaryKeepsEmptyApartFromNil() throws {
        var generator = SeededGenerator(seed: 7)
        let large = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let values: [Data] = [Data(), Data([0]), Data(repeating: 0xFF, count: 14), Data(repeating: 1, count: 15), Data(repeating: 2, count: 300), large]
        #expect(try roundTrip("blob", values.map { .binary($0) }) == values.map { .binary($0) })
        #expect(try roundTrip("shape", [.binary(Data([1, 2, 3])), .binary(Data())]) == [.binary(Data([1, 2, 3])), .binary(Data())])
        // nil is an absent key.
        let back = try roundTrip(Fixtures.contents([Fixtures.record("Item", 1, [:]), Fixtures.record("Item", 2, ["blob": .binary(Data())])]))
        #expect(back.record(Fixtures.id("Item", 1))?.attributes["blob"] == nil)
        #expect(back.record(Fixtures.id("Item", 2))?.attributes["blob"] == .binary(Data()))
    }

    @Test func uuidsAndURIs() throws {
        let uuids = ["3F2504E0-4F89-11D3-9A0C-0305E82C3301", "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"]
        let uuidValues = uuids.map { AttributeValue.uuid(UUID(uuidString: $0)!) }
        #expect(try roundTrip("token", uuidValues) == uuidValues)
        let uris = ["https://example.com/a%20b?q=1&r=2#frag", "mailto:someone@example.com", "file:///tmp/x%20y", "urn:isbn:0451450523", "https://例子.测试/ü"]
        let uriValues = uris.compactMap { URL(string: $0) }.map { AttributeValue.uri($0) }
        #expect(uriValues.count == uris.count)
        #expect(try roundTrip("link", uriValues) == uriValues)
    }

    @Test func everyAttributeOnOneRecord() throws {
        let store = Fixtures.smallStore()
        let item = try #require(store.record(Fixtures.id("Item", 1)))
        #expect(item.attributes.count == 12)
        let back = try roundTrip(store)
        #expect(back.record(Fixtures.id("Item", 1)) == item)
    }

    @Test func referencesInEveryForm() throws {
        let other = "11111111-2222-3333-4444-555555555555"
        let contents = Fixtures.contents([
            Fixtures.record("Owner", 1, ["name": .string("a")], toMany: ["assets": [Fixtures.id("Photo", 5), Fixtures.id("Document", 4), Fixtures.id("Photo", 77)]]),
            Fixtures.record("Photo", 5, ["title": .string("p"), "width": .integer(1)]),
            Fixtures.record("Document", 4, ["title": .string("d"), "pages": .integer(1)]),
            Fixtures.record("Item", 1, toOne: ["owner": Fixtures.id("Owner", 1, store: other), "next": Fixtures.id("Item", 1)]),
        ])
        let back = try roundTrip(contents)
        #expect(back.record(Fixtures.id("Item", 1))?.toOne["owner"]?.storeIdentifier == other)
        let plist = try BinaryPlistValue.decode(format.encode(contents))
        let items = plist["objects"]?["Item"]?[0]
        #expect(items?["owner"] == .string("strata://\(other)/Owner/p1"))
        #expect(items?["next"] == .int(1))
        #expect(plist["objects"]?["Owner"]?[0]?["assets"] == .array([.string("Photo/p5"), .string("Document/p4"), .string("Photo/p77")]))
    }

    @Test func layoutIsAsDocumented() throws {
        let plist = try BinaryPlistValue.decode(format.encode(Fixtures.smallStore()))
        guard case .dictionary(let top) = plist else {
            Issue.record("the top object is \(plist)")
            return
        }
        #expect(top.keys.sorted() == ["metadata", "objects"])
        let metadata = try #require(plist["metadata"])
        guard case .dictionary(let fields) = metadata else {
            Issue.record("the metadata is \(metadata)")
            return
        }
        #expect(fields.keys.sorted() == ["custom", "entityVersionHashes", "formatVersion", "keySequences", "modelName", "modelVersionHash", "schema", "storeIdentifier", "storeType"])
        #expect(metadata["formatVersion"] == .int(1))
        #expect(metadata["storeType"] == .string("binary"))
        #expect(metadata["storeIdentifier"] == .string(Fixtures.storeIdentifier))
        #expect(metadata["modelName"] == .string("BinarySink"))
        #expect(metadata["schema"] == .string(Fixtures.schema.jsonString))
        #expect(metadata["keySequences"] == .dictionary(["Item": .int(9), "Owner": .int(2), "Tag": .int(1), "Asset": .int(2)]))
        #expect(metadata["custom"] == .dictionary(["app": .string("tests"), "note": .string("ünïcode")]))
        #expect(metadata["entityVersionHashes"]?["Item"] == .string(Fixtures.schema.entity(named: "Item")!.versionHash))
        let item = try #require(plist["objects"]?["Item"]?[0])
        #expect(item["@id"] == .int(1))
        #expect(item["@version"] == .int(1))
        #expect(item["large"] == .int(.max))
        #expect(item["amount"] == .string("123456789012345678.90123456789"))
        #expect(item["level"] == .float(0.25))
        #expect(item["flag"] == .bool(true))
        #expect(item["when"] == .date(Date(timeIntervalSince1970: 1_714_557_600.123).timeIntervalSinceReferenceDate))
        #expect(item["blob"] == .data([]))
        #expect(item["token"] == .string("3F2504E0-4F89-11D3-9A0C-0305E82C3301"))
        #expect(item["link"] == .string("https://example.com/a?b=c"))
        #expect(item["tags"] == .array([.int(1)]))
        #expect(item["next"] == .string("Item/p9"))
        #expect(plist["objects"]?["Item"]?[1]?["text"] == .string("tab\tnew\nline 😀"))
    }

    @Test func metadataAloneIsRead() throws {
        let contents = Fixtures.smallStore()
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try format.write(contents, to: url)
        #expect(try format.readMetadata(from: url) == contents.metadata)
        #expect(try BinaryPlistStoreFactory().metadata(at: url) == contents.metadata)
        #expect(try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: Fixtures.storeTypes) == contents.metadata)
        let read = try format.read(from: url)
        #expect(sameContents(read, contents))
    }

    @Test func typeExtensionsAndHeader() throws {
        #expect(format.type == .binaryPlist)
        #expect(format.type.rawValue == "binary")
        #expect(format.fileExtensions == ["plist", "bplist"])
        #expect(format.recognizes(header: Data("bplist00\u{D0}".utf8)))
        #expect(!format.recognizes(header: Data("bplist01".utf8)))
        #expect(!format.recognizes(header: Data("<?xml version".utf8)))
        let directory = try TemporaryDirectory()
        let url = directory.file("store.data")
        try format.write(Fixtures.smallStore(), to: url)
        #expect(try Fixtures.storeTypes.type(of: url) == .binaryPlist)
        #expect(try Fixtures.storeTypes.type(of: directory.file("new.bplist")) == .binaryPlist)
        #expect(try Fixtures.storeTypes.type(of: directory.file("new.plist")) == .binaryPlist)
    }

    @Test func referenceSizesGrowWithTheObjectCount() throws {
        // 1-, 2- and 4-byte object references (a few hundred, then tens of thousands of objects).
        for count in [20, 300, 70_000] {
            let records = (1...count).map { Fixtures.record("Tag", Int64($0), ["name": .string("t\($0)")]) }
            let contents = Fixtures.contents(records)
            let bytes = try format.encode(contents)
            let refSize = Int(bytes[bytes.count - 32 + 7])
            #expect(refSize == (count == 20 ? 1 : count == 300 ? 2 : 4))
            #expect(try format.decode(bytes).records == contents.records)
        }
    }

    // MARK: - What the writer refuses

    @Test func writerRefusesValuesThatDoNotFitTheModel() throws {
        func refusal(_ record: StoreRecord) -> String? {
            do {
                _ = try format.encode(Fixtures.contents([record]))
                return nil
            } catch {
                #expect(error.code == .invalidData)
                return error.message
            }
        }
        #expect(refusal(Fixtures.record("Item", 1, ["small": .string("7")]))
            == "cannot write Item/p1.small: the model says int16, but the value is \"7\" (a string)")
        #expect(refusal(Fixtures.record("Item", 1, ["small": .integer(40_000)]))
            == "cannot write Item/p1.small: 40000 is outside the int16 range")
        #expect(refusal(Fixtures.record("Item", 1, ["colour": .string("red")]))
            == "cannot write Item/p1: 'Item' has no stored attribute 'colour'")
        #expect(refusal(Fixtures.record("Item", 1, ["scratch": .string("x")]))
            == "cannot write Item/p1: 'Item' has no stored attribute 'scratch'")
        #expect(refusal(Fixtures.record("Item", 1, toOne: ["owner": Fixtures.id("Tag", 1)]))
            == "cannot write Item/p1.owner: it refers to Tag/p1, which is not a 'Owner'")
        #expect(refusal(Fixtures.record("Item", 1, ["amount": .decimal(.nan)]))
            == "cannot write Item/p1.amount: the decimal NaN has no exact text form")
        #expect(refusal(Fixtures.record("Asset", 1, ["title": .string("x")]))
            == "cannot write 1 'Asset' records: the entity is abstract")
        var temporary = Fixtures.record("Item", 1)
        temporary.toOne["owner"] = try temporaryID("Owner")
        #expect(refusal(temporary)?.hasPrefix("cannot write Item/p1.owner: it refers to Owner/t") == true)
    }

    /// A temporary ID, as a context makes for an object it has not saved.
    func temporaryID(_ entity: String) throws -> ObjectID {
        let coordinator = PersistentStoreCoordinator(schema: Fixtures.schema)
        try coordinator.addStore(.inMemory())
        let context = ManagedObjectContext(coordinator: coordinator)
        return try context.insertObject(entityName: entity).objectID
    }
}
