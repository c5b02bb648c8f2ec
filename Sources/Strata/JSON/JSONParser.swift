/// A JSON syntax error with the line and column where the text stops being JSON.
package struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    package var location: SourceLocation

    package var description: String { "\(location): \(message)" }
}

/// A strict RFC 8259 parser that records where every value starts.
///
/// Strata parses its own JSON instead of using `JSONSerialization` because model and data files
/// need diagnostics with `file:line:column`, exact number text, member order, and duplicate-key
/// detection. Nesting is bounded so a hostile file cannot exhaust the stack.
package struct JSONParser {
    package static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a whole document; anything but white space after the top-level value is an error.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        try validateUTF8(bytes)
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated, as most editors may write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw parser.error("the document is empty; expected a JSON value")
        }
        let node = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the end of the JSON value")
        }
        return node
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        let start = location
        guard let byte = peek() else { throw error("unexpected end of file; expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return JSONNode(try parseObject(), at: start)
        case UInt8(ascii: "["): return JSONNode(try parseArray(), at: start)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(.number(try parseNumber()), at: start)
        case UInt8(ascii: "t"):
            try expectKeyword("true")
            return JSONNode(.bool(true), at: start)
        case UInt8(ascii: "f"):
            try expectKeyword("false")
            return JSONNode(.bool(false), at: start)
        case UInt8(ascii: "n"):
            try expectKeyword("null")
            return JSONNode(.null, at: start)
        default:
            throw error("unexpected \(describeCurrent()); expected a value (object, array, string, number, true, false or null)")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        advance() // {
        var members: [JSONMember] = []
        var seenKeys: Set<String> = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            advance()
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                if peek() == UInt8(ascii: "}") {
                    throw error("trailing comma before '}'; remove the last ','")
                }
                throw error("expected a member name in double quotes, found \(describeCurrent())")
            }
            let keyLocation = location
            let key = try parseString()
            if !seenKeys.insert(key).inserted {
                throw JSONSyntaxError(message: "duplicate key '\(key)' in the same object", location: keyLocation)
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw error("expected ':' after the member name '\(key)', found \(describeCurrent())")
            }
            advance()
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                advance()
            case UInt8(ascii: "}"):
                advance()
                return .object(members)
            default:
                throw error("expected ',' or '}' after an object member, found \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        advance() // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            advance()
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                throw error("trailing comma before ']'; remove the last ','")
            }
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                advance()
            case UInt8(ascii: "]"):
                advance()
                return .array(elements)
            default:
                throw error("expected ',' or ']' after an array element, found \(describeCurrent())")
            }
        }
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        advance() // opening quote
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw error("unterminated string; add the closing '\"'")
            }
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escapeLocation = location
                advance()
                guard let escaped = peek() else { throw error("unterminated escape sequence") }
                advance()
                switch escaped {
                case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape(startingAt: escapeLocation)
                    utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw JSONSyntaxError(
                        message: "invalid escape sequence '\\\(Character(Unicode.Scalar(escaped)))'",
                        location: escapeLocation)
                }
            case 0x00..<0x20:
                throw error("control character U+\(hex4(UInt16(byte))) inside a string; escape it (for example \\n or \\t)")
            default:
                utf8.append(byte)
                advance()
            }
        }
    }

    private mutating func parseUnicodeEscape(startingAt escapeLocation: SourceLocation) throws(JSONSyntaxError) -> Unicode.Scalar {
        let first = try parseHex4(escapeLocation)
        if (0xD800..<0xDC00).contains(first) {
            // A high surrogate must be followed by an escaped low surrogate.
            guard peek() == UInt8(ascii: "\\"), peek(offset: 1) == UInt8(ascii: "u") else {
                throw JSONSyntaxError(message: "unpaired UTF-16 surrogate \\u\(hex4(first))", location: escapeLocation)
            }
            advance()
            advance()
            let second = try parseHex4(escapeLocation)
            guard (0xDC00..<0xE000).contains(second) else {
                throw JSONSyntaxError(message: "unpaired UTF-16 surrogate \\u\(hex4(first))", location: escapeLocation)
            }
            let value = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            return Unicode.Scalar(value)!
        }
        guard let scalar = Unicode.Scalar(UInt32(first)) else {
            throw JSONSyntaxError(message: "unpaired UTF-16 surrogate \\u\(hex4(first))", location: escapeLocation)
        }
        return scalar
    }

    private mutating func parseHex4(_ escapeLocation: SourceLocation) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = hexDigitValue(byte) else {
                throw JSONSyntaxError(message: "a \\u escape needs four hexadecimal digits", location: escapeLocation)
            }
            value = value << 4 | UInt16(digit)
            advance()
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { advance() }
        guard let first = peek(), isDigit(first) else {
            throw error("expected a digit after '-'")
        }
        if first == UInt8(ascii: "0") {
            advance()
            if let next = peek(), isDigit(next) {
                throw error("leading zeros are not allowed in JSON numbers")
            }
        } else {
            while let byte = peek(), isDigit(byte) { advance() }
        }
        if peek() == UInt8(ascii: ".") {
            advance()
            guard let byte = peek(), isDigit(byte) else {
                throw error("expected a digit after the decimal point")
            }
            while let byte = peek(), isDigit(byte) { advance() }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            advance()
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { advance() }
            guard let byte = peek(), isDigit(byte) else {
                throw error("expected a digit in the exponent")
            }
            while let byte = peek(), isDigit(byte) { advance() }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func expectKeyword(_ keyword: StaticString) throws(JSONSyntaxError) {
        let start = location
        let expected = Array(UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount))
        for byte in expected {
            guard peek() == byte else {
                throw JSONSyntaxError(
                    message: "invalid literal; expected '\(keyword)' (JSON literals are lower-case, strings need double quotes)",
                    location: start)
            }
            advance()
        }
        if let next = peek(), isIdentifierByte(next) {
            throw JSONSyntaxError(message: "invalid literal; expected '\(keyword)'", location: start)
        }
    }

    // MARK: - Scanning

    private var location: SourceLocation { SourceLocation(line: line, column: column) }

    private func peek(offset: Int = 0) -> UInt8? {
        let position = index + offset
        return position < bytes.count ? bytes[position] : nil
    }

    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            // Continuation bytes of a multi-byte scalar do not start a new column.
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
              byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
            advance()
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte < 0x20 { return "control character U+\(hex4(UInt16(byte)))" }
        if byte < 0x80 { return "'\(Character(Unicode.Scalar(byte)))'" }
        var iterator = bytes[index...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return "'\(Character(scalar))'"
        }
        return "a non-ASCII character"
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(message: message, location: location)
    }

    private static func validateUTF8(_ bytes: [UInt8]) throws(JSONSyntaxError) {
        // A byte order mark is not a column for the parser, so it is not one here either.
        var iterator = bytes[(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)...].makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return
            case .error:
                throw JSONSyntaxError(
                    message: "the file is not valid UTF-8; save it as UTF-8",
                    location: SourceLocation(line: line, column: column))
            }
        }
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
