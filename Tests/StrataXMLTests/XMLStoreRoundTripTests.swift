import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// Every value of every type, written and read back exactly.
@Suite struct XMLStoreRoundTripTests {
    /// One attribute value and the exact text the store writes for it.
    struct Case: CustomTestStringConvertible, Sendable {
        var attribute: String
        var value: AttributeValue
        /// The element's content, or nil to check only the round trip.
        var text: String?
        var testDescription: String { "\(attribute) = \(value)" }
    }

    static let edgeCases: [Case] = [
        Case(attribute: "text", value: .string(""), text: ""),
        Case(attribute: "text", value: .string("  leading and trailing  "), text: "  leading and trailing  "),
        Case(attribute: "text", value: .string("tab\there\nnewline\r\ncrlf\rcr"), text: "tab\there\nnewline&#13;\ncrlf&#13;cr"),
        Case(attribute: "text", value: .string("<&>\"' ]]> &amp;"), text: "&lt;&amp;&gt;\"' ]]&gt; &amp;amp;"),
        Case(attribute: "text", value: .string("   "), text: "   "),
        Case(attribute: "text", value: .string("\n"), text: "\n"),
        Case(attribute: "text", value: .string("emoji 🥚 👨‍👩‍👧 é e\u{301} 漢字"), text: "emoji 🥚 👨‍👩‍👧 é e\u{301} 漢字"),
        Case(attribute: "text", value: .string("DEL \u{7F} NEL \u{85} LS \u{2028}"), text: "DEL \u{7F} NEL \u{85} LS \u{2028}"),
        // Characters XML 1.0 cannot carry: base64 of the UTF-8, with encoding="base64".
        Case(attribute: "text", value: .string("bell \u{07}"), text: "YmVsbCAH"),
        Case(attribute: "text", value: .string("\u{0}"), text: "AA=="),
        Case(attribute: "text", value: .string("\u{01}\u{0B}\u{0C}\u{1F}"), text: "AQsMHw=="),
        Case(attribute: "text", value: .string("\u{FFFE}\u{FFFF}"), text: "77++77+/"),
        Case(attribute: "text", value: .string(String(repeating: "long ", count: 50_000)), text: nil),
        Case(attribute: "small", value: .integer(Int64(Int16.min)), text: "-32768"),
        Case(attribute: "small", value: .integer(Int64(Int16.max)), text: "32767"),
        Case(attribute: "medium", value: .integer(Int64(Int32.min)), text: "-2147483648"),
        Case(attribute: "medium", value: .integer(Int64(Int32.max)), text: "2147483647"),
        Case(attribute: "large", value: .integer(Int64.min), text: "-9223372036854775808"),
        Case(attribute: "large", value: .integer(Int64.max), text: "9223372036854775807"),
        Case(attribute: "large", value: .integer(9_007_199_254_740_993), text: "9007199254740993"),
        Case(attribute: "large", value: .integer(0), text: "0"),
        Case(attribute: "amount", value: .decimal(Decimal(string: "123456789012345678901234567890.12345678")!), text: "123456789012345678901234567890.12345678"),
        Case(attribute: "amount", value: .decimal(Decimal(string: "-99999999999999999999999999999999999999")!), text: "-99999999999999999999999999999999999999"),
        Case(attribute: "amount", value: .decimal(Decimal(string: "-0.00000000000000000005")!), text: "-0.00000000000000000005"),
        Case(attribute: "amount", value: .decimal(Decimal.greatestFiniteMagnitude), text: nil),
        Case(attribute: "amount", value: .decimal(Decimal.leastNonzeroMagnitude), text: nil),
        Case(attribute: "amount", value: .decimal(0), text: "0"),
        Case(attribute: "real", value: .double(0.1), text: "0.1"),
        Case(attribute: "real", value: .double(0.1 + 0.2), text: "0.30000000000000004"),
        Case(attribute: "real", value: .double(-0.0), text: "-0.0"),
        Case(attribute: "real", value: .double(.nan), text: "NaN"),
        Case(attribute: "real", value: .double(.infinity), text: "Infinity"),
        Case(attribute: "real", value: .double(-.infinity), text: "-Infinity"),
        Case(attribute: "real", value: .double(.leastNonzeroMagnitude), text: "5e-324"),
        Case(attribute: "real", value: .double(.greatestFiniteMagnitude), text: "1.7976931348623157e+308"),
        Case(attribute: "real", value: .double(.pi), text: "3.141592653589793"),
        Case(attribute: "real", value: .double(1e-5), text: "1e-05"),
        Case(attribute: "single", value: .float(0.1), text: "0.1"),
        Case(attribute: "single", value: .float(.nan), text: "NaN"),
        Case(attribute: "single", value: .float(-.infinity), text: "-Infinity"),
        Case(attribute: "single", value: .float(.leastNonzeroMagnitude), text: "1e-45"),
        Case(attribute: "single", value: .float(.greatestFiniteMagnitude), text: "3.4028235e+38"),
        Case(attribute: "single", value: .float(16_777_216), text: "16777216.0"),
        Case(attribute: "single", value: .float(1e-10), text: "1e-10"),
        Case(attribute: "flag", value: .bool(true), text: "true"),
        Case(attribute: "flag", value: .bool(false), text: "false"),
        Case(attribute: "moment", value: .date(Date(timeIntervalSince1970: 0)), text: "1970-01-01T00:00:00.000Z"),
        Case(attribute: "moment", value: .date(Date(timeIntervalSince1970: 1_714_557_600.123)), text: "2024-05-01T10:00:00.123Z"),
        Case(attribute: "moment", value: .date(Date(timeIntervalSince1970: -1_000_000_000.5)), text: "1938-04-24T22:13:19.500Z"),
        // Not a whole number of milliseconds: seconds since 2001-01-01, exact.
        Case(attribute: "moment", value: .date(Date(timeIntervalSinceReferenceDate: 737_049_600.123456)), text: "737049600.123456"),
        Case(attribute: "moment", value: .date(Date(timeIntervalSinceReferenceDate: 1e-9)), text: "1e-09"),
        Case(attribute: "moment", value: .date(.distantPast), text: nil),
        Case(attribute: "moment", value: .date(.distantFuture), text: nil),
        Case(attribute: "blob", value: .binary(Data()), text: ""),
        Case(attribute: "blob", value: .binary(Data([0])), text: "AA=="),
        Case(attribute: "blob", value: .binary(Data(0...255)), text: Data(0...255).base64EncodedString()),
        Case(attribute: "identifier", value: .uuid(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!), text: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        Case(attribute: "link", value: .uri(URL(string: "https://example.com/a%20b?q=1&r=<2>#frag")!), text: "https://example.com/a%20b?q=1&amp;r=%3C2%3E#frag"),
        Case(attribute: "link", value: .uri(URL(fileURLWithPath: "/tmp/with space/ü.txt")), text: "file:///tmp/with%20space/%C3%BC.txt"),
        Case(attribute: "link", value: .uri(URL(string: "urn:isbn:0451450523")!), text: "urn:isbn:0451450523"),
        Case(attribute: "payload", value: .binary(Data("{\"a\":1}".utf8)), text: "eyJhIjoxfQ=="),
        Case(attribute: "payload", value: .binary(Data()), text: ""),
    ]

    @Test(arguments: edgeCases)
    func edgeValue(_ edge: Case) throws {
        let schema = try valuesSchema()
        let id = objectID("Sample", 1)
        let record = StoreRecord(objectID: id, attributes: [edge.attribute: edge.value])
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("values.xml")
            try XMLStoreFormat().write(contents(schema, [record]), to: url)
            let back = try XMLStoreFormat().read(from: url)
            #expect(back.records["Sample"]?[id]?.attributes == [edge.attribute: edge.value])
            if let text = edge.text {
                let file = try String(contentsOf: url, encoding: .utf8)
                let type = schema.entity(named: "Sample")!.attribute(named: edge.attribute)!.type.rawValue
                let encoding = edge.value.isStringNeedingBase64 ? " encoding=\"base64\"" : ""
                #expect(file.contains("<attribute name=\"\(edge.attribute)\" type=\"\(type)\"\(encoding)>\(text)</attribute>\n"))
            }
        }
    }

    /// Text far over libxml2's 10 MB limit for one text node (XML_MAX_TEXT_LENGTH) still loads:
    /// the SAX reader takes text in pieces and builds no tree.
    @Test func largeValuesLoad() throws {
        let schema = try valuesSchema()
        var generator = SeededGenerator(seed: 4)
        let megabyte = Data((0..<1 << 20).map { _ in UInt8.random(in: 0 ... .max, using: &generator) })
        var blob = Data()
        for _ in 0..<12 { blob.append(megabyte) }
        let text = String(repeating: "a line of text <&>\n", count: 600_000)
        let record = StoreRecord(objectID: objectID("Sample", 1), attributes: ["blob": .binary(blob), "text": .string(text)])
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("large.xml")
            try XMLStoreFormat().write(contents(schema, [record]), to: url)
            let back = try XMLStoreFormat().read(from: url)
            #expect(back.records["Sample"]?[record.objectID]?.attributes["blob"] == .binary(blob))
            #expect(back.records["Sample"]?[record.objectID]?.attributes["text"] == .string(text))
        }
    }

    @Test func nilAndEmptyAreDistinct() throws {
        let schema = try valuesSchema()
        let empty = StoreRecord(objectID: objectID("Sample", 1), attributes: ["blob": .binary(Data()), "text": .string("")])
        let absent = StoreRecord(objectID: objectID("Sample", 2), attributes: [:])
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("values.xml")
            try XMLStoreFormat().write(contents(schema, [empty, absent]), to: url)
            let back = try XMLStoreFormat().read(from: url).records["Sample"]!
            #expect(back[empty.objectID]!.attributes == ["blob": .binary(Data()), "text": .string("")])
            #expect(back[absent.objectID]!.attributes == [:])
            let file = try String(contentsOf: url, encoding: .utf8)
            #expect(file.contains("""
                  <object type="Sample" id="p1">
                    <attribute name="text" type="string"></attribute>
                    <attribute name="blob" type="binary"></attribute>
                """))
            #expect(file.contains("""
                  <object type="Sample" id="p2">
                    <relationship name="owner" type="0/1" destination="Owner"></relationship>
                """))
        }
    }

    @Test func relationshipsKeepMembersOrderAndEntities() throws {
        let schema = try valuesSchema()
        let sample = objectID("Sample", 1)
        let parts = [objectID("Nut", 7), objectID("Bolt", 3), objectID("Nut", 5)]
        let labels = [objectID("Label", 9), objectID("Label", 2)]
        let owner = objectID("Owner", 4)
        var records = [
            StoreRecord(objectID: sample, toOne: ["owner": owner], toMany: ["parts": parts, "labels": labels]),
            StoreRecord(objectID: owner, attributes: ["name": .string("o")], toMany: ["samples": [sample]]),
        ]
        for (index, part) in parts.enumerated() {
            let attributes: AttributeValues = part.entityName == "Nut"
                ? ["title": .string("n\(index)"), "thread": .double(1.5)]
                : ["title": .string("b\(index)"), "size": .integer(8)]
            records.append(StoreRecord(objectID: part, attributes: attributes, toOne: ["sample": sample]))
        }
        for label in labels {
            records.append(StoreRecord(objectID: label, attributes: ["name": .string("l")], toMany: ["samples": [sample]]))
        }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("values.xml")
            try XMLStoreFormat().write(contents(schema, records), to: url)
            let back = try XMLStoreFormat().read(from: url)
            let read = back.records["Sample"]![sample]!
            // Ordered: as stored, subentities included. Unordered: by primary key.
            #expect(read.toMany["parts"] == parts)
            #expect(read.toMany["labels"] == [objectID("Label", 2), objectID("Label", 9)])
            #expect(read.toOne == ["owner": owner])
            #expect(back.records["Nut"]?.count == 2)
            #expect(back.records["Bolt"]?[objectID("Bolt", 3)]?.toOne == ["sample": sample])
            let file = try String(contentsOf: url, encoding: .utf8)
            #expect(file.contains(#"<relationship name="parts" type="0/0" destination="Part" idrefs="p7 p3 p5"></relationship>"#))
            #expect(file.contains(#"<relationship name="labels" type="0/0" destination="Label" idrefs="p2 p9"></relationship>"#))
            #expect(file.contains(#"<relationship name="sample" type="1/1" destination="Sample" idrefs="p1"></relationship>"#))
        }
    }

    /// Deleting the destination of a relationship without an inverse clears the reference (the
    /// save looks for it): the file never names an object it does not hold. (A reference to an
    /// object no longer in the store, `Entity.p<key>`, round-trips: see the golden files.)
    @Test func deletingTheDestinationOfAOneWayReferenceClearsIt() throws {
        let schema = try valuesSchema()
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("values.xml")
            let coordinator = xmlCoordinator(schema)
            try coordinator.addStore(StoreDescription(type: .xml, url: url))
            let context = ManagedObjectContext(coordinator: coordinator)
            let first = try context.insertObject(entityName: "Sample")
            let second = try context.insertObject(entityName: "Sample")
            first.setObject(second, forKey: "next")
            try context.save()
            context.delete(second)
            try context.save()
            let file = try String(contentsOf: url, encoding: .utf8)
            #expect(file.contains("<relationship name=\"next\" type=\"0/1\" destination=\"Sample\"></relationship>"))
            #expect(!file.contains("Sample.p"))
            let back = try XMLStoreFormat().read(from: url)
            #expect(back.records["Sample"]?.count == 1)
            #expect(back.records["Sample"]?[first.objectID]?.toOne["next"] == nil)
        }
    }

    /// A store built through contexts reads back as the same records, with the same metadata,
    /// and writing what was read gives the same bytes.
    @Test func storeBuiltThroughContextsReadsBackExactly() throws {
        let schema = try valuesSchema()
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("values.xml")
            let coordinator = xmlCoordinator(schema)
            try coordinator.addStore(StoreDescription(type: .xml, url: url))
            try coordinator.setMetadata("tab\tand\u{01}control", forKey: "note <&>", in: coordinator.stores[0])
            let context = ManagedObjectContext(coordinator: coordinator)
            let owner = try context.insertObject(entityName: "Owner")
            owner["name"] = "Ada"
            let label = try context.insertObject(entityName: "Label")
            label["name"] = "red"
            for index in 0..<5 {
                let sample = try context.insertObject(entityName: "Sample")
                sample["text"] = "sample \(index) <&> \u{02}"
                sample["small"] = Int16(-index)
                sample["medium"] = Int32(index * 1000)
                sample["large"] = Int64.max - Int64(index)
                sample["amount"] = Decimal(string: "1234567890.0987654321")! * Decimal(index)
                sample["real"] = index == 0 ? Double.nan : 1.0 / Double(index)
                sample["single"] = Float(index) / 3
                sample["flag"] = index % 2 == 0
                sample["moment"] = Date(timeIntervalSinceReferenceDate: 700_000_000.000_25 * Double(index))
                sample["blob"] = Data(repeating: UInt8(index), count: index)
                sample["identifier"] = UUID()
                sample["link"] = URL(string: "https://example.com/\(index)?a=1&b=2")!
                sample["payload"] = ["a", "b\(index)"]
                sample["scratch"] = "transient, never stored"
                sample.setObject(owner, forKey: "owner")
                sample.addObject(label, forKey: "labels")
                let bolt = try context.insertObject(entityName: "Bolt")
                bolt["title"] = "bolt \(index)"
                bolt["size"] = Int32(index)
                let nut = try context.insertObject(entityName: "Nut")
                nut["title"] = "nut \(index)"
                nut["thread"] = 0.5
                sample.addObject(nut, forKey: "parts")
                sample.addObject(bolt, forKey: "parts")
            }
            try context.save()
            let stored = (coordinator.stores[0] as! AtomicStore).snapshot
            let bytes = try Data(contentsOf: url)

            let back = try XMLStoreFormat().read(from: url)
            #expect(back.metadata == stored.metadata)
            #expect(back.metadata.custom == ["note <&>": "tab\tand\u{01}control"])
            #expect(back.keySequences == stored.keySequences)
            #expect(canonical(back.records, schema) == canonical(stored.records, schema))
            #expect(back.recordCount == 17)
            #expect(try XMLStoreFormat().readMetadata(from: url) == stored.metadata)

            // A second stack on the same file sees the same objects.
            let reopened = xmlCoordinator(schema)
            try reopened.addStore(StoreDescription(type: .xml, url: url))
            let reader = ManagedObjectContext(coordinator: reopened)
            let samples = try reader.fetch(FetchRequest(entityName: "Sample", sortDescriptors: [FetchSortDescriptor("medium")]))
            #expect(samples.count == 5)
            #expect(samples.map { $0["payload"] as? [String] } == (0..<5).map { ["a", "b\($0)"] })
            #expect(samples.allSatisfy { $0["scratch"] == nil })

            // Byte-stable: writing what was read gives the same file.
            let again = directory.appendingPathComponent("again.xml")
            try XMLStoreFormat().write(back, to: again)
            #expect(try Data(contentsOf: again) == bytes)
        }
    }

    /// Seeded random records of every type: read back equal, and written twice the same.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomRecords(seed: UInt64) throws {
        let schema = try valuesSchema()
        var generator = SeededGenerator(seed: seed)
        let sample = schema.entity(named: "Sample")!
        var records: [StoreRecord] = []
        for key in 1...300 {
            var attributes: AttributeValues = [:]
            for attribute in sample.attributes where !attribute.isTransient && Bool.random(using: &generator) {
                attributes[attribute.name] = Self.randomValue(attribute.type, using: &generator)
            }
            records.append(StoreRecord(objectID: objectID("Sample", Int64(key)), attributes: attributes))
        }
        try withTemporaryDirectory { directory in
            let first = directory.appendingPathComponent("first.xml")
            let second = directory.appendingPathComponent("second.xml")
            let original = contents(schema, records, keySequences: ["Sample": 300])
            try XMLStoreFormat().write(original, to: first)
            let back = try XMLStoreFormat().read(from: first)
            #expect(back.records == original.records)
            #expect(back.keySequences == ["Sample": 300])
            try XMLStoreFormat().write(back, to: second)
            #expect(try Data(contentsOf: first) == Data(contentsOf: second))
        }
    }

    static func randomValue(_ type: AttributeType, using generator: inout SeededGenerator) -> AttributeValue {
        switch type {
        case .string:
            let scalars: [Unicode.Scalar] = ["a", " ", "\t", "\n", "\r", "<", "&", ">", "\"", "'", "é", "🥚", "\u{01}", "\u{FFFF}", "]"]
            let count = Int.random(in: 0...12, using: &generator)
            var string = ""
            for _ in 0..<count { string.unicodeScalars.append(scalars.randomElement(using: &generator)!) }
            return .string(string)
        case .int16: return .integer(Int64(Int16.random(in: .min ... .max, using: &generator)))
        case .int32: return .integer(Int64(Int32.random(in: .min ... .max, using: &generator)))
        case .int64: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case .decimal:
            return .decimal(Decimal(sign: Bool.random(using: &generator) ? .minus : .plus,
                                    exponent: Int.random(in: -30...30, using: &generator),
                                    significand: Decimal(UInt64.random(in: 0 ... .max, using: &generator))))
        case .double: return .double(Double(bitPattern: generator.next()))
        case .float: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
        case .bool: return .bool(Bool.random(using: &generator))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &generator)))
        case .binary, .transformable:
            return .binary(Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0 ... .max, using: &generator) }))
        case .uuid:
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { raw in for index in raw.indices { raw[index] = UInt8.random(in: 0 ... .max, using: &generator) } }
            return .uuid(UUID(uuid: bytes))
        case .uri: return .uri(URL(string: "https://example.com/\(UInt32.random(in: 0 ... .max, using: &generator))?a=1&b=%20")!)
        }
    }
}

extension AttributeValue {
    /// True for a string holding a character XML 1.0 cannot carry.
    var isStringNeedingBase64: Bool {
        guard case .string(let string) = self else { return false }
        return string.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE || scalar.value == 0xFFFF
        }
    }
}
