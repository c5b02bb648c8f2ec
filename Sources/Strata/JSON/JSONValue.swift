/// A position in a text file: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A JSON document tree that keeps what Strata needs and `JSONSerialization` loses:
/// the order of object members, the exact text of every number (so an int64 above 2^53 or a
/// 30-digit decimal stays exact), and the source location of every value and key.
package indirect enum JSONValue: Sendable, Hashable {
    case object([JSONMember])
    case array([JSONNode])
    case string(String)
    /// The number exactly as written (a valid JSON number lexeme).
    case number(String)
    case bool(Bool)
    case null

    /// The JSON name of the kind of value, for messages ("expected a string, found an array").
    package var kindName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// A JSON value with where it starts in the source text (nil for values built in code).
package struct JSONNode: Sendable, Hashable {
    package var value: JSONValue
    package var location: SourceLocation?

    package init(_ value: JSONValue, at location: SourceLocation? = nil) {
        self.value = value
        self.location = location
    }
}

/// One `"key": value` member of a JSON object.
package struct JSONMember: Sendable, Hashable {
    package var key: String
    package var keyLocation: SourceLocation?
    package var value: JSONNode

    package init(key: String, keyLocation: SourceLocation? = nil, value: JSONNode) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}

extension JSONValue {
    package var objectMembers: [JSONMember]? {
        if case .object(let members) = self { return members }
        return nil
    }

    package var arrayElements: [JSONNode]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    package var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    package var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    package var numberLexeme: String? {
        if case .number(let lexeme) = self { return lexeme }
        return nil
    }

    /// Convenience for building objects in code; members keep the given order.
    package static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { JSONMember(key: $0.key, value: JSONNode($0.value)) })
    }

    package static func array(_ values: [JSONValue]) -> JSONValue {
        .array(values.map { JSONNode($0) })
    }
}
