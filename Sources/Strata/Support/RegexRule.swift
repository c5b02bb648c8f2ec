internal import Foundation

/// Regular expressions as `MATCHES` and the `regex` rule of string attributes use them: ICU
/// syntax (that of `NSRegularExpression`), matching the whole string.
///
/// A match is decided or it is an error, never a silent "no": ICU (as Foundation calls it on
/// Linux) gives up on a match that backtracks too much and reports no match, without an error
/// flag. So the work of each match is bounded here (about ``maximumSteps`` steps of the
/// engine), and a match that reaches the bound, or that ICU stops for lack of stack (reported
/// as `.internalError`), throws ``Failure``.
package enum RegexRule {
    /// Why a match could not be decided.
    package struct Failure: Error, Sendable, Hashable {
        /// The pattern as written.
        package var pattern: String

        package init(pattern: String) {
            self.pattern = pattern
        }

        /// "the pattern '…' could not be evaluated: …", for messages.
        package var reason: String {
            "the pattern \(RegexRule.quoted(pattern)) could not be evaluated: the match exceeded the regular expression engine's limits (too much backtracking or nesting); simplify the pattern, for example by removing nested quantifiers such as (a+)+"
        }
    }

    /// About how many steps of the engine one match may take. ICU reports progress to
    /// `NSRegularExpression` every 10,000 steps or so, and a match is abandoned at the 1,000th
    /// report (a fraction of a second). On the W1 pattern, `(a+)+c|a*!` over 25 `a`s and `!`,
    /// ICU itself gave up silently after 4,231 reports, so this bound is met well before.
    package static let maximumSteps = 10_000_000
    private static let maximumProgressReports = maximumSteps / 10_000

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
    /// - Throws: ``Failure`` when the engine could not decide.
    package static func matches(_ pattern: String, _ string: String) throws(Failure) -> Bool {
        try matches(pattern, string, caseInsensitive: false)
    }

    /// The whole-string match of `pattern` (a `[c]` MATCHES folds case in the engine).
    package static func matches(_ pattern: String, _ string: String, caseInsensitive: Bool, reportedPattern: String? = nil) throws(Failure) -> Bool {
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        guard let expression = try? NSRegularExpression(pattern: anchored(pattern), options: options) else { return false }
        let range = NSRange(string.startIndex..<string.endIndex, in: string)
        var matched = false
        var failed = false
        var reports = 0
        expression.enumerateMatches(in: string, options: [.reportProgress, .reportCompletion], range: range) { match, flags, stop in
            if match != nil {
                matched = true
                stop.pointee = true
            }
            if flags.contains(.internalError) { failed = true }
            if flags.contains(.progress) {
                reports += 1
                if reports >= maximumProgressReports {
                    failed = true
                    stop.pointee = true
                }
            }
        }
        if failed && !matched { throw Failure(pattern: reportedPattern ?? pattern) }
        return matched
    }

    private static func anchored(_ pattern: String) -> String {
        "\\A(?:" + pattern + ")\\z"
    }

    /// The pattern in quotes, shortened when long.
    static func quoted(_ pattern: String) -> String {
        let shown = pattern.count > 80 ? pattern.prefix(79) + "…" : pattern
        return String(reflecting: String(shown))
    }
}
