/// A model that could not be loaded: the file could not be read, or it has errors.
///
/// `description` lists every error, one compiler-style line each, ready for a terminal.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// The file does not exist or cannot be read.
        case unreadableFile
        /// The text is not JSON, or the model breaks a rule; `diagnostics` says where.
        case invalidSchema
    }

    public var code: Code
    /// The file as the caller named it, when the model came from a file.
    public var file: String?
    /// Every problem found (errors and warnings), in the order they appear in the file.
    public var diagnostics: [Diagnostic]
    /// The underlying reason for `unreadableFile`.
    public var reason: String?

    public init(code: Code, file: String? = nil, diagnostics: [Diagnostic] = [], reason: String? = nil) {
        self.code = code
        self.file = file
        self.diagnostics = diagnostics
        self.reason = reason
    }

    public var description: String {
        switch code {
        case .unreadableFile:
            return "\(file ?? "model file"): error: cannot read the file: \(reason ?? "unknown error")"
        case .invalidSchema:
            let errors = diagnostics.errors
            let heading = "\(file ?? "the model") has \(errors.count) error\(errors.count == 1 ? "" : "s")"
            return ([heading + ":"] + diagnostics.map { "  " + $0.description }).joined(separator: "\n")
        }
    }
}

/// What loading a model found: the schema when it has no errors, and every diagnostic.
public struct SchemaLoadResult: Sendable {
    /// The loaded model; nil when `diagnostics` holds an error.
    public var schema: Schema?
    /// Errors and warnings in file order.
    public var diagnostics: [Diagnostic]

    public var isValid: Bool { schema != nil }
}
