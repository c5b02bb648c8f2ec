import Strata
import Testing

@Suite("JSONParser")
struct JSONParserTests {
    // MARK: - Values

    @Test func literals() throws {
        #expect(try parseJSON("true").value == .bool(true))
        #expect(try parseJSON("false").value == .bool(false))
        #expect(try parseJSON("null").value == .null)
        #expect(try parseJSON(" \t\r\n null \r\n").value == .null)
    }

    /// Numbers keep their exact text: no rounding to a double, no normalisation.
    @Test(arguments: [
        "0", "-0", "7", "-7", "1.50", "0.0", "-0.0", "9007199254740993", "-9223372036854775808",
        "18446744073709551616", "123456789012345678901234567890", "1e-7", "1E+10", "1e400",
        "-12.5e3", "2.50E-0", "0.000000000000000000000000000001",
    ])
    func numberLexemeIsKept(_ lexeme: String) throws {
        #expect(try parseJSON(lexeme).value == .number(lexeme))
        #expect(try parseJSON("[\(lexeme)]").value.withoutLocations == .array([.number(lexeme)]))
    }

    @Test func strings() throws {
        #expect(try parseJSON(#""""#).value == .string(""))
        #expect(try parseJSON(#""plain text""#).value == .string("plain text"))
        // Non-ASCII text and characters JSON does not require to escape are kept as they are.
        #expect(try parseJSON("\"é😀 \u{7F} \u{2028} / ' \"").value == .string("é😀 \u{7F} \u{2028} / ' "))
    }

    @Test(arguments: [
        (#"\""#, "\""),
        (#"\\"#, "\\"),
        (#"\/"#, "/"),
        (#"\b"#, "\u{08}"),
        (#"\f"#, "\u{0C}"),
        (#"\n"#, "\n"),
        (#"\r"#, "\r"),
        (#"\t"#, "\t"),
        (#"\u0041"#, "A"),
        (#"\u00e9"#, "é"),
        (#"\u00E9"#, "é"),
        (#"\u0000"#, "\u{0}"),
        (#"\u001f"#, "\u{1F}"),
        (#"\u20AC"#, "€"),
        (#"\uFFFF"#, "\u{FFFF}"),
        (#"\uD83D\uDE00"#, "😀"),
        (#"\ud83d\ude00"#, "😀"),
        (#"\uD834\uDD1E"#, "𝄞"),
        (#"\uDBFF\uDFFF"#, "\u{10FFFF}"),
        (#"a\nb\u0041\\"#, "a\nbA\\"),
    ])
    func escapes(_ escaped: String, _ expected: String) throws {
        let value = try parseJSON("\"\(escaped)\"").value
        #expect(value == .string(expected))
        // Compare scalar by scalar too: String equality would hide a normalisation.
        #expect(value.stringValue.map { Array($0.unicodeScalars) } == Array(expected.unicodeScalars))
    }

    @Test func arrays() throws {
        #expect(try parseJSON("[]").value == .array([JSONNode]()))
        #expect(try parseJSON("[ \n ]").value == .array([JSONNode]()))
        let value = try parseJSON(#"[1, "a", [true, null], {}, []]"#).value.withoutLocations
        #expect(value == .array([
            .number("1"), .string("a"), .array([.bool(true), .null]), .object([JSONMember]()), .array([JSONNode]()),
        ]))
    }

    @Test func objects() throws {
        #expect(try parseJSON("{}").value == .object([JSONMember]()))
        #expect(try parseJSON("{ \n }").value == .object([JSONMember]()))
        let value = try parseJSON(#"{"a": {"b": [1, {"c": null}]}, "": false}"#).value.withoutLocations
        #expect(value == .object([
            "a": .object(["b": .array([.number("1"), .object(["c": .null])])]),
            "": .bool(false),
        ]))
    }

    @Test func memberOrderIsKept() throws {
        let members = try #require(try parseJSON(#"{"zeta": 1, "alpha": 2, "Mid": 3, "beta": 4}"#).value.objectMembers)
        #expect(members.map(\.key) == ["zeta", "alpha", "Mid", "beta"])
        #expect(members.map(\.value.value) == [.number("1"), .number("2"), .number("3"), .number("4")])
    }

    @Test func keysThatDifferOnlyInCaseAreDistinct() throws {
        let members = try #require(try parseJSON(#"{"name": 1, "Name": 2}"#).value.objectMembers)
        #expect(members.map(\.key) == ["name", "Name"])
    }

    // MARK: - Locations

    @Test func locationsOfValuesAndKeys() throws {
        let text = """
            {
              "name": "x",
              "list": [1, true],
            \t"é😀": null,
              "nested": {"k": -0}
            }
            """
        let root = try parseJSON(text)
        #expect(root.location == SourceLocation(line: 1, column: 1))
        let members = try #require(root.value.objectMembers)
        #expect(members.map(\.key) == ["name", "list", "é😀", "nested"])

        #expect(members[0].keyLocation == SourceLocation(line: 2, column: 3))
        #expect(members[0].value.location == SourceLocation(line: 2, column: 11))

        #expect(members[1].keyLocation == SourceLocation(line: 3, column: 3))
        #expect(members[1].value.location == SourceLocation(line: 3, column: 11))
        let list = try #require(members[1].value.value.arrayElements)
        #expect(list.map(\.location) == [SourceLocation(line: 3, column: 12), SourceLocation(line: 3, column: 15)])

        // A tab is one column; 'é' (2 UTF-8 bytes) and '😀' (4 bytes, 2 UTF-16 units) are one each.
        #expect(members[2].keyLocation == SourceLocation(line: 4, column: 2))
        #expect(members[2].value.location == SourceLocation(line: 4, column: 8))

        #expect(members[3].keyLocation == SourceLocation(line: 5, column: 3))
        #expect(members[3].value.location == SourceLocation(line: 5, column: 13))
        let nested = try #require(members[3].value.value.objectMembers)
        #expect(nested[0].keyLocation == SourceLocation(line: 5, column: 14))
        #expect(nested[0].value.location == SourceLocation(line: 5, column: 19))
    }

    @Test func locationsAfterCRLFLineEnds() throws {
        let root = try parseJSON("[\r\n  1,\r\n\r\n  \"two\"\r\n]")
        let elements = try #require(root.value.arrayElements)
        #expect(elements.map(\.location) == [SourceLocation(line: 2, column: 3), SourceLocation(line: 4, column: 3)])
    }

    @Test func locationsAfterMultiByteCharactersInStrings() throws {
        // Columns count Unicode scalars: "👩‍👩‍👧" is 5 scalars (3 people, 2 joiners), "é" 1.
        let root = try parseJSON("[\"👩‍👩‍👧\", \"é\", 3]")
        let elements = try #require(root.value.arrayElements)
        #expect(elements.map(\.location) == [
            SourceLocation(line: 1, column: 2),
            SourceLocation(line: 1, column: 11),
            SourceLocation(line: 1, column: 16),
        ])
    }

    @Test func byteOrderMarkIsAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"a": [1]}"#.utf8)
        let root = try JSONParser.parse(bytes)
        #expect(root.value.withoutLocations == .object(["a": .array([.number("1")])]))
        // The mark is not a column: the document still starts at 1:1.
        #expect(root.location == SourceLocation(line: 1, column: 1))
        #expect(root.value.objectMembers?.first?.keyLocation == SourceLocation(line: 1, column: 2))

        let withSpace = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("\n  true".utf8))
        #expect(withSpace.value == .bool(true))
        #expect(withSpace.location == SourceLocation(line: 2, column: 3))
    }

    @Test func byteOrderMarkAloneIsAnEmptyDocument() {
        let error = jsonSyntaxError([0xEF, 0xBB, 0xBF])
        #expect(error?.message.contains("the document is empty") == true)
        #expect(error?.location == SourceLocation(line: 1, column: 1))
    }

    // MARK: - Errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var fragment: String
        var line: Int
        var column: Int

        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(name: "empty document", text: "", fragment: "the document is empty; expected a JSON value", line: 1, column: 1),
        ErrorCase(name: "only white space", text: " \n\t ", fragment: "the document is empty", line: 2, column: 3),
        ErrorCase(name: "trailing comma in object", text: #"{"a": 1,}"#, fragment: "trailing comma before '}'; remove the last ','", line: 1, column: 9),
        ErrorCase(name: "trailing comma in object on its own line", text: "{\n  \"a\": 1,\n}", fragment: "trailing comma before '}'", line: 3, column: 1),
        ErrorCase(name: "trailing comma in array", text: "[1, 2,]", fragment: "trailing comma before ']'; remove the last ','", line: 1, column: 7),
        ErrorCase(name: "missing colon", text: #"{"a" 1}"#, fragment: "expected ':' after the member name 'a', found '1'", line: 1, column: 6),
        ErrorCase(name: "missing colon at end of file", text: #"{"a""#, fragment: "expected ':' after the member name 'a', found end of file", line: 1, column: 5),
        ErrorCase(name: "unterminated string", text: #"["abc"#, fragment: "unterminated string; add the closing '\"'", line: 1, column: 6),
        ErrorCase(name: "unterminated key", text: #"{"abc"#, fragment: "unterminated string", line: 1, column: 6),
        ErrorCase(name: "unterminated escape", text: #"["a\"#, fragment: "unterminated escape sequence", line: 1, column: 5),
        ErrorCase(name: "invalid escape", text: #"["a\x"]"#, fragment: "invalid escape sequence '\\x'", line: 1, column: 4),
        ErrorCase(name: "escaped single quote", text: #"["\'"]"#, fragment: "invalid escape sequence '\\''", line: 1, column: 3),
        ErrorCase(name: "short unicode escape", text: #""\u12""#, fragment: "a \\u escape needs four hexadecimal digits", line: 1, column: 2),
        ErrorCase(name: "lone high surrogate", text: #"["\uD800"]"#, fragment: "unpaired UTF-16 surrogate \\uD800", line: 1, column: 3),
        ErrorCase(name: "high surrogate then text", text: #""\ud83dx""#, fragment: "unpaired UTF-16 surrogate \\uD83D", line: 1, column: 2),
        ErrorCase(name: "high surrogate then non-surrogate", text: #""ab\uD83D\u0041""#, fragment: "unpaired UTF-16 surrogate \\uD83D", line: 1, column: 4),
        ErrorCase(name: "two high surrogates", text: #""\uD83D\uD83D""#, fragment: "unpaired UTF-16 surrogate \\uD83D", line: 1, column: 2),
        ErrorCase(name: "lone low surrogate", text: #""\uDE00""#, fragment: "unpaired UTF-16 surrogate \\uDE00", line: 1, column: 2),
        ErrorCase(name: "tab in a string", text: "\"a\tb\"", fragment: "control character U+0009 inside a string; escape it", line: 1, column: 3),
        ErrorCase(name: "line break in a string", text: "{\"a\": \"abc\n\"}", fragment: "control character U+000A inside a string", line: 1, column: 11),
        ErrorCase(name: "NUL in a string", text: "\"\u{0}\"", fragment: "control character U+0000 inside a string", line: 1, column: 2),
        ErrorCase(name: "leading zero", text: "01", fragment: "leading zeros are not allowed in JSON numbers", line: 1, column: 2),
        ErrorCase(name: "negative leading zero", text: "[-012]", fragment: "leading zeros are not allowed", line: 1, column: 4),
        ErrorCase(name: "minus without digits", text: "[-]", fragment: "expected a digit after '-'", line: 1, column: 3),
        ErrorCase(name: "decimal point without digits", text: "1.", fragment: "expected a digit after the decimal point", line: 1, column: 3),
        ErrorCase(name: "exponent without digits", text: "1e+", fragment: "expected a digit in the exponent", line: 1, column: 4),
        ErrorCase(name: "leading decimal point", text: ".5", fragment: "unexpected '.'; expected a value", line: 1, column: 1),
        ErrorCase(name: "leading plus", text: "+1", fragment: "unexpected '+'; expected a value", line: 1, column: 1),
        ErrorCase(name: "tru", text: "tru", fragment: "invalid literal; expected 'true'", line: 1, column: 1),
        ErrorCase(name: "tru in an array", text: "[1, tru]", fragment: "invalid literal; expected 'true'", line: 1, column: 5),
        ErrorCase(name: "truex", text: "truex", fragment: "invalid literal; expected 'true'", line: 1, column: 1),
        ErrorCase(name: "nul", text: "nul", fragment: "invalid literal; expected 'null'", line: 1, column: 1),
        ErrorCase(name: "fals", text: "{\"a\":\n  fals}", fragment: "invalid literal; expected 'false'", line: 2, column: 3),
        ErrorCase(name: "True", text: "True", fragment: "unexpected 'T'; expected a value (object, array, string, number, true, false or null)", line: 1, column: 1),
        ErrorCase(name: "NaN", text: "[NaN]", fragment: "unexpected 'N'; expected a value", line: 1, column: 2),
        ErrorCase(name: "single-quoted string", text: "['a']", fragment: "unexpected '''; expected a value", line: 1, column: 2),
        ErrorCase(name: "content after the value", text: #"{"a": 1} x"#, fragment: "unexpected 'x' after the end of the JSON value", line: 1, column: 10),
        ErrorCase(name: "second value", text: "1 2", fragment: "unexpected '2' after the end of the JSON value", line: 1, column: 3),
        ErrorCase(name: "extra closing brace", text: "{\"a\": 1}\n}", fragment: "unexpected '}' after the end of the JSON value", line: 2, column: 1),
        ErrorCase(name: "duplicate key", text: "{\n  \"id\": 1,\n  \"name\": \"a\",\n  \"id\": 2\n}", fragment: "duplicate key 'id' in the same object", line: 4, column: 3),
        ErrorCase(name: "duplicate key in a nested object", text: #"[{"a": {"b": 1, "b": 1}}]"#, fragment: "duplicate key 'b' in the same object", line: 1, column: 17),
        ErrorCase(name: "unquoted key", text: "{a: 1}", fragment: "expected a member name in double quotes, found 'a'", line: 1, column: 2),
        ErrorCase(name: "missing comma in array", text: "[1 2]", fragment: "expected ',' or ']' after an array element, found '2'", line: 1, column: 4),
        ErrorCase(name: "missing comma in object", text: #"{"a": 1 "b": 2}"#, fragment: "expected ',' or '}' after an object member, found '\"'", line: 1, column: 9),
        ErrorCase(name: "unterminated array", text: "[1,", fragment: "unexpected end of file; expected a value", line: 1, column: 4),
        ErrorCase(name: "unterminated object", text: #"{"a": 1"#, fragment: "expected ',' or '}' after an object member, found end of file", line: 1, column: 8),
        ErrorCase(name: "non-ASCII where a comma belongs", text: "[1 é]", fragment: "found 'é'", line: 1, column: 4),
        ErrorCase(name: "columns count scalars before an error", text: #"{"😀é": tru}"#, fragment: "invalid literal; expected 'true'", line: 1, column: 8),
        ErrorCase(name: "control character outside a string", text: "[1,\u{1}]", fragment: "unexpected control character U+0001; expected a value", line: 1, column: 4),
    ]

    @Test(arguments: errorCases)
    func syntaxError(_ testCase: ErrorCase) throws {
        let error = try #require(jsonSyntaxError(Array(testCase.text.utf8)), "\(testCase.name) must not parse")
        #expect(error.message.contains(testCase.fragment), "message: \(error.message)")
        #expect(error.location == SourceLocation(line: testCase.line, column: testCase.column))
        #expect(error.description == "\(testCase.line):\(testCase.column): \(error.message)")
    }

    // MARK: - UTF-8

    @Test(arguments: [
        ("lone 0xFF", [0x22, 0xFF, 0x22] as [UInt8], 1, 2),
        ("truncated two-byte sequence on line 2", Array("[\n\"".utf8) + [0xC3, 0x22, 0x5D], 2, 2),
        ("overlong encoding of '/'", [0x22, 0xC0, 0xAF, 0x22], 1, 2),
        ("UTF-8-encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2),
        ("continuation byte first", [0x80], 1, 1),
        ("after an emoji", Array("\"😀".utf8) + [0xFE, 0x22], 1, 3),
        ("beyond U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, 2),
        ("in a key on line 3", Array("{\n\n \"a".utf8) + [0xE2, 0x82] + Array("\": 1}".utf8), 3, 4),
    ] as [(String, [UInt8], Int, Int)])
    func invalidUTF8(_ name: String, _ bytes: [UInt8], _ line: Int, _ column: Int) throws {
        let error = try #require(jsonSyntaxError(bytes))
        #expect(error.message == "the file is not valid UTF-8; save it as UTF-8")
        #expect(error.location == SourceLocation(line: line, column: column))
    }

    @Test func invalidUTF8AfterByteOrderMarkUsesTheParsersColumns() throws {
        // The BOM is not a column for the parser (the first value is at 1:1), so it is not one
        // for the UTF-8 check either: the bad byte is the third character of the line.
        let error = try #require(jsonSyntaxError([0xEF, 0xBB, 0xBF, 0x5B, 0x22, 0xFF, 0x22, 0x5D]))
        #expect(error.message.contains("not valid UTF-8"))
        #expect(error.location == SourceLocation(line: 1, column: 3))
    }

    // MARK: - Nesting

    @Test func nestingUpToTheMaximumDepthParses() throws {
        let depth = JSONParser.maximumDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try parseJSON(arrays).value
        var levels = 1
        while case .array(let elements) = value, let first = elements.first {
            value = first.value
            levels += 1
        }
        #expect(levels == depth)

        let objects = String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
        #expect(throws: Never.self) { try parseJSON(objects) }

        // Depth is per path, not a running total: two siblings each at the limit are fine.
        let half = String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
        #expect(throws: Never.self) { try parseJSON("[\(half),\(half)]") }
    }

    @Test func nestingBeyondTheMaximumDepthThrows() throws {
        let depth = JSONParser.maximumDepth
        let arrays = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        let error = try #require(jsonSyntaxError(Array(arrays.utf8)))
        #expect(error.message == "nesting deeper than \(depth) levels")
        #expect(error.location == SourceLocation(line: 1, column: depth + 1))

        let objects = String(repeating: #"{"a":"#, count: depth + 1)
        let objectError = try #require(jsonSyntaxError(Array(objects.utf8)))
        #expect(objectError.message == "nesting deeper than \(depth) levels")
        #expect(objectError.location == SourceLocation(line: 1, column: 5 * depth + 1))
    }

    @Test func hostileNestingThrowsInsteadOfExhaustingTheStack() throws {
        let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        let error = try #require(jsonSyntaxError(hostile))
        #expect(error.message.contains("nesting deeper than"))
        let mixed = Array(String(repeating: #"[{"k":"#, count: 200_000).utf8)
        #expect(jsonSyntaxError(mixed)?.message.contains("nesting deeper than") == true)
    }
}
