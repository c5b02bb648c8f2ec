internal import Foundation

/// The string semantics of predicates and sorting, shared by every store (the SQLite store
/// registers these same functions), so that a comparison gives the same answer everywhere.
///
/// Strings compare as Swift `String`s do: canonically equivalent strings are equal (composed
/// "É" equals "E" + U+0301). `[c]` folds case and `[d]` removes diacritics before comparing.
/// Stored strings are never changed: folding happens on copies, at comparison time.
package enum StringMatching {
    /// The string as the options see it: case-folded and/or without diacritics.
    package static func fold(_ string: String, _ options: ComparisonOptions) -> String {
        var foldOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldOptions.insert(.diacriticInsensitive) }
        guard !foldOptions.isEmpty else { return string }
        return string.folding(options: foldOptions, locale: nil)
    }

    package static func equal(_ a: String, _ b: String, _ options: ComparisonOptions) -> Bool {
        fold(a, options) == fold(b, options)
    }

    /// -1, 0 or 1 in the order of the strings' NFC forms, Unicode scalar by scalar (which is
    /// their UTF-8 byte order): canonically equivalent strings are equal, as with Swift `==`.
    ///
    /// This is the order Swift documents for `String` `<`, but not always the one it computes:
    /// when one string is a prefix of the other before normalisation, Swift 6.3's `<` answers
    /// without normalising the rest ("\u{369}" < "\u{369}\u{31B}", although the second string's
    /// NFC form starts with U+031B), and "\u{F71}" vs "\u{F73}" is neither `<`, `>` nor `==`.
    /// The NFC byte order is a total order that a SQLite index on ``normalized(_:)`` reproduces
    /// with its built-in BINARY collation.
    package static func compare(_ a: String, _ b: String, _ options: ComparisonOptions) -> Int {
        let x = fold(a, options), y = fold(b, options)
        if x == y { return 0 }
        if isASCII(x) && isASCII(y) { return x < y ? -1 : 1 }
        return x._nfcCodeUnits.lexicographicallyPrecedes(y._nfcCodeUnits) ? -1 : 1
    }

    /// The string's NFC form (Swift's own normalisation, the one `String` `==` uses), or nil
    /// when the string is already in it — as nearly every string is.
    package static func normalized(_ string: String) -> String? {
        if isASCII(string) { return nil }
        let units = string._nfcCodeUnits
        if units.elementsEqual(string.utf8) { return nil }
        return String(decoding: units, as: UTF8.self)
    }

    /// Whether every byte of the string is ASCII (which is always in NFC), eight bytes at a time.
    package static func isASCII(_ string: String) -> Bool {
        var string = string
        return string.withUTF8(isASCII)
    }

    /// Whether every byte is ASCII, eight bytes at a time.
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var high: UInt64 = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    package static func beginsWith(_ string: String, _ prefix: String, _ options: ComparisonOptions) -> Bool {
        let s = Array(fold(string, options)), p = Array(fold(prefix, options))
        return s.count >= p.count && s[..<p.count].elementsEqual(p)
    }

    package static func endsWith(_ string: String, _ suffix: String, _ options: ComparisonOptions) -> Bool {
        let s = Array(fold(string, options)), p = Array(fold(suffix, options))
        return s.count >= p.count && s[(s.count - p.count)...].elementsEqual(p)
    }

    /// Substring search by `Character`s, so "e" is not found inside "é".
    package static func contains(_ string: String, _ needle: String, _ options: ComparisonOptions) -> Bool {
        let s = Array(fold(string, options)), n = Array(fold(needle, options))
        if n.isEmpty { return true }
        guard s.count >= n.count else { return false }
        for start in 0...(s.count - n.count) where s[start] == n[0] {
            if s[start..<(start + n.count)].elementsEqual(n) { return true }
        }
        return false
    }

    /// `LIKE`: `*` matches any run of characters (also none), `?` exactly one; `\*`, `\?` and
    /// `\\` match themselves. The whole string must match.
    package static func like(_ string: String, _ pattern: String, _ options: ComparisonOptions) -> Bool {
        enum Token: Equatable { case character(Character), one, any }
        var tokens: [Token] = []
        var escaped = false
        for character in fold(pattern, options) {
            if escaped {
                tokens.append(.character(character))
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "*" {
                if tokens.last != .any { tokens.append(.any) }
            } else if character == "?" {
                tokens.append(.one)
            } else {
                tokens.append(.character(character))
            }
        }
        if escaped { tokens.append(.character("\\")) }
        let s = Array(fold(string, options))
        // Iterative wildcard matching with backtracking to the last '*': O(n·m) worst case.
        var si = 0, ti = 0
        var starToken = -1, starString = 0
        while si < s.count {
            if ti < tokens.count, tokens[ti] == .one || tokens[ti] == .character(s[si]) {
                si += 1
                ti += 1
            } else if ti < tokens.count, tokens[ti] == .any {
                starToken = ti
                starString = si
                ti += 1
            } else if starToken >= 0 {
                ti = starToken + 1
                starString += 1
                si = starString
            } else {
                return false
            }
        }
        while ti < tokens.count, tokens[ti] == .any { ti += 1 }
        return ti == tokens.count
    }

    /// `MATCHES`: an ICU regular expression over the whole string. An invalid pattern matches
    /// nothing (predicates are validated before they run, so this is not reached from a fetch).
    /// - Throws: ``RegexRule/Failure`` when the engine could not decide (see ``RegexRule``).
    package static func matches(_ string: String, _ pattern: String, _ options: ComparisonOptions) throws(RegexRule.Failure) -> Bool {
        let subject = fold(string, options.subtracting(.caseInsensitive))
        let folded = fold(pattern, options.subtracting(.caseInsensitive))
        return try RegexRule.matches(folded, subject, caseInsensitive: options.contains(.caseInsensitive), reportedPattern: pattern)
    }

    /// Finder-style order: digit runs compare by numeric value ("file2" before "file10"); other
    /// characters case- and diacritic-insensitively, with spaces, punctuation and symbols before
    /// digits and digits before letters ("file 2" and "file-a" before "file1"); ties are broken by
    /// plain `String` order.
    package static func localizedStandardCompare(_ a: String, _ b: String) -> Int {
        let x = Array(fold(a, [.caseInsensitive, .diacriticInsensitive]))
        let y = Array(fold(b, [.caseInsensitive, .diacriticInsensitive]))
        var i = 0, j = 0
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                let (startI, startJ) = (i, j)
                while i < x.count, isDigit(x[i]) { i += 1 }
                while j < y.count, isDigit(y[j]) { j += 1 }
                let l = x[startI..<i].drop { $0 == "0" }, r = y[startJ..<j].drop { $0 == "0" }
                if l.count != r.count { return l.count < r.count ? -1 : 1 }
                if !l.elementsEqual(r) { return l.lexicographicallyPrecedes(r) ? -1 : 1 }
            } else {
                let (p, q) = (rank(x[i]), rank(y[j]))
                if p != q { return p < q ? -1 : 1 }
                if x[i] != y[j] { return x[i] < y[j] ? -1 : 1 }
                i += 1
                j += 1
            }
        }
        if i < x.count || j < y.count { return i < x.count ? 1 : -1 }
        return a == b ? 0 : a < b ? -1 : 1
    }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    /// Spaces, punctuation and symbols first, then digits, then letters (and other numerals).
    private static func rank(_ character: Character) -> Int {
        isDigit(character) ? 1 : character.isLetter || character.isNumber ? 2 : 0
    }
}
