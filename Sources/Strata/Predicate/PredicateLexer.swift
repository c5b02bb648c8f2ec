/// One token of the predicate format language, with where it starts and ends in the format's
/// Unicode scalars.
struct PredicateToken {
    enum Kind: Equatable {
        /// A bare word: a key path component or a keyword; the parser decides which.
        case word(String)
        /// `#word`: always a key path component, even when the word is reserved.
        case escapedWord(String)
        /// `@count`, `@sum`, ...: the name after the `@`, as written.
        case collectionOperator(String)
        /// `$name`.
        case variable(String)
        case string(String)
        /// An integer's magnitude; a leading `-` is a separate token.
        case integer(UInt64)
        case double(Double)
        /// `%@`, `%K`, `%d`, ...: the specifier as written, e.g. `%ld`.
        case argument(String)
        case comparison(ComparisonOperator)
        case and, or, not
        case minus, plus, star, slash, power
        /// `:` in a function name: `sum:(…)`, `add:to:(…)`.
        case colon
        case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket
        case comma, dot
        case end
    }

    var kind: Kind
    /// Offsets in the format's Unicode scalars: `start..<end`.
    var start: Int
    var end: Int
}

/// Reads tokens on demand, so that the first problem in reading order is the one reported.
///
/// Works on Unicode scalars rather than characters: a combining mark right after a quote or a
/// backslash must not merge with it into one character.
struct PredicateLexer {
    let scalars: [Unicode.Scalar]
    private(set) var position = 0

    init(_ format: String) {
        scalars = Array(format.unicodeScalars)
    }

    /// A lexing failure: what is wrong and where (a scalar offset).
    struct Failure: Error {
        var code: PredicateSyntaxError.Code
        var offset: Int
        var message: String
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        let index = position + ahead
        return index < scalars.count ? scalars[index] : nil
    }

    mutating func next() throws(Failure) -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { position += 1 }
        let start = position
        guard let scalar = peek() else { return PredicateToken(kind: .end, start: start, end: start) }
        let kind = try readToken(startingWith: scalar)
        return PredicateToken(kind: kind, start: start, end: position)
    }

    private mutating func readToken(startingWith scalar: Unicode.Scalar) throws(Failure) -> PredicateToken.Kind {
        let start = position
        if Self.isWordStart(scalar) { return .word(readWord()) }
        if scalar.properties.numericType == .decimal, scalar.isASCII { return try readNumber() }
        position += 1
        switch scalar {
        case "'", "\"": return .string(try readString(quote: scalar, start: start))
        case "#":
            let word = readWord(allowingDigitStart: true)
            guard !word.isEmpty else {
                throw Failure(code: .invalidToken, offset: start, message: "expected a name after '#'")
            }
            return .escapedWord(word)
        case "@":
            guard let next = peek(), Self.isWordStart(next) else {
                throw Failure(code: .invalidToken, offset: start, message: "expected a collection operator such as @count after '@'")
            }
            return .collectionOperator(readWord())
        case "$":
            guard let next = peek(), Self.isWordStart(next) else {
                throw Failure(code: .invalidToken, offset: start, message: "expected a variable name after '$'")
            }
            return .variable(readWord())
        case "%": return .argument(try readSpecifier(start: start))
        case "(": return .leftParen
        case ")": return .rightParen
        case "{": return .leftBrace
        case "}": return .rightBrace
        case "[": return .leftBracket
        case "]": return .rightBracket
        case ",": return .comma
        case ".": return .dot
        case "-": return .minus
        case "=":
            if consume("=") { return .comparison(.equal) }
            if consume("<") { return .comparison(.lessThanOrEqual) }
            if consume(">") { return .comparison(.greaterThanOrEqual) }
            return .comparison(.equal)
        case "!":
            return consume("=") ? .comparison(.notEqual) : .not
        case "<":
            if consume("=") { return .comparison(.lessThanOrEqual) }
            if consume(">") { return .comparison(.notEqual) }
            return .comparison(.lessThan)
        case ">":
            return consume("=") ? .comparison(.greaterThanOrEqual) : .comparison(.greaterThan)
        case "&":
            guard consume("&") else {
                throw Failure(code: .invalidToken, offset: start, message: "unexpected '&'; write '&&' or AND")
            }
            return .and
        case "|":
            guard consume("|") else {
                throw Failure(code: .invalidToken, offset: start, message: "unexpected '|'; write '||' or OR")
            }
            return .or
        case "+": return .plus
        case "*": return consume("*") ? .power : .star
        case "/": return .slash
        case ":": return .colon
        default:
            throw Failure(code: .invalidToken, offset: start, message: "unexpected character \(Self.quoted(scalar))")
        }
    }

    private mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        guard peek() == scalar else { return false }
        position += 1
        return true
    }

    /// Names follow Unicode's identifier rules (UAX #31), plus a leading `_`.
    static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isXIDStart
    }

    static func isWordContinuation(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isXIDContinue
    }

    private mutating func readWord(allowingDigitStart: Bool = false) -> String {
        var word = String.UnicodeScalarView()
        if !allowingDigitStart, let first = peek(), !Self.isWordStart(first) { return "" }
        while let scalar = peek(), Self.isWordContinuation(scalar) {
            word.append(scalar)
            position += 1
        }
        return String(word)
    }

    private mutating func readNumber() throws(Failure) -> PredicateToken.Kind {
        let start = position
        if peek() == "0", let prefix = peek(1), let radix = Self.radix(for: prefix) {
            position += 2
            let digitsStart = position
            var magnitude: UInt64 = 0
            var overflow = false
            while let scalar = peek(), let digit = Self.digitValue(scalar), digit < radix {
                let (times, o1) = magnitude.multipliedReportingOverflow(by: UInt64(radix))
                let (sum, o2) = times.addingReportingOverflow(UInt64(digit))
                magnitude = sum
                overflow = overflow || o1 || o2
                position += 1
            }
            if position == digitsStart || peek().map(Self.isWordContinuation) == true {
                while let scalar = peek(), Self.isWordContinuation(scalar) { position += 1 }
                throw Failure(code: .invalidToken, offset: start, message: "invalid number '\(text(start..<position))'")
            }
            if overflow {
                throw Failure(code: .invalidToken, offset: start, message: "integer '\(text(start..<position))' does not fit in 64 bits")
            }
            return .integer(magnitude)
        }
        var isInteger = true
        skipDigits()
        if peek() == ".", let next = peek(1), Self.isDigit(next) {
            isInteger = false
            position += 1
            skipDigits()
        }
        if peek() == "e" || peek() == "E" {
            isInteger = false
            position += 1
            if peek() == "+" || peek() == "-" { position += 1 }
            guard let next = peek(), Self.isDigit(next) else {
                throw Failure(code: .invalidToken, offset: start, message: "invalid number '\(text(start..<position))': expected digits in the exponent")
            }
            skipDigits()
        }
        if let next = peek(), Self.isWordContinuation(next) {
            while let scalar = peek(), Self.isWordContinuation(scalar) { position += 1 }
            throw Failure(code: .invalidToken, offset: start, message: "invalid number '\(text(start..<position))'")
        }
        let lexeme = text(start..<position)
        if isInteger {
            guard let magnitude = UInt64(lexeme) else {
                throw Failure(code: .invalidToken, offset: start, message: "integer '\(lexeme)' does not fit in 64 bits")
            }
            return .integer(magnitude)
        }
        guard let value = Double(lexeme) else {
            throw Failure(code: .invalidToken, offset: start, message: "invalid number '\(lexeme)'")
        }
        return .double(value)
    }

    private static func radix(for scalar: Unicode.Scalar) -> Int? {
        switch scalar {
        case "x", "X": 16
        case "o", "O": 8
        case "b", "B": 2
        default: nil
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && scalar.properties.numericType == .decimal
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0x30...0x39: Int(scalar.value - 0x30)
        case 0x41...0x46: Int(scalar.value - 0x41 + 10)
        case 0x61...0x66: Int(scalar.value - 0x61 + 10)
        default: nil
        }
    }

    private mutating func skipDigits() {
        while let scalar = peek(), Self.isDigit(scalar) { position += 1 }
    }

    private func text(_ range: Range<Int>) -> String {
        String(String.UnicodeScalarView(scalars[range]))
    }

    private mutating func readString(quote: Unicode.Scalar, start: Int) throws(Failure) -> String {
        var value = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw Failure(code: .invalidToken, offset: start, message: "unterminated string: no closing \(quote)")
            }
            position += 1
            if scalar == quote { return String(value) }
            guard scalar == "\\" else {
                value.append(scalar)
                continue
            }
            let escapeStart = position - 1
            guard let escaped = peek() else {
                throw Failure(code: .invalidToken, offset: start, message: "unterminated string: no closing \(quote)")
            }
            position += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "\\", "\"", "'": value.append(escaped)
            case "u": value.append(try readUnicodeEscape(start: escapeStart))
            default:
                throw Failure(
                    code: .invalidToken, offset: escapeStart,
                    message: "unknown escape '\\\(escaped)'; use \\n \\t \\r \\\\ \\\" \\' or \\uXXXX"
                )
            }
        }
    }

    /// `\uXXXX`, with a UTF-16 surrogate pair written as two escapes.
    private mutating func readUnicodeEscape(start: Int) throws(Failure) -> Unicode.Scalar {
        let high = try readHex4(start: start)
        if let scalar = Unicode.Scalar(high) { return scalar }
        if (0xD800...0xDBFF).contains(high), peek() == "\\", peek(1) == "u" {
            position += 2
            let low = try readHex4(start: start)
            if (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            {
                return scalar
            }
        }
        throw Failure(code: .invalidToken, offset: start, message: "invalid \\u escape: a lone UTF-16 surrogate")
    }

    private mutating func readHex4(start: Int) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = peek(), let digit = Self.digitValue(scalar) else {
                throw Failure(code: .invalidToken, offset: start, message: "invalid \\u escape: expected four hexadecimal digits")
            }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }

    /// `%@ %K %d %i %u %f %s`, with the C length modifiers `h hh l ll q` on integers and `l` on `%f`.
    private mutating func readSpecifier(start: Int) throws(Failure) -> String {
        var specifier = "%"
        while let scalar = peek(), specifier.count < 4, scalar.isASCII, Self.isWordContinuation(scalar) || scalar == "@" {
            specifier.unicodeScalars.append(scalar)
            position += 1
            if Self.specifiers.contains(specifier) { return specifier }
        }
        throw Failure(
            code: .invalidToken, offset: start,
            message: "unknown format specifier '\(specifier)'; use %@, %K, %d, %i, %f or %s"
        )
    }

    static let integerSpecifiers: Set<String> = {
        var all: Set<String> = []
        for modifier in ["", "h", "hh", "l", "ll", "q"] {
            for conversion in ["d", "i", "u"] { all.insert("%" + modifier + conversion) }
        }
        return all
    }()
    static let specifiers: Set<String> = integerSpecifiers.union(["%@", "%K", "%f", "%lf", "%s"])

    static func quoted(_ scalar: Unicode.Scalar) -> String {
        if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace {
            return "U+" + String(scalar.value, radix: 16, uppercase: true)
        }
        return "'\(scalar)'"
    }
}
