/// One problem found in a model file: what is wrong, how to fix it, and exactly where.
///
/// `description` reads like a compiler's message:
/// ```
/// Schemas/x.json:12:7: error: unknown attribute type 'strng'; did you mean 'string'? [entities[0].attributes[1].type]
/// ```
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        case warning
        case error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .warning && rhs == .error
        }
    }

    public var severity: Severity
    /// A stable identifier of the rule, for tools and tests (`unknownKey`, `missingInverse`, …).
    public var code: String
    public var message: String
    /// The JSON path of the offending value, like `entities[4].relationships[0].inverse`;
    /// empty for the document as a whole.
    public var path: String
    /// The file as the caller named it, when the model came from a file.
    public var file: String?
    public var line: Int?
    public var column: Int?

    public init(
        severity: Severity, code: String, message: String, path: String,
        file: String? = nil, location: SourceLocation? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.path = path
        self.file = file
        self.line = location?.line
        self.column = location?.column
    }

    public var location: SourceLocation? {
        guard let line, let column else { return nil }
        return SourceLocation(line: line, column: column)
    }

    public var isError: Bool { severity == .error }

    public var description: String {
        var text = ""
        if let file {
            text += file
            if let line, let column { text += ":\(line):\(column)" }
            text += ": "
        } else if let line, let column {
            text += "\(line):\(column): "
        }
        text += "\(severity.rawValue): \(message)"
        if !path.isEmpty { text += " [\(path)]" }
        return text
    }
}

extension Array where Element == Diagnostic {
    public var errors: [Diagnostic] { filter(\.isError) }
    public var warnings: [Diagnostic] { filter { !$0.isError } }
    public var hasErrors: Bool { contains(where: \.isError) }
}
