import Foundation
import Strata
import Testing

/// Hands out the bytes in the chunks given: `sizes` first, then the rest at once.
struct SplitSource: JSONByteSource {
    var bytes: [UInt8]
    var sizes: [Int]
    var offset = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while sizes.first == 0 { sizes.removeFirst() }
        let wanted = sizes.isEmpty ? bytes.count - offset : sizes.removeFirst()
        let count = min(wanted, buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
        offset += count
        return count
    }
}

/// What a reader makes of a document: each token with its location and text, then the end or
/// the error.
func readTokens<Source: JSONByteSource>(_ reader: inout JSONReader<Source>) -> [String] {
    var tokens: [String] = []
    do {
        while true {
            let token = try reader.next()
            var text = "\(reader.tokenLocation) \(token)"
            switch token {
            case .key, .string: text += " \(reader.string.debugDescription)"
            case .number: text += " \(reader.string) \(reader.integerValue.map(String.init) ?? "-")"
            default: break
            }
            tokens.append(text)
            if token == .endOfDocument { return tokens }
        }
    } catch {
        tokens.append("error \(error)")
        return tokens
    }
}

func readTokens(_ bytes: [UInt8], chunks sizes: [Int] = [], bufferSize: Int = 1 << 16) -> [String] {
    var reader = JSONReader(source: SplitSource(bytes: bytes, sizes: sizes), bufferSize: bufferSize)
    return readTokens(&reader)
}

@Suite("JSONReader")
struct JSONReaderTests {
    @Test func tokensWithTheirLocations() {
        let text = "{\"a\": [1, -2.5e3, true, false, null],\n \"b\": {\"c\": \"d\"}, \"e\": []}"
        #expect(readTokens(Array(text.utf8)) == [
            "1:1 beginObject", "1:2 key \"a\"", "1:7 beginArray", "1:8 number 1 1", "1:11 number -2.5e3 -",
            "1:19 true", "1:25 false", "1:32 null", "1:36 endArray",
            "2:2 key \"b\"", "2:7 beginObject", "2:8 key \"c\"", "2:13 string \"d\"", "2:16 endObject",
            "2:19 key \"e\"", "2:24 beginArray", "2:25 endArray", "2:26 endObject", "2:27 endOfDocument",
        ])
    }

    @Test func escapesAndSurrogatePairsAreDecoded() {
        let text = #"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20AC\ud83d\ude00x", "é😀 plain"]"#
        #expect(readTokens(Array(text.utf8)).dropFirst().dropLast(2) == [
            "1:2 string \"a\\\"b\\\\c/d\\u{08}\\u{0C}\\n\\r\\t\"",
            "1:26 string \"é€😀x\"",
            "1:55 string \"é😀 plain\"",
        ])
    }

    /// Whole numbers within Int64 have a value; every number keeps its lexeme.
    @Test(arguments: [
        ("0", 0 as Int64?), ("-0", 0), ("42", 42), ("-9223372036854775808", .min), ("9223372036854775807", .max),
        ("9223372036854775808", nil), ("-9223372036854775809", nil), ("1.0", nil), ("1e3", nil), ("12345678901234567890123", nil),
    ])
    func numbers(_ lexeme: String, _ value: Int64?) throws {
        var reader = JSONReader(source: JSONMemorySource(Data(lexeme.utf8)))
        #expect(try reader.next() == .number)
        #expect(reader.string == lexeme)
        #expect(reader.integerValue == value)
        #expect(try reader.next() == .endOfDocument)
    }

    @Test func depthFollowsTheNesting() throws {
        var reader = JSONReader(source: JSONMemorySource(Data(#"[{"a": [[]]}]"#.utf8)))
        var depths: [Int] = []
        while try reader.next() != .endOfDocument { depths.append(reader.depth) }
        #expect(depths == [1, 2, 2, 3, 4, 3, 2, 1, 0])
    }

    /// The documents of the parser's tests, valid and not: the reader reads each the same when
    /// its bytes come split at every offset, one byte at a time, or into a tiny buffer that
    /// must grow for a long token.
    static let documents: [[UInt8]] = JSONParserTests.errorCases.map { Array($0.text.utf8) } + [
        Array("{\"objects\": {\"Tag\": [{\"@id\": 1, \"name\": \"h\\u00e9me 😀\", \"x\": [1.5e-3, -0, true, null]}]}}".utf8),
        Array("\u{FEFF}[\"byte order mark\", \"\\ud83d\\ude00\"]".utf8),
        [0x5B, 0x31, 0x2C, 0x2C, 0x20, 0x22, 0xFF, 0x22, 0x5D], // a syntax error, then invalid UTF-8
        Array("[\"é\", \"".utf8) + [0xE2, 0x82] + Array("\"]".utf8),
    ]

    @Test(arguments: documents.indices)
    func chunkBoundariesChangeNothing(_ index: Int) {
        let bytes = Self.documents[index]
        let whole = readTokens(bytes)
        for offset in 0...bytes.count {
            #expect(readTokens(bytes, chunks: [offset]) == whole, "split at \(offset)")
        }
        #expect(readTokens(bytes, chunks: Array(repeating: 1, count: bytes.count)) == whole, "one byte at a time")
        #expect(readTokens(bytes, chunks: Array(repeating: 3, count: bytes.count), bufferSize: 4) == whole, "a buffer of 4 bytes")
    }

    /// Errors are the parser's, at its line and column, and invalid UTF-8 anywhere in the file
    /// comes first, as when the parser checked the whole file before reading it.
    @Test func errorsAreTheParsers() {
        #expect(readTokens(Array("{\"é😀\": tru}".utf8)).last == "error 1:8: invalid literal; expected 'true' (JSON literals are lower-case, strings need double quotes)")
        #expect(readTokens([0x5B, 0x31, 0x2C, 0x2C, 0x0A, 0x22, 0xFF, 0x22, 0x5D]).last == "error 2:2: the file is not valid UTF-8; save it as UTF-8")
        #expect(readTokens(Array("[1,, \"é\"]".utf8)).last == "error 1:4: unexpected ','; expected a value (object, array, string, number, true, false or null)")
        #expect(readTokens(Array(#"["\é"]"#.utf8)).last == "error 1:3: invalid escape sequence '\\Ã'")
    }

    /// The buffer holds a token, not the file: a long document of short tokens is read in a
    /// buffer of the size it was given.
    @Test func theBufferDoesNotGrowWithTheDocument() throws {
        let document = "[" + Array(repeating: #"{"@id": 123, "name": "a name of some length"}"#, count: 20_000).joined(separator: ",") + "]"
        var reader = JSONReader(source: JSONMemorySource(Data(document.utf8), chunkSize: 4096), bufferSize: 4096)
        var objects = 0
        while true {
            let token = try reader.next()
            if token == .beginObject { objects += 1 }
            if token == .endOfDocument { break }
        }
        #expect(objects == 20_000)
        #expect(reader.bufferCapacity == 4096)
        #expect(reader.offset == document.utf8.count)
    }

    @Test func readValueBuildsTheTreeAndFindsDuplicateKeys() throws {
        var reader = JSONReader(source: JSONMemorySource(Data(#"{"a": [1, {"b": "c"}]}"#.utf8)))
        let node = try reader.readValue(startingWith: reader.next())
        #expect(node.value.withoutLocations == .object(["a": .array([.number("1"), .object(["b": .string("c")])])]))
        var duplicate = JSONReader(source: JSONMemorySource(Data(#"[{"b": 1, "b": 2}]"#.utf8)))
        do {
            _ = try duplicate.readValue(startingWith: duplicate.next())
            Issue.record("a duplicate key must be an error")
        } catch {
            #expect(error.description == "1:11: duplicate key 'b' in the same object")
        }
    }
}
