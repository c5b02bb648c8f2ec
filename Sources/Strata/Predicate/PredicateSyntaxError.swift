/// A predicate format string that could not be parsed, or whose arguments do not fit it.
///
/// `description` is written for a terminal: the message, then the format with a caret under the
/// column where the problem is:
/// ```
/// invalid predicate: expected a value after '==' at column 9
///   title ==
///           ^
/// ```
public struct PredicateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Text that is not a token: a stray character, a bad number, string or escape, an
        /// unknown `%` specifier.
        case invalidToken
        /// Tokens in an order the grammar does not allow.
        case unexpectedToken
        /// Well-formed but meaningless: an unknown collection operator, comparison option or
        /// function, a function given the wrong number of arguments, `BETWEEN` without two
        /// bounds, an unsupported `CAST`.
        case invalidConstruct
        /// An argument whose type does not fit its specifier (`%d` given a string, `%K` given
        /// something other than a key path).
        case invalidArgument
        /// More specifiers than arguments, or more arguments than specifiers.
        case wrongArgumentCount
        /// Parentheses, `NOT`s, arrays, `CAST`s, `SUBQUERY`s, function calls, subscripts,
        /// unary minuses or `**` nested deeper than ``PredicateSyntaxError/maximumNestingDepth``.
        case nestingTooDeep
    }

    /// How deeply parentheses, `NOT`, arrays, `CAST` and `SUBQUERY` may nest: far more than any
    /// real predicate needs, few enough that parsing never risks a secondary thread's stack.
    public static let maximumNestingDepth = 64

    public var code: Code
    /// The format string as given.
    public var format: String
    /// Where the problem is: 1-based, counted in characters; `format.count + 1` means the end.
    public var column: Int
    /// What is wrong, and what would fix it when that is clear.
    public var message: String

    /// An error at `column` (1-based, in characters) of `format`.
    public init(code: Code, format: String, column: Int, message: String) {
        self.code = code
        self.format = format
        self.column = column
        self.message = message
    }

    public var description: String {
        // Tabs and line breaks become spaces so that the caret lines up under its column.
        let line = String(format.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        let caret = String(repeating: " ", count: max(column - 1, 0)) + "^"
        return "invalid predicate: \(message) at column \(column)\n  \(line)\n  \(caret)"
    }
}
