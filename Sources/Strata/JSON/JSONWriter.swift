/// Writes `JSONValue` trees as deterministic text: two-space indentation, `": "` separators,
/// numbers exactly as their lexeme, non-ASCII kept as UTF-8, and only `"`, `\` and control
/// characters escaped. With `sortKeys`, object members are written in code-point order of their
/// keys (the canonical form of `strata dump`); without, in the order they were given.
package struct JSONWriter {
    package var sortKeys: Bool
    package var pretty: Bool

    package init(sortKeys: Bool = false, pretty: Bool = true) {
        self.sortKeys = sortKeys
        self.pretty = pretty
    }

    package func string(from value: JSONValue) -> String {
        var output = ""
        write(value, indent: 0, into: &output)
        if pretty { output += "\n" }
        return output
    }

    package func write(_ value: JSONValue, indent: Int, into output: inout String) {
        switch value {
        case .null:
            output += "null"
        case .bool(let bool):
            output += bool ? "true" : "false"
        case .number(let lexeme):
            output += lexeme
        case .string(let string):
            Self.writeString(string, into: &output)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                newline(indent: indent + 1, into: &output)
                write(element.value, indent: indent + 1, into: &output)
            }
            newline(indent: indent, into: &output)
            output += "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            let ordered = sortKeys
                ? members.sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }
                : members
            output += "{"
            for (position, member) in ordered.enumerated() {
                if position > 0 { output += "," }
                newline(indent: indent + 1, into: &output)
                Self.writeString(member.key, into: &output)
                output += pretty ? ": " : ":"
                write(member.value.value, indent: indent + 1, into: &output)
            }
            newline(indent: indent, into: &output)
            output += "}"
        }
    }

    private func newline(indent: Int, into output: inout String) {
        guard pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    package static func writeString(_ string: String, into output: inout String) {
        var bytes: [UInt8] = []
        JSONOutput.appendEscaped(string, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }
}
