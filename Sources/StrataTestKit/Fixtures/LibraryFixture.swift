public import Foundation
public import Strata

/// The library model and seeded data of every attribute type: what property-based tests of a
/// store compare with another store (or with the in-memory evaluator).
public enum LibraryFixture {
    /// Every attribute type, a hierarchy, to-one, one-to-many (ordered), many-to-many and
    /// to-many without inverse: the model of the property-based tests.
    public static let json = """
    {
      "name": "Library", "version": "1",
      "entities": [
        { "name": "Item",
          "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "count", "type": "int64", "optional": true },
            { "name": "small", "type": "int16", "optional": true },
            { "name": "ratio", "type": "double", "optional": true },
            { "name": "weight", "type": "float", "optional": true },
            { "name": "price", "type": "decimal", "optional": true },
            { "name": "flag", "type": "bool", "optional": true },
            { "name": "when", "type": "date", "optional": true },
            { "name": "blob", "type": "binary", "optional": true },
            { "name": "uid", "type": "uuid", "optional": true },
            { "name": "link", "type": "uri", "optional": true }
          ],
          "relationships": [
            { "name": "owner", "destination": "Owner", "inverse": "items", "optional": true },
            { "name": "tags", "destination": "Tag", "inverse": "items", "toMany": true },
            { "name": "next", "destination": "Item", "optional": true },
            { "name": "parts", "destination": "Part", "inverse": "item", "toMany": true, "ordered": true },
            { "name": "related", "destination": "Item", "toMany": true }
          ] },
        { "name": "SpecialItem", "parent": "Item",
          "attributes": [ { "name": "extra", "type": "string", "optional": true } ] },
        { "name": "Owner",
          "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "age", "type": "int32", "optional": true },
            { "name": "score", "type": "double", "optional": true }
          ],
          "relationships": [ { "name": "items", "destination": "Item", "inverse": "owner", "toMany": true } ] },
        { "name": "Tag",
          "attributes": [
            { "name": "label", "type": "string", "optional": true },
            { "name": "weight", "type": "double", "optional": true },
            { "name": "rank", "type": "int64", "optional": true }
          ],
          "relationships": [ { "name": "items", "destination": "Item", "inverse": "tags", "toMany": true } ] },
        { "name": "Part",
          "attributes": [
            { "name": "label", "type": "string", "optional": true },
            { "name": "size", "type": "int64", "optional": true },
            { "name": "cost", "type": "decimal", "optional": true }
          ],
          "relationships": [ { "name": "item", "destination": "Item", "inverse": "parts", "optional": true } ] }
      ]
    }
    """


    /// The library model, loaded from ``json``.
    public static func schema() throws -> Schema {
        try Schema(data: Data(json.utf8), file: "Library.json")
    }
}

/// Values chosen to hit every edge the SQL must get right: case, diacritics, canonical
/// equivalence, wildcards, int64 extremes, NaN, ±infinity, -0.0, long decimals, empty data.
public enum ValuePool {
    /// Strings: case, diacritics, canonical equivalence, wildcard characters, digits, text not in NFC.
    public static let strings = [
        "", "a", "A", "apple", "Apple", "ápple", "e\u{301}", "é", "É", "straße", "STRASSE", "b*c", "b?c", "abc", "ab",
        "x\\y", "100", "file2", "file10", "Ö", "o", "naïve", "naive", " ", "zeta", "Zeta", "ÅB", "A\u{30A}b",
        // Not NFC (stored with an "_x_nfc" shadow value): a singleton, reordered marks, Hangul
        // jamo, a composition-excluded letter, marks Swift's `<` misorders.
        "\u{212B}B", "o\u{308}", "d\u{307}\u{323}", "\u{1E0D}\u{307}", "\u{1100}\u{1161}", "\u{AC00}", "\u{F73}", "\u{F71}",
        "\u{369}\u{31B}", "\u{369}",
    ]
    /// int64 values, extremes included.
    public static let integers: [Int64] = [.min, -1, 0, 1, 2, 3, 5, 42, 100, .max, 9_007_199_254_740_993]
    /// int16 values, extremes included.
    public static let smallIntegers: [Int64] = [-32768, -1, 0, 1, 2, 3, 42, 100, 32767]
    /// int32 values: a store refuses to read an int32 column holding anything wider.
    public static let mediumIntegers: [Int64] = [Int64(Int32.min), -1, 0, 1, 2, 3, 5, 42, 100, Int64(Int32.max), 65_536]
    /// Doubles: NaN, ±infinity, -0.0, the edges of exact integers.
    public static let doubles: [Double] = [.nan, .infinity, -.infinity, -0.0, 0.0, 1.0, 1.5, -2.25, 3.0, 42.0, 1e300, 0.1, 9_007_199_254_740_992.0, 2.5]
    /// Floats: NaN, infinity, -0.0.
    public static let floats: [Float] = [.nan, .infinity, -0.0, 0.0, 1.0, 1.5, 0.25, 42.0, 3.0]
    /// Decimals: long, negative zero, trailing zeros, exponents.
    public static let decimals: [Decimal] = [
        "0", "1", "1.5", "-2.25", "42", "123456789012345678.901234567890", "0.1", "3", "100",
        "1.0", "1.00", "-0", "-1.5", "-1.25", "-1.2", "-1.19", "1E+20", "-0.001", "0.0010", "-100",
    ].map { Decimal(string: $0)! }
    /// Dates before and after the reference date, with fractions of a second.
    public static let dates: [Date] = [
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 736_000_000.123),
        Date(timeIntervalSinceReferenceDate: -1_000_000.5), Date(timeIntervalSince1970: 1_714_557_600.250),
    ]
    /// Data, empty included.
    public static let binaries: [Data] = [Data(), Data([0]), Data([1, 2]), Data([0xFF]), Data([1])]
    /// UUIDs.
    public static let uuids: [UUID] = [
        UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
        UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000000")!,
    ]
    /// URLs, percent-encoded included.
    public static let urls: [URL] = ["https://example.com/a", "https://example.com/b", "file:///tmp/x", "https://example.com/%C3%A9"].map { URL(string: $0)! }
    /// `LIKE` patterns: wildcards, escapes, diacritics.
    public static let likePatterns = ["a*", "*e", "?pple", "*", "b\\*c", "a?c*", "*a*", "É*", "e\u{301}"]
    /// `MATCHES` patterns.
    public static let regexPatterns = ["a.*", ".*e", "[a-z]+", "A.C", "(?i)apple", "[0-9]+", ".+"]

    /// A value of `type` drawn from the pools (binary data for a transformable).
    public static func value(for type: AttributeType, _ random: inout SeededGenerator) -> AttributeValue {
        switch type {
        case .string: .string(random.pick(strings))
        case .int16: .integer(random.pick(smallIntegers))
        case .int32: .integer(random.pick(mediumIntegers))
        case .int64: .integer(random.pick(integers))
        case .double: .double(random.pick(doubles))
        case .float: .float(random.pick(floats))
        case .decimal: .decimal(random.pick(decimals))
        case .bool: .bool(random.chance(0.5))
        case .date: .date(random.pick(dates))
        case .binary, .transformable: .binary(random.pick(binaries))
        case .uuid: .uuid(random.pick(uuids))
        case .uri: .uri(random.pick(urls))
        }
    }
}

/// A seeded object graph of the `Library` model, as records with both sides of every
/// relationship (what a context would save).
public struct LibraryGraph {
    /// The `Item` and `SpecialItem` records.
    public var items: [StoreRecord] = []
    /// The `Owner` records.
    public var owners: [StoreRecord] = []
    /// The `Tag` records.
    public var tags: [StoreRecord] = []
    /// The `Part` records.
    public var parts: [StoreRecord] = []

    /// Every record of the graph.
    public var all: [StoreRecord] { items + owners + tags + parts }

    /// A graph of `schema` (``LibraryFixture/schema()`` or a version of it) for the store
    /// `storeIdentifier`, drawn from `seed`: 8 owners, 10 tags, `items` items (some special),
    /// 30 parts.
    public init(schema: Schema, storeIdentifier: String, seed: UInt64, items itemCount: Int = 60) {
        var random = SeededGenerator(seed: seed)
        func id(_ entity: String, _ key: Int) -> ObjectID {
            ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: Int64(key))
        }
        func attributes(_ entity: String) -> [String: AttributeValue] {
            var values: [String: AttributeValue] = [:]
            for attribute in schema.entity(named: entity)!.attributes where !random.chance(0.2) {
                values[attribute.name] = ValuePool.value(for: attribute.type, &random)
            }
            return values
        }
        owners = (1...8).map { StoreRecord(objectID: id("Owner", $0), attributes: AttributeValues(attributes("Owner"))) }
        tags = (1...10).map { StoreRecord(objectID: id("Tag", $0), attributes: AttributeValues(attributes("Tag"))) }
        items = (1...itemCount).map { key in
            let entity = random.chance(0.3) ? "SpecialItem" : "Item"
            return StoreRecord(objectID: id(entity, key), attributes: AttributeValues(attributes(entity)))
        }
        parts = (1...30).map { StoreRecord(objectID: id("Part", $0), attributes: AttributeValues(attributes("Part"))) }
        for index in items.indices {
            if !random.chance(0.2) {
                let owner = Int.random(in: 0..<owners.count, using: &random)
                items[index].toOne["owner"] = owners[owner].objectID
                owners[owner].toMany["items", default: []].append(items[index].objectID)
            }
            if random.chance(0.6) {
                items[index].toOne["next"] = random.pick(items).objectID
            }
            let tagCount = Int.random(in: 0...3, using: &random)
            var chosen = Set<Int>()
            for _ in 0..<tagCount { chosen.insert(Int.random(in: 0..<tags.count, using: &random)) }
            for tag in chosen.sorted() {
                items[index].toMany["tags", default: []].append(tags[tag].objectID)
                tags[tag].toMany["items", default: []].append(items[index].objectID)
            }
            var related = Set<Int>()
            for _ in 0..<Int.random(in: 0...2, using: &random) { related.insert(Int.random(in: 0..<items.count, using: &random)) }
            if !related.isEmpty { items[index].toMany["related"] = related.sorted().map { items[$0].objectID } }
        }
        for index in parts.indices where !random.chance(0.25) {
            let item = Int.random(in: 0..<items.count, using: &random)
            parts[index].toOne["item"] = items[item].objectID
            items[item].toMany["parts", default: []].append(parts[index].objectID)
        }
        for index in items.indices {
            if var members = items[index].toMany["parts"] {
                members.shuffle(using: &random)
                items[index].toMany["parts"] = members
            }
        }
    }
}
