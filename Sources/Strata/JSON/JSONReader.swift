/// One token of a JSON document, as ``JSONReader/next()`` reads it.
package enum JSONToken: Sendable, Hashable {
    case beginObject, endObject, beginArray, endArray
    /// A member name; ``JSONReader/string`` holds it.
    case key
    case string
    /// ``JSONReader/string`` holds its lexeme, ``JSONReader/integerValue`` its value when whole.
    case number
    case `true`, `false`, null
    /// After the top-level value: nothing but white space followed.
    case endOfDocument

    /// The JSON name of the kind of a value that starts with this token, for messages.
    package var kindName: String {
        switch self {
        case .beginObject: "an object"
        case .beginArray: "an array"
        case .string, .key: "a string"
        case .number: "a number"
        case .true, .false: "a boolean"
        case .null: "null"
        case .endObject, .endArray, .endOfDocument: "nothing"
        }
    }
}

/// A streaming (pull) JSON reader: tokens one at a time, read from a ``JSONByteSource`` in
/// chunks, never the whole tree. It accepts exactly what ``JSONParser`` accepts, with the same
/// messages at the same `line:column` (a file that is not valid UTF-8 is reported as such, even
/// when a syntax error comes first), except duplicate keys, which are the caller's to find
/// (``readValue(startingWith:)`` does, as the parser does).
///
/// The byte loop works on a buffer that holds the current token (it grows for a token larger
/// than itself); strings without escapes are decoded straight from it, numbers are kept as
/// their lexeme. Lines and columns cost nothing per byte: a column is the distance from the
/// line's start less the UTF-8 continuation bytes, which occur only inside strings.
package struct JSONReader<Source: JSONByteSource>: ~Copyable {
    package var source: Source

    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The next byte to read.
    private var index = 0
    /// The end of the bytes read into the buffer.
    private var limit = 0
    /// Where the current token's bytes start; a refill keeps them.
    private var pin = 0
    /// The input offset of `buffer[0]`.
    private var bufferOffset = 0
    private var sourceEnded = false

    private var line = 1
    /// The input offset where the current line starts.
    private var lineStart = 0
    /// UTF-8 continuation bytes between `lineStart` and `index`.
    private var continuationBytes = 0

    private enum State: UInt8 {
        case start, end, objectFirstKey, objectKey, objectColon, objectAfterValue, arrayFirstValue, arrayAfterValue
    }

    private var state = State.start
    /// One entry per open container: true for an object.
    private var containers: [Bool] = []

    /// Where the last token starts.
    package private(set) var tokenLocation = SourceLocation(line: 1, column: 1)
    private var tokenLength = 0
    private var tokenIsDecoded = false
    private var tokenIsWhole = false
    /// A string with escapes, decoded.
    private var decoded: [UInt8] = []

    package init(source: consuming Source, bufferSize: Int = 1 << 16) {
        self.source = source
        capacity = max(bufferSize, 4)
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
    }

    /// How deeply the reader is nested in objects and arrays.
    package var depth: Int { containers.count }

    /// The size of the buffer: what it was made with, unless a token needed more.
    package var bufferCapacity: Int { capacity }

    /// How many bytes of the input the reader has consumed.
    package var offset: Int { bufferOffset + index }

    // MARK: - Tokens

    /// The next token.
    /// - Throws: the first syntax error, as ``JSONParser`` reports it.
    package mutating func next() throws(JSONSyntaxError) -> JSONToken {
        switch state {
        case .start:
            if ensure(3), buffer[index] == 0xEF, buffer[index + 1] == 0xBB, buffer[index + 2] == 0xBF {
                // A UTF-8 byte order mark is tolerated, and is no column.
                index += 3
                lineStart = offset
            }
            skipWhitespace()
            guard peek() != nil else { throw fail("the document is empty; expected a JSON value") }
            return try value()
        case .end:
            skipWhitespace()
            tokenLocation = location
            if peek() != nil { throw fail("unexpected \(describeCurrent()) after the end of the JSON value") }
            return .endOfDocument
        case .objectFirstKey:
            skipWhitespace()
            if peek() == UInt8(ascii: "}") { return endContainer() }
            return try key()
        case .objectKey:
            skipWhitespace()
            return try key()
        case .objectColon:
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw fail("expected ':' after the member name '\(string)', found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            return try value()
        case .objectAfterValue:
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                return try key()
            case UInt8(ascii: "}"):
                return endContainer()
            default:
                throw fail("expected ',' or '}' after an object member, found \(describeCurrent())")
            }
        case .arrayFirstValue:
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { return endContainer() }
            return try value()
        case .arrayAfterValue:
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") { throw fail("trailing comma before ']'; remove the last ','") }
                return try value()
            case UInt8(ascii: "]"):
                return endContainer()
            default:
                throw fail("expected ',' or ']' after an array element, found \(describeCurrent())")
            }
        }
    }

    /// The last key or string, decoded, or the last number's lexeme.
    package var string: String {
        if tokenIsDecoded { return String(decoding: decoded, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(start: buffer + pin, count: tokenLength), as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 bytes of ``string`` without making a `String`.
    package func withTokenBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if tokenIsDecoded { return try decoded.withUnsafeBufferPointer(body) }
        return try body(UnsafeBufferPointer(start: buffer + pin, count: tokenLength))
    }

    /// The last number's value when it is written as a whole number (no fraction or exponent)
    /// within Int64's range: what `Int64(lexeme)` gives.
    package var integerValue: Int64? {
        guard tokenIsWhole, !tokenIsDecoded else { return nil }
        var position = pin
        let end = pin + tokenLength
        let negative = buffer[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value: Int64 = 0
        while position < end {
            let digit = Int64(buffer[position] &- UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            position += 1
        }
        return value
    }

    /// The value that starts with `token` (just returned by ``next()``) as a tree with
    /// locations, for the rare value a caller wants whole or skips; a duplicate key in it is an
    /// error, as in ``JSONParser``.
    package mutating func readValue(startingWith token: JSONToken) throws(JSONSyntaxError) -> JSONNode {
        let location = tokenLocation
        switch token {
        case .beginObject:
            var members: [JSONMember] = []
            var seen: Set<String> = []
            while try next() == .key {
                let key = string
                let keyLocation = tokenLocation
                if !seen.insert(key).inserted { throw syntaxError("duplicate key '\(key)' in the same object", at: keyLocation) }
                let value = try readValue(startingWith: next())
                members.append(JSONMember(key: key, keyLocation: keyLocation, value: value))
            }
            return JSONNode(.object(members), at: location)
        case .beginArray:
            var elements: [JSONNode] = []
            while true {
                let element = try next()
                if element == .endArray { break }
                elements.append(try readValue(startingWith: element))
            }
            return JSONNode(.array(elements), at: location)
        case .string, .key: return JSONNode(.string(string), at: location)
        case .number: return JSONNode(.number(string), at: location)
        case .true: return JSONNode(.bool(true), at: location)
        case .false: return JSONNode(.bool(false), at: location)
        case .null: return JSONNode(.null, at: location)
        case .endObject, .endArray, .endOfDocument:
            preconditionFailure("readValue(startingWith: .\(token)): the token starts no value")
        }
    }

    /// Consumes the rest of the value that starts with `token`, checking it as ``readValue(startingWith:)`` does.
    package mutating func skipValue(startingWith token: JSONToken) throws(JSONSyntaxError) {
        if token == .beginObject || token == .beginArray { _ = try readValue(startingWith: token) }
    }

    /// A syntax error the caller found (a duplicate key) at `location`; or, when the rest of the
    /// input is not valid UTF-8, that error, which ``JSONParser`` reports first.
    package mutating func syntaxError(_ message: String, at location: SourceLocation) -> JSONSyntaxError {
        encodingError() ?? JSONSyntaxError(message: message, location: location)
    }

    // MARK: - Values

    private mutating func value() throws(JSONSyntaxError) -> JSONToken {
        tokenLocation = location
        pin = index
        guard let byte = peek() else { throw fail("unexpected end of file; expected a value") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if containers.count >= JSONParser.maximumDepth {
                throw fail("nesting deeper than \(JSONParser.maximumDepth) levels")
            }
            index += 1
            pin = index
            let isObject = byte == UInt8(ascii: "{")
            containers.append(isObject)
            state = isObject ? .objectFirstKey : .arrayFirstValue
            return isObject ? .beginObject : .beginArray
        case UInt8(ascii: "\""):
            try scanString()
            afterValue()
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            afterValue()
            return .number
        case UInt8(ascii: "t"):
            try expectKeyword("true")
            afterValue()
            return .true
        case UInt8(ascii: "f"):
            try expectKeyword("false")
            afterValue()
            return .false
        case UInt8(ascii: "n"):
            try expectKeyword("null")
            afterValue()
            return .null
        default:
            throw fail("unexpected \(describeCurrent()); expected a value (object, array, string, number, true, false or null)")
        }
    }

    private mutating func key() throws(JSONSyntaxError) -> JSONToken {
        guard peek() == UInt8(ascii: "\"") else {
            if peek() == UInt8(ascii: "}") { throw fail("trailing comma before '}'; remove the last ','") }
            throw fail("expected a member name in double quotes, found \(describeCurrent())")
        }
        tokenLocation = location
        try scanString()
        state = .objectColon
        return .key
    }

    private mutating func endContainer() -> JSONToken {
        tokenLocation = location
        index += 1
        pin = index
        let isObject = containers.removeLast()
        afterValue()
        return isObject ? .endObject : .endArray
    }

    private mutating func afterValue() {
        guard let isObject = containers.last else {
            state = .end
            return
        }
        state = isObject ? .objectAfterValue : .arrayAfterValue
    }

    /// Reads a string from its opening quote: raw bytes up to the closing quote when it has no
    /// escape, else decoded into `decoded`.
    private mutating func scanString() throws(JSONSyntaxError) {
        index += 1 // opening quote
        pin = index
        tokenIsDecoded = false
        tokenIsWhole = false
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control character or
            // part of a multi-byte scalar.
            while limit - index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(buffer + index).loadUnaligned(as: UInt64.self))
                let special = Self.specialBytes(word)
                if special == 0 {
                    index += 8
                } else {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
            }
            guard index < limit || refill() else {
                throw fail("unterminated string; add the closing '\"'")
            }
            let byte = buffer[index]
            switch byte {
            case UInt8(ascii: "\""):
                if tokenIsDecoded {
                    decoded.append(contentsOf: UnsafeBufferPointer(start: buffer + pin, count: index - pin))
                } else {
                    tokenLength = index - pin
                }
                index += 1
                return
            case UInt8(ascii: "\\"):
                if !tokenIsDecoded {
                    tokenIsDecoded = true
                    decoded.removeAll(keepingCapacity: true)
                }
                decoded.append(contentsOf: UnsafeBufferPointer(start: buffer + pin, count: index - pin))
                try scanEscape()
                pin = index
            case 0x00..<0x20:
                throw fail("control character U+\(hex4(UInt16(byte))) inside a string; escape it (for example \\n or \\t)")
            case 0x80...:
                let length = scalarLength()
                guard length > 0 else { throw invalidUTF8() }
                index += length
                continuationBytes += length - 1
            default:
                index += 1
            }
        }
    }

    /// A word with the high bit set in each byte that is `"`, `\`, below 0x20 or above 0x7F
    /// (and possibly in bytes after the first such byte, never before it).
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control | word) & (ones &* 0x80)
    }

    /// The length of the valid UTF-8 scalar at `index` (not ASCII), or 0 if it is not valid.
    private mutating func scalarLength() -> Int {
        _ = ensure(4)
        let available = limit - index
        let lead = buffer[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard available >= length else { return 0 }
        let second = buffer[index + 1]
        guard second >= low && second <= high else { return 0 }
        for position in 2..<length where buffer[index + position] & 0xC0 != 0x80 {
            return 0
        }
        return length
    }

    /// Decodes the escape sequence at `index` into `decoded`.
    private mutating func scanEscape() throws(JSONSyntaxError) {
        let escapeLocation = location
        index += 1 // backslash
        guard ensure(1) else { throw fail("unterminated escape sequence") }
        let escaped = buffer[index]
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            index += 1
            let scalar = try scanUnicodeEscape(escapeLocation)
            decoded.append(contentsOf: UTF8.encode(scalar)!)
            return
        default:
            // The escaped byte is not consumed: an encoding error there comes first.
            throw fail("invalid escape sequence '\\\(Character(Unicode.Scalar(escaped)))'", at: escapeLocation)
        }
        index += 1
    }

    private mutating func scanUnicodeEscape(_ escapeLocation: SourceLocation) throws(JSONSyntaxError) -> Unicode.Scalar {
        let first = try scanHex4(escapeLocation)
        if (0xD800..<0xDC00).contains(first) {
            // A high surrogate must be followed by an escaped low surrogate.
            guard ensure(2), buffer[index] == UInt8(ascii: "\\"), buffer[index + 1] == UInt8(ascii: "u") else {
                throw fail("unpaired UTF-16 surrogate \\u\(hex4(first))", at: escapeLocation)
            }
            index += 2
            let second = try scanHex4(escapeLocation)
            guard (0xDC00..<0xE000).contains(second) else {
                throw fail("unpaired UTF-16 surrogate \\u\(hex4(first))", at: escapeLocation)
            }
            return Unicode.Scalar(0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(UInt32(first)) else {
            throw fail("unpaired UTF-16 surrogate \\u\(hex4(first))", at: escapeLocation)
        }
        return scalar
    }

    private mutating func scanHex4(_ escapeLocation: SourceLocation) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard ensure(1), let digit = hexDigitValue(buffer[index]) else {
                throw fail("a \\u escape needs four hexadecimal digits", at: escapeLocation)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func scanNumber() throws(JSONSyntaxError) {
        pin = index
        tokenIsDecoded = false
        tokenIsWhole = true
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw fail("expected a digit after '-'") }
        index += 1
        if first == UInt8(ascii: "0") {
            if let next = peek(), isDigit(next) { throw fail("leading zeros are not allowed in JSON numbers") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            tokenIsWhole = false
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw fail("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            tokenIsWhole = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw fail("expected a digit in the exponent") }
            skipDigits()
        }
        tokenLength = index - pin
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private mutating func expectKeyword(_ keyword: StaticString) throws(JSONSyntaxError) {
        let start = location
        let bytes = UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)
        for byte in bytes {
            guard peek() == byte else {
                throw fail("invalid literal; expected '\(keyword)' (JSON literals are lower-case, strings need double quotes)", at: start)
            }
            index += 1
        }
        if let next = peek(), isIdentifierByte(next) {
            throw fail("invalid literal; expected '\(keyword)'", at: start)
        }
    }

    // MARK: - Scanning

    private var location: SourceLocation {
        SourceLocation(line: line, column: offset - lineStart - continuationBytes + 1)
    }

    private mutating func peek() -> UInt8? {
        guard index < limit || refill() else { return nil }
        return buffer[index]
    }

    /// Whether `count` bytes from `index` are in the buffer (false when the input ends first).
    private mutating func ensure(_ count: Int) -> Bool {
        while limit - index < count {
            if !refill() { return false }
        }
        return true
    }

    /// Reads more of the input into the buffer, keeping the current token's bytes: moves them
    /// to the front, or grows the buffer when they fill it. False at the end of the input.
    private mutating func refill() -> Bool {
        guard !sourceEnded else { return false }
        let keep = min(pin, index)
        if keep > 0 {
            UnsafeMutableRawPointer(buffer).copyMemory(from: buffer + keep, byteCount: limit - keep) // may overlap: memmove
            bufferOffset += keep
            index -= keep
            pin -= keep
            limit -= keep
        }
        if limit == capacity {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            larger.update(from: buffer, count: limit)
            buffer.deallocate()
            buffer = larger
            capacity *= 2
        }
        let count = source.read(into: UnsafeMutableRawBufferPointer(start: buffer + limit, count: capacity - limit))
        guard count > 0 else {
            sourceEnded = true
            return false
        }
        limit += count
        return true
    }

    private mutating func skipWhitespace() {
        while index < limit || refill() {
            switch buffer[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = offset
                continuationBytes = 0
            default:
                return
            }
        }
    }

    private mutating func describeCurrent() -> String {
        guard let byte = peek() else { return "end of file" }
        if byte < 0x20 { return "control character U+\(hex4(UInt16(byte)))" }
        if byte < 0x80 { return "'\(Character(Unicode.Scalar(byte)))'" }
        let length = scalarLength()
        guard length > 0 else { return "a non-ASCII character" }
        let scalar = String(decoding: UnsafeBufferPointer(start: buffer + index, count: length), as: UTF8.self)
        return "'\(scalar)'"
    }

    private mutating func fail(_ message: String) -> JSONSyntaxError {
        fail(message, at: location)
    }

    /// A syntax error at `location`; everything before `index` has been checked to be UTF-8,
    /// the rest is checked now, and an encoding error there is reported instead.
    private mutating func fail(_ message: String, at location: SourceLocation) -> JSONSyntaxError {
        encodingError() ?? JSONSyntaxError(message: message, location: location)
    }

    /// The first invalid UTF-8 from `index` to the end of the input, if any.
    private mutating func encodingError() -> JSONSyntaxError? {
        while index < limit || refill() {
            let byte = buffer[index]
            if byte < 0x80 {
                index += 1
                pin = index
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    lineStart = offset
                    continuationBytes = 0
                }
                continue
            }
            let length = scalarLength()
            guard length > 0 else { return invalidUTF8() }
            index += length
            pin = index
            continuationBytes += length - 1
        }
        return nil
    }

    private func invalidUTF8() -> JSONSyntaxError {
        JSONSyntaxError(message: "the file is not valid UTF-8; save it as UTF-8", location: location)
    }
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

private func isIdentifierByte(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
}

private func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

private func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
