import Strata
import StrataTestKit
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    static let sample: JSONValue = .object([
        "name": .string("Todo"),
        "count": .number("9007199254740993"),
        "price": .number("1.50"),
        "tags": .array([.string("a"), .null, .bool(true), .bool(false)]),
        "empty": .object([JSONMember]()),
        "none": .array([JSONNode]()),
        "nested": .object(["z": .number("-0"), "a": .array([.array([JSONNode]())])]),
    ])

    @Test func prettyOutputKeepsMemberOrder() {
        let expected = """
            {
              "name": "Todo",
              "count": 9007199254740993,
              "price": 1.50,
              "tags": [
                "a",
                null,
                true,
                false
              ],
              "empty": {},
              "none": [],
              "nested": {
                "z": -0,
                "a": [
                  []
                ]
              }
            }

            """
        #expect(JSONWriter().string(from: Self.sample) == expected)
    }

    @Test func compactOutputHasNoWhiteSpaceAndNoFinalNewline() {
        let expected = #"{"name":"Todo","count":9007199254740993,"price":1.50,"tags":["a",null,true,false],"empty":{},"none":[],"nested":{"z":-0,"a":[[]]}}"#
        #expect(JSONWriter(pretty: false).string(from: Self.sample) == expected)
    }

    @Test func sortKeysSortsEveryLevel() {
        let expected = #"{"count":9007199254740993,"empty":{},"name":"Todo","nested":{"a":[[]],"z":-0},"none":[],"price":1.50,"tags":["a",null,true,false]}"#
        #expect(JSONWriter(sortKeys: true, pretty: false).string(from: Self.sample) == expected)
    }

    @Test func sortKeysUsesCodePointOrder() {
        // Code-point order, not a locale's: upper case before lower case, a prefix before its
        // extensions, 'é' (U+00E9) after every ASCII letter, and U+1F600 after U+FFFD. A
        // precomposed 'é' (U+00E9) sorts after 'e' + U+0301 even though Swift's String
        // comparison calls the two equal.
        let keys = ["b", "é", "😀", "\u{FFFD}", "aa", "a", "B", "_", "Z", "1", "", "e\u{301}x"]
        let value = JSONValue.object(keys.map { JSONMember(key: $0, value: JSONNode(.null)) })
        let text = JSONWriter(sortKeys: true, pretty: false).string(from: value)
        let expectedOrder = ["", "1", "B", "Z", "_", "a", "aa", "b", "e\u{301}x", "é", "\u{FFFD}", "😀"]
        let expected = "{" + expectedOrder.map { "\"\($0)\":null" }.joined(separator: ",") + "}"
        #expect(Array(text.unicodeScalars) == Array(expected.unicodeScalars))
    }

    @Test func scalarsAtTheTopLevel() {
        let writer = JSONWriter()
        #expect(writer.string(from: .null) == "null\n")
        #expect(writer.string(from: .bool(true)) == "true\n")
        #expect(writer.string(from: .number("1e-7")) == "1e-7\n")
        #expect(writer.string(from: .string("x")) == "\"x\"\n")
        #expect(writer.string(from: .array([JSONNode]())) == "[]\n")
        #expect(writer.string(from: .object([JSONMember]())) == "{}\n")
        #expect(JSONWriter(pretty: false).string(from: .number("-0")) == "-0")
    }

    @Test(arguments: [
        ("\"", #""\"""#),
        ("\\", #""\\""#),
        ("a\"b\\c", #""a\"b\\c""#),
        ("\n", #""\n""#),
        ("\r", #""\r""#),
        ("\t", #""\t""#),
        ("\u{08}", #""\b""#),
        ("\u{0C}", #""\f""#),
        ("\u{0}", #""\u0000""#),
        ("\u{1}", #""\u0001""#),
        ("\u{1B}", #""\u001B""#),
        ("\u{1F}", #""\u001F""#),
        ("\r\n", #""\r\n""#),
        // Not escaped: space, '/', DEL, non-ASCII (kept as UTF-8), line separators.
        (" ", #"" ""#),
        ("/", #""/""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é", "\"é\""),
        ("e\u{301}", "\"e\u{301}\""),
        ("😀", "\"😀\""),
        ("日本語", "\"日本語\""),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("\u{FEFF}", "\"\u{FEFF}\""),
    ])
    func stringEscaping(_ string: String, _ expected: String) {
        let text = JSONWriter(pretty: false).string(from: .string(string))
        #expect(Array(text.unicodeScalars) == Array(expected.unicodeScalars))
        var output = ""
        JSONWriter.writeString(string, into: &output)
        #expect(output == text)
    }

    @Test func keysAreEscapedLikeStrings() {
        let value = JSONValue.object(["a\"b": .null, "tab\there": .null, "ü": .null])
        #expect(JSONWriter(pretty: false).string(from: value) == #"{"a\"b":null,"tab\there":null,"ü":null}"#)
    }

    // MARK: - Round trips

    /// parse(write(x)) == x for a few hundred generated trees, in every writer mode, and the text
    /// written again from the parsed tree is byte-identical (String equality alone would hide a
    /// change of normalisation).
    @Test(arguments: [0x5354_5241_5441 as UInt64, 42, 2024])
    func roundTripOfGeneratedValues(_ seed: UInt64) throws {
        var generator = JSONValueGenerator(seed: seed)
        for iteration in 0..<150 {
            let value = generator.value(depth: 0)
            for writer in [JSONWriter(), JSONWriter(pretty: false)] {
                let text = writer.string(from: value)
                let parsed = try JSONParser.parse(Array(text.utf8)).value.withoutLocations
                #expect(parsed == value, "seed \(seed), case \(iteration): \(text)")
                #expect(Array(writer.string(from: parsed).utf8) == Array(text.utf8))
            }
            let sorted = JSONWriter(sortKeys: true)
            let sortedText = sorted.string(from: value)
            let parsed = try JSONParser.parse(Array(sortedText.utf8)).value.withoutLocations
            #expect(parsed == value.sortedByKeys, "seed \(seed), case \(iteration): \(sortedText)")
            // Sorted output is canonical: it does not depend on the order members were given in.
            #expect(sorted.string(from: value.reversedMembers) == sortedText)
        }
    }
}

extension JSONValue {
    /// Members in code-point order of their keys, at every level.
    fileprivate var sortedByKeys: JSONValue {
        switch self {
        case .object(let members):
            .object(members
                .sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }
                .map { JSONMember(key: $0.key, value: JSONNode($0.value.value.sortedByKeys)) })
        case .array(let elements):
            .array(elements.map { JSONNode($0.value.sortedByKeys) })
        default:
            self
        }
    }

    fileprivate var reversedMembers: JSONValue {
        switch self {
        case .object(let members):
            .object(members.reversed().map { JSONMember(key: $0.key, value: JSONNode($0.value.value.reversedMembers)) })
        case .array(let elements):
            .array(elements.map { JSONNode($0.value.reversedMembers) })
        default:
            self
        }
    }
}


/// Random JSON trees: every kind of value, numbers in every lexical form, strings with control
/// characters, quotes, backslashes and scalars from every UTF-8 length.
struct JSONValueGenerator {
    var random: SeededGenerator

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    mutating func value(depth: Int) -> JSONValue {
        let kinds = depth >= 4 ? 4 : 6
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0: return .string(string())
        case 1: return .number(number())
        case 2: return Bool.random(using: &random) ? .bool(Bool.random(using: &random)) : .null
        case 3: return .string(string())
        case 4:
            return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in JSONNode(value(depth: depth + 1)) })
        default:
            var keys: Set<String> = []
            var members: [JSONMember] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let key = string()
                guard keys.insert(key).inserted else { continue }
                members.append(JSONMember(key: key, value: JSONNode(value(depth: depth + 1))))
            }
            return .object(members)
        }
    }

    mutating func number() -> String {
        var text = Bool.random(using: &random) ? "-" : ""
        if Int.random(in: 0..<4, using: &random) == 0 {
            text += "0"
        } else {
            text += String(Int.random(in: 1...9, using: &random))
            text += digits(Int.random(in: 0...25, using: &random))
        }
        if Bool.random(using: &random) {
            text += "." + digits(Int.random(in: 1...12, using: &random))
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            text += ["e", "E"].randomElement(using: &random)!
            text += ["", "+", "-"].randomElement(using: &random)!
            text += digits(Int.random(in: 1...3, using: &random))
        }
        return text
    }

    private mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }

    private static let pieces: [String] = [
        "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{8}", "\u{C}", "\u{1F}", "\u{7F}", " ", "a", "Z", "0",
        "é", "e\u{301}", "ß", "€", "日", "\u{2028}", "\u{FFFD}", "😀", "👩‍👩‍👧", "🇫🇷", "\u{10FFFF}", "\\u0041",
    ]

    mutating func string() -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            if Int.random(in: 0..<3, using: &random) == 0 {
                text += Self.pieces.randomElement(using: &random)!
            } else {
                text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random)))
            }
        }
        return text
    }
}
