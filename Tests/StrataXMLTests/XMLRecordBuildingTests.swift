import Foundation
import Strata
import StrataTestKit
@testable import StrataXML
import Testing

/// The shortcuts the reader and writer take for large stores — values by position in the
/// entity's layout, names of other layouts found by the words of their strings, keys checked
/// while they ascend — give exactly the records of the long way, whatever attributes each object
/// has and however its values are laid out.
@Suite struct XMLRecordBuildingTests {
    func roundTrip(_ schema: Schema, _ records: [StoreRecord]) throws -> [String: [ObjectID: StoreRecord]] {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("records.xml")
            try XMLStoreFormat().write(contents(schema, records), to: url)
            return try XMLStoreFormat().read(from: url).records
        }
    }

    func expected(_ records: [StoreRecord]) -> [String: [ObjectID: StoreRecord]] {
        var result: [String: [ObjectID: StoreRecord]] = [:]
        for record in records { result[record.objectID.entityName, default: [:]][record.objectID] = record }
        return result
    }

    /// Objects leaving out attributes in every way, written from values built as dictionaries
    /// (a layout per record) and again from what was read (the entity's layout).
    @Test func objectsWithAnySetOfAttributes() throws {
        let schema = try valuesSchema()
        var generator = SeededGenerator(seed: 0x7E3)
        let all: [(String, () -> AttributeValue)] = [
            ("text", { .string("text \(Int.random(in: 0...9, using: &generator))") }),
            ("small", { .integer(Int64.random(in: -32768...32767, using: &generator)) }),
            ("medium", { .integer(Int64(Int32.random(in: .min ... .max, using: &generator))) }),
            ("large", { .integer(Int64.random(in: .min ... .max, using: &generator)) }),
            ("amount", { .decimal(Decimal(Int.random(in: -99_999...99_999, using: &generator)) / 100) }),
            ("real", { .double(Double(bitPattern: generator.next())) }),
            ("single", { .float(Float(Int.random(in: 0...1_000_000, using: &generator)) / 7) }),
            ("flag", { .bool(Bool.random(using: &generator)) }),
            ("moment", { .date(Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000_000, using: &generator)) / 1000)) }),
            ("blob", { .binary(Data((0..<Int.random(in: 0...20, using: &generator)).map { UInt8($0) })) }),
            ("identifier", { .uuid(UUID()) }),
            ("link", { .uri(URL(string: "https://example.com/\(Int.random(in: 0...99, using: &generator))")!) }),
        ]
        var records: [StoreRecord] = []
        for key in 1...600 {
            var attributes: AttributeValues = [:]
            let chosen = Int.random(in: 0..<(1 << all.count), using: &generator)
            for (index, (name, make)) in all.enumerated() where chosen & (1 << index) != 0 {
                attributes[name] = make()
            }
            records.append(StoreRecord(objectID: objectID("Sample", Int64(key)), attributes: attributes))
        }
        let back = try roundTrip(schema, records)
        #expect(back == expected(records))
        // Records read share one layout, the entity's (of the model in the file).
        let layout = back["Sample"]!.first!.value.attributes.layout
        #expect(layout == schema.entity(named: "Sample")!.attributeLayout)
        #expect(back["Sample"]!.values.allSatisfy { $0.attributes.layout === layout })
        let again = try roundTrip(schema, Array(back["Sample"]!.values))
        #expect(again == expected(records))
    }

    /// An entity of many attributes named with strings the writer cannot match word for word
    /// (longer than 15 bytes, built at run time).
    @Test func wideEntityWithLongNames() throws {
        let names = (0..<70).map { "attribute_number_\($0)" }
        let json = """
            { "name": "Wide", "entities": [ { "name": "Row", "attributes": [
            \(names.map { #"{ "name": "\#($0)", "type": "int64", "optional": true }"# }.joined(separator: ",\n"))
            ] } ] }
            """
        let schema = try Schema(data: Data(json.utf8), file: "Wide.json")
        var generator = SeededGenerator(seed: 0x31DE)
        var records: [StoreRecord] = []
        for key in 1...50 {
            var attributes: AttributeValues = [:]
            for index in 0..<70 where Bool.random(using: &generator) {
                // A new string each time, not the model's.
                attributes["attribute_number_" + String(index)] = .integer(Int64(key * 100 + index))
            }
            records.append(StoreRecord(objectID: objectID("Row", Int64(key)), attributes: attributes))
        }
        let back = try roundTrip(schema, records)
        #expect(back == expected(records))
    }

    /// Attributes listed out of model order (a file edited by hand) read back the same.
    @Test func attributesInAnyOrder() throws {
        let schema = try valuesSchema()
        let record = StoreRecord(objectID: objectID("Sample", 1), attributes: [
            "text": .string("first"), "medium": .integer(7), "real": .double(0.5), "identifier": .uuid(UUID()),
        ])
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("ordered.xml")
            try XMLStoreFormat().write(contents(schema, [record]), to: url)
            var lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            let attributeLines = lines.indices.filter { lines[$0].contains("<attribute ") }
            #expect(attributeLines.count == 4)
            let reversed = attributeLines.map { lines[$0] }.reversed()
            for (index, line) in zip(attributeLines, reversed) { lines[index] = line }
            try Data(lines.joined(separator: "\n").utf8).write(to: url)
            let back = try XMLStoreFormat().read(from: url)
            #expect(back.records["Sample"]?[record.objectID]?.attributes == record.attributes)
        }
    }

    @Test func keyIndexFindsKeysInAndOutOfOrder() {
        var index = XMLKeyIndex()
        for (object, key) in [-5, 1, 2, 10, 11].enumerated() {
            #expect(index.insert(Int64(key), object: object) == nil)
        }
        #expect(index.insert(10, object: 9) == 3, "a second object with key 10 while keys ascend")
        #expect(index.object(withKey: -5) == 0)
        #expect(index.object(withKey: 11) == 4)
        #expect(index.object(withKey: 3) == nil)
        #expect(index.object(withKey: 12) == nil)
        #expect(index.object(withKey: -6) == nil)
        // A key out of order: everything moves to a dictionary.
        #expect(index.insert(3, object: 5) == nil)
        #expect(index.insert(12, object: 6) == nil)
        #expect(index.insert(2, object: 7) == 2)
        #expect(index.object(withKey: 3) == 5)
        #expect(index.object(withKey: 12) == 6)
        #expect(index.object(withKey: 1) == 1)
        #expect(index.object(withKey: 4) == nil)

        // Dense keys (as a store hands them out) are found by their place, gaps by search.
        var dense = XMLKeyIndex()
        for key in 1...100 where key != 50 { #expect(dense.insert(Int64(key), object: key) == nil) }
        #expect(dense.object(withKey: 1) == 1)
        #expect(dense.object(withKey: 49) == 49)
        #expect(dense.object(withKey: 50) == nil)
        #expect(dense.object(withKey: 51) == 51)
        #expect(dense.object(withKey: 100) == 100)
        #expect(dense.object(withKey: 0) == nil)
        #expect(dense.object(withKey: 101) == nil)
        #expect(dense.object(withKey: .min) == nil)
        #expect(dense.object(withKey: .max) == nil)

        var empty = XMLKeyIndex()
        #expect(empty.object(withKey: 1) == nil)
        #expect(empty.insert(.min, object: 0) == nil)
        #expect(empty.insert(.max, object: 1) == nil)
        #expect(empty.object(withKey: .min) == 0)
        #expect(empty.object(withKey: .max) == 1)
    }

    @Test func nameSlotTableFindsEveryName() {
        let names = ["name", "detail", "a name longer than fifteen bytes", "é", ""]
        let table = NameSlotTable(names)
        for (slot, name) in names.enumerated() {
            #expect(table.slot(of: name) == slot)
            // Another string with the same characters, built at run time.
            #expect(table.slot(of: String(decoding: Array(name.utf8), as: UTF8.self)) == slot)
        }
        #expect(table.slot(of: "Name") == nil)
        #expect(table.slot(of: "e\u{301}") == 3, "canonically equivalent, as String's == says")
        #expect(table.slot(of: "unknown and longer than fifteen bytes") == nil)
    }
}
