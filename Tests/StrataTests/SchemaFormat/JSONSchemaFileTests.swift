import Foundation
import Strata
import Testing

/// `Schemas/strata-schema.json` (the JSON Schema editors use) and `Docs/SchemaFormat.md` must say
/// what the loader does; these tests read both and compare them with the loader's own rules.
@Suite("strata-schema.json and SchemaFormat.md")
struct JSONSchemaFileTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // SchemaFormat
        .deletingLastPathComponent() // StrataTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    static func jsonSchema() throws -> JSONValue {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Schemas/strata-schema.json"))
        return try JSONParser.parse(Array(data)).value
    }

    /// The value at `path` (object keys) in `json`.
    static func value(_ json: JSONValue, _ path: String...) throws -> JSONValue {
        var current = json
        for key in path {
            let members = try #require(current.objectMembers, "'\(key)': not inside an object")
            current = try #require(members.first { $0.key == key }?.value.value, "no '\(key)' in the JSON Schema")
        }
        return current
    }

    /// The strings of a JSON array (a null element, allowed in some enums, is left out).
    static func strings(_ json: JSONValue) throws -> [String] {
        let elements = try #require(json.arrayElements)
        return elements.compactMap(\.value.stringValue)
    }

    static func pattern(_ path: String...) throws -> NSRegularExpression {
        var json = try jsonSchema()
        for key in path { json = try value(json, key) }
        let pattern = try #require(try value(json, "pattern").stringValue)
        return try NSRegularExpression(pattern: pattern)
    }

    static func matches(_ expression: NSRegularExpression, _ string: String) -> Bool {
        expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }

    // MARK: - Reserved names

    @Test func reservedNamesInTheJSONSchemaAreTheLoaders() throws {
        let list = try Self.strings(Self.value(Self.jsonSchema(), "$defs", "declaredPropertyName", "not", "enum"))
        #expect(list.count == Set(list).count, "the list has duplicates")
        #expect(Set(list) == ReservedNames.properties,
                "missing: \(ReservedNames.properties.subtracting(list).sorted()), not reserved: \(Set(list).subtracting(ReservedNames.properties).sorted())")
    }

    @Test func reservedNamesInTheDocAreTheLoaders() throws {
        let doc = try String(contentsOf: Self.packageRoot.appendingPathComponent("Docs/SchemaFormat.md"), encoding: .utf8)
        let start = try #require(doc.range(of: "<!-- reserved-names -->"), "no <!-- reserved-names --> marker in SchemaFormat.md")
        let end = try #require(doc.range(of: "<!-- /reserved-names -->", range: start.upperBound..<doc.endIndex))
        let list = doc[start.upperBound..<end.lowerBound].split(separator: "`").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(list.count == Set(list).count, "the list has duplicates")
        #expect(Set(list) == ReservedNames.properties,
                "missing: \(ReservedNames.properties.subtracting(list).sorted()), not reserved: \(Set(list).subtracting(ReservedNames.properties).sorted())")
    }

    // MARK: - Enumerations

    @Test func attributeTypes() throws {
        let types = try Self.strings(Self.value(Self.jsonSchema(), "$defs", "attribute", "properties", "type", "enum"))
        #expect(types == AttributeType.allCases.map(\.rawValue))
    }

    @Test func deleteRules() throws {
        let rules = try Self.strings(Self.value(Self.jsonSchema(), "$defs", "relationship", "properties", "deleteRule", "enum"))
        #expect(rules == DeleteRule.allCases.map(\.rawValue))
    }

    @Test func indexOrders() throws {
        let index = try Self.value(Self.jsonSchema(), "$defs", "index", "properties", "elements", "items", "properties", "order")
        let orders = try Self.strings(Self.value(index, "enum"))
        #expect(orders == ["ascending", "descending"])
        #expect(orders.allSatisfy { IndexDescription.Order(rawValue: $0) != nil })
    }

    // MARK: - Patterns

    static let sampleNames = [
        "Todo", "todo", "TODO", "T", "t", "_todo", "1st", "by_date", "byDate2", "By-Date", "by date", "é", "Ünïcode",
        "a_", "Z9", "", " ", "x.y",
    ]

    @Test func namePatternsAreTheLoaders() throws {
        let entity = try Self.pattern("$defs", "entityName")
        let property = try Self.pattern("$defs", "propertyName")
        let index = try Self.pattern("$defs", "index", "properties", "name")
        let configuration = try Self.pattern("$defs", "configuration", "properties", "name")
        for name in Self.sampleNames {
            #expect(Self.matches(entity, name) == ReservedNames.isValidEntityName(name), "\(String(reflecting: name))")
            #expect(Self.matches(property, name) == ReservedNames.isValidPropertyName(name), "\(String(reflecting: name))")
            #expect(Self.matches(index, name) == ReservedNames.isValidIdentifier(name), "\(String(reflecting: name))")
            #expect(Self.matches(configuration, name) == ReservedNames.isValidIdentifier(name), "\(String(reflecting: name))")
        }
    }

    /// The date pattern accepts exactly what `ISO8601.date(from:)` reads, apart from days that do
    /// not exist in their month, which a regular expression does not check.
    @Test(arguments: [
        "2024-05-01T10:00:00.000Z", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00z", "2024-05-01t10:00:00Z",
        "2024-05-01 10:00:00Z", "2024-05-01T12:00:00+02:00", "2024-05-01T04:30:00-0530", "2024-05-01T10:00:00,5Z",
        "2024-05-01T10:00:00.123456789012Z", "2024-05-01", "+010000-01-01", "-001000-01-01T00:00:00.000Z",
        "2024-05-01T10:00:00", "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:60Z",
        "2024-13-01", "2024-00-01", "2024-05-00", "2024-05-32", "2024-05-01T10:00Z", "2024-05-01T10:00:00.Z",
        "2024-05-01T10:00:00+2:00", "2024-05-01T10:00:00+02", "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00+02:60",
        "+2024-05-01", "20240501", "2024-5-1", "2024-05-01T", "2024-05-01T10:00:00Z ", "garbage", "",
    ])
    func datePatternIsTheLoaders(_ text: String) throws {
        let pattern = try Self.pattern("$defs", "isoDate")
        #expect(Self.matches(pattern, text) == (ISO8601.date(from: text) != nil))
    }
}
