package import Foundation

/// A JSON syntax error with the line and column where the text stops being JSON.
package struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    package var location: SourceLocation

    package var description: String { "\(location): \(message)" }
}

/// A strict RFC 8259 parser that records where every value starts.
///
/// Strata parses its own JSON instead of using `JSONSerialization` because model and data files
/// need diagnostics with `file:line:column`, exact number text, member order, and duplicate-key
/// detection. Nesting is bounded so a hostile file cannot exhaust the stack. The tree is built
/// with ``JSONReader``; large inputs that need no tree (data files) use the reader directly.
package enum JSONParser {
    package static let maximumDepth = 512

    /// Parses a whole document; anything but white space after the top-level value is an error.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        try parse(Data(bytes))
    }

    /// Parses a whole document; anything but white space after the top-level value is an error.
    package static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONNode {
        var reader = JSONReader(source: JSONMemorySource(data, chunkSize: max(data.count, 1)), bufferSize: data.count + 1)
        let node = try reader.readValue(startingWith: reader.next())
        _ = try reader.next() // .endOfDocument, or the error of what follows
        return node
    }
}
