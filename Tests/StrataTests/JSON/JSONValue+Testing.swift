import Strata

extension JSONValue {
    /// The same tree with every source location removed, so that a parsed value compares equal
    /// to one built in code.
    var withoutLocations: JSONValue {
        switch self {
        case .object(let members):
            .object(members.map { JSONMember(key: $0.key, value: JSONNode($0.value.value.withoutLocations)) })
        case .array(let elements):
            .array(elements.map { JSONNode($0.value.withoutLocations) })
        case .string, .number, .bool, .null:
            self
        }
    }
}

/// Parses UTF-8 text with `JSONParser`.
func parseJSON(_ text: String) throws(JSONSyntaxError) -> JSONNode {
    try JSONParser.parse(Array(text.utf8))
}

/// The syntax error `JSONParser` reports for `bytes`, or nil when they parse.
func jsonSyntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}
