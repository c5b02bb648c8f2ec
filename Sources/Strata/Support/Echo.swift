/// User data echoed in messages and tables, made safe for a terminal: control characters
/// (C0, DEL, C1 — newlines, ESC, NUL …) are written as escapes, and long values are cut.
///
/// A value from a file or an argument can hold anything; printed raw, an ESC sequence rewrites
/// the terminal, a NUL or a newline forges output lines, and a 50 KB value buries the message.
package enum Echo {
    /// How many characters of a value a message shows.
    package static let valueLimit = 200
    /// How many characters of one line of a message are shown.
    package static let lineLimit = 1_000

    /// `text` with every control character escaped (`\n`, `\t`, `\r`, else `\u{1B}`), cut to
    /// `limit` characters with "…" after it.
    package static func value(_ text: String, limit: Int = valueLimit) -> String {
        cut(escaped(text, keepingNewlines: false), limit: limit)
    }

    /// A message of several lines: control characters other than newline (and tab) escaped,
    /// each line cut to ``lineLimit`` characters.
    package static func message(_ text: String) -> String {
        escaped(text, keepingNewlines: true)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { cut(String($0), limit: lineLimit) }
            .joined(separator: "\n")
    }

    /// One line: control characters escaped (newlines too), cut to ``lineLimit`` characters.
    package static func line(_ text: String) -> String {
        cut(escaped(text, keepingNewlines: false), limit: lineLimit)
    }

    /// True for the scalars a terminal treats as control: C0, DEL and C1.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func escaped(_ text: String, keepingNewlines: Bool) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\n" where keepingNewlines, "\t" where keepingNewlines:
                result.append(scalar)
                continue
            case "\n": escape = "\\n"
            case "\t": escape = "\\t"
            case "\r": escape = "\\r"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escape = "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
            }
            result.append(contentsOf: escape.unicodeScalars)
        }
        return String(result)
    }

    private static func cut(_ text: String, limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }
}
