internal import Foundation

/// The `regex` rule of string attributes: an ICU regular expression (the syntax of
/// `NSRegularExpression` and of NSPredicate's MATCHES) that must match the whole string.
package enum RegexRule {
    /// Why `pattern` does not compile, or nil when it does.
    package static func compileError(_ pattern: String) -> String? {
        do {
            _ = try NSRegularExpression(pattern: anchored(pattern))
            return nil
        } catch {
            return "'\(pattern)' is not a valid ICU regular expression"
        }
    }

    /// True when the whole of `string` matches `pattern`; false also when it does not compile.
    package static func matches(_ pattern: String, _ string: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: anchored(pattern)) else { return false }
        let range = NSRange(string.startIndex..<string.endIndex, in: string)
        return expression.firstMatch(in: string, options: [], range: range) != nil
    }

    private static func anchored(_ pattern: String) -> String {
        "\\A(?:" + pattern + ")\\z"
    }
}
