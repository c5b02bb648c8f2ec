import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// A stored value that does not decode to its attribute's type is an error naming the object
/// and the attribute, never another value (issue 10, W4: the SQLite reader turned these into
/// nil, 12, NaN and an out-of-range int16; the binary store refuses them, and so does XML).
@Suite struct XMLStoreStrictReadingTests {
    struct BadValue: CustomTestStringConvertible, Sendable {
        var attribute: String
        var type: String
        var valid: String
        var stored: String
        var expected: String
        var testDescription: String { "\(type) \(stored)" }
    }

    static let badValues: [BadValue] = [
        BadValue(attribute: "identifier", type: "uuid", valid: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", stored: "not-a-uuid",
                 expected: "expected a UUID like E621E1F8-C36C-495A-93FC-0C247A3E6E5F, found \"not-a-uuid\""),
        // Foundation's UUID(uuidString:) on Linux accepts some non-hex bytes.
        BadValue(attribute: "identifier", type: "uuid", valid: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", stored: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1FG",
                 expected: "found \"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1FG\""),
        BadValue(attribute: "amount", type: "decimal", valid: "12.5", stored: "12abc",
                 expected: "expected a decimal number like 12.50 with at most 38 significant digits, found \"12abc\""),
        BadValue(attribute: "real", type: "double", valid: "0.25", stored: "hello", expected: "found \"hello\""),
        BadValue(attribute: "real", type: "double", valid: "0.25", stored: "0x1p3", expected: "found \"0x1p3\""),
        BadValue(attribute: "small", type: "int16", valid: "7", stored: "100000",
                 expected: "expected a whole number from -32768 to 32767, found \"100000\""),
        BadValue(attribute: "medium", type: "int32", valid: "7", stored: "7.5", expected: "found \"7.5\""),
        BadValue(attribute: "flag", type: "bool", valid: "true", stored: "1", expected: "expected true or false, found \"1\""),
    ]

    /// A store with one Sample holding a valid value of every attribute the cases damage.
    static func sampleStoreText() throws -> String {
        let schema = try valuesSchema()
        let record = StoreRecord(objectID: objectID("Sample", 3), attributes: [
            "identifier": .uuid(UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!),
            "amount": .decimal(Decimal(string: "12.5")!), "real": .double(0.25),
            "small": .integer(7), "medium": .integer(7), "flag": .bool(true),
        ])
        return try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("values.xml")
            try XMLStoreFormat().write(contents(schema, [record]), to: url)
            return try String(contentsOf: url, encoding: .utf8)
        }
    }

    @Test(arguments: badValues)
    func aValueThatDoesNotDecodeIsAnError(_ bad: BadValue) throws {
        let valid = try Self.sampleStoreText()
        let original = "name=\"\(bad.attribute)\" type=\"\(bad.type)\">\(bad.valid)<"
        #expect(valid.components(separatedBy: original).count == 2, "the valid value occurs once")
        let damaged = valid.replacingOccurrences(of: original, with: "name=\"\(bad.attribute)\" type=\"\(bad.type)\">\(bad.stored)<")
        try withTemporaryDirectory { directory in
            let url = try writeFile(damaged, in: directory)
            let error = strataError { _ = try XMLStoreFormat().read(from: url) }
            #expect(error?.code == .corruptStore)
            #expect(error?.message.hasPrefix("<attribute name=\"\(bad.attribute)\" type=\"\(bad.type)\"> of <object type=\"Sample\" id=\"p3\">: ") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(bad.expected) == true, "\(error?.message ?? "")")
            #expect(error?.file == url.path)
        }
    }
}
