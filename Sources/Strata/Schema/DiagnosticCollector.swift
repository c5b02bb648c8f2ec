/// Gathers diagnostics while a model is read, and knows where in the file each JSON path is.
struct DiagnosticCollector {
    let file: String?
    private(set) var diagnostics: [Diagnostic] = []
    /// The source location of every value read so far, by JSON path.
    var locations: [String: SourceLocation] = [:]

    init(file: String?) {
        self.file = file
    }

    var hasErrors: Bool { diagnostics.hasErrors }

    mutating func error(_ code: String, _ message: String, at path: String, location: SourceLocation? = nil) {
        report(.error, code, message, at: path, location: location)
    }

    mutating func warning(_ code: String, _ message: String, at path: String, location: SourceLocation? = nil) {
        report(.warning, code, message, at: path, location: location)
    }

    mutating func report(
        _ severity: Diagnostic.Severity, _ code: String, _ message: String,
        at path: String, location: SourceLocation? = nil
    ) {
        diagnostics.append(Diagnostic(
            severity: severity, code: code, message: message, path: path,
            file: file, location: location ?? self.location(of: path)))
    }

    /// The location of `path`, or of its nearest enclosing value that has one.
    func location(of path: String) -> SourceLocation? {
        var path = Substring(path)
        while true {
            if let location = locations[String(path)] { return location }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else {
                return locations[""]
            }
            path = path[..<cut]
        }
    }

    /// Diagnostics in the order a reader meets them in the file; those without a location last.
    func sortedDiagnostics() -> [Diagnostic] {
        diagnostics.enumerated().sorted { lhs, rhs in
            let l = (lhs.element.line ?? .max, lhs.element.column ?? .max, lhs.offset)
            let r = (rhs.element.line ?? .max, rhs.element.column ?? .max, rhs.offset)
            return l < r
        }.map(\.element)
    }
}

/// Reads one JSON object of the model file: reports unknown keys (with a near-miss suggestion)
/// and values of the wrong JSON type, and records where every member is.
struct ObjectReader {
    let path: String
    let location: SourceLocation?
    private let members: [String: JSONMember]

    /// - Parameters:
    ///   - what: how to name the object in messages ("attribute", "entity").
    ///   - knownKeys: the keys this kind of object takes.
    ///   - misplacedKeys: keys that belong to a sibling kind, with a hint where they go.
    init?(
        _ node: JSONNode, path: String, what: String, knownKeys: [String],
        misplacedKeys: (keys: Set<String>, hint: String)? = nil,
        collector: inout DiagnosticCollector
    ) {
        self.path = path
        self.location = node.location
        guard let members = node.value.objectMembers else {
            collector.error("wrongType", "expected \(what) as a JSON object, found \(node.value.kindName)", at: path, location: node.location)
            return nil
        }
        var byKey: [String: JSONMember] = [:]
        for member in members {
            let memberPath = Self.childPath(path, member.key)
            if knownKeys.contains(member.key) {
                byKey[member.key] = member
                collector.locations[memberPath] = member.value.location
                continue
            }
            var message = "unknown key '\(member.key)' in \(what)"
            if let misplacedKeys, misplacedKeys.keys.contains(member.key) {
                message += "; \(misplacedKeys.hint)"
            } else if let suggestion = Suggestion.closest(to: member.key, in: knownKeys) {
                message += "; did you mean '\(suggestion)'?"
            } else {
                message += "; expected one of \(knownKeys.filter { $0 != "$schema" }.map { "'\($0)'" }.joined(separator: ", "))"
            }
            collector.error("unknownKey", message, at: memberPath, location: member.keyLocation)
        }
        self.members = byKey
    }

    static func childPath(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    func path(_ key: String) -> String { Self.childPath(path, key) }

    func node(_ key: String) -> JSONNode? {
        guard let node = members[key]?.value, node.value != .null else { return nil }
        return node
    }

    func has(_ key: String) -> Bool { node(key) != nil }

    func string(_ key: String, required: String? = nil, collector: inout DiagnosticCollector) -> String? {
        guard let node = node(key) else {
            if let required {
                collector.error("missingKey", "\(required) is missing its required '\(key)'", at: path, location: location)
            }
            return nil
        }
        guard let string = node.value.stringValue else {
            collector.error("wrongType", "'\(key)' must be a string, found \(node.value.kindName)", at: path(key))
            return nil
        }
        return string
    }

    func bool(_ key: String, collector: inout DiagnosticCollector) -> Bool? {
        guard let node = node(key) else { return nil }
        guard let bool = node.value.boolValue else {
            collector.error("wrongType", "'\(key)' must be true or false, found \(node.value.kindName)", at: path(key))
            return nil
        }
        return bool
    }

    /// A non-negative whole number.
    func count(_ key: String, collector: inout DiagnosticCollector) -> Int? {
        guard let node = node(key) else { return nil }
        guard let lexeme = node.value.numberLexeme, let value = Int(lexeme), value >= 0 else {
            let found = node.value.numberLexeme ?? node.value.kindName
            collector.error("wrongType", "'\(key)' must be a whole number of 0 or more, found \(found)", at: path(key))
            return nil
        }
        return value
    }

    func array(_ key: String, required: String? = nil, collector: inout DiagnosticCollector) -> [JSONNode]? {
        guard let node = node(key) else {
            if let required {
                collector.error("missingKey", "\(required) is missing its required '\(key)'", at: path, location: location)
            }
            return nil
        }
        guard let elements = node.value.arrayElements else {
            collector.error("wrongType", "'\(key)' must be an array, found \(node.value.kindName)", at: path(key))
            return nil
        }
        return elements
    }
}
