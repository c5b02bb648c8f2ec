package import Foundation

/// JSON text written as UTF-8 bytes into a buffer that is handed to a sink whenever it holds
/// `chunkSize` bytes, so that a large document is never whole in memory. Strings are escaped
/// as ``JSONWriter`` escapes them: only `"`, `\` and control characters.
package struct JSONOutput {
    private var bytes: [UInt8] = []
    private let chunkSize: Int
    private let sink: (Data) throws(StrataError) -> Void

    package init(chunkSize: Int = 1 << 16, sink: @escaping (Data) throws(StrataError) -> Void) {
        self.chunkSize = chunkSize
        self.sink = sink
        bytes.reserveCapacity(chunkSize + 1024)
    }

    package mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `text` as it is (a number's lexeme, say), not as a JSON string.
    package mutating func append(raw text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    package mutating func append(_ value: Int64) {
        append(raw: String(value))
    }

    /// A line break and `level` levels of two-space indentation.
    package mutating func newline(indent level: Int) {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<(level * 2) { bytes.append(UInt8(ascii: " ")) }
    }

    /// `string` as a JSON string, in double quotes.
    package mutating func append(string: String) {
        Self.appendEscaped(string, to: &bytes)
    }

    /// A scalar JSON value (objects and arrays are written piece by piece).
    package mutating func append(scalar value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let bool): bool ? append("true") : append("false")
        case .number(let lexeme): append(raw: lexeme)
        case .string(let string): append(string: string)
        case .object, .array: preconditionFailure("JSONOutput.append(scalar:) takes no object or array")
        }
    }

    /// Hands the buffer to the sink once it holds a chunk.
    package mutating func flushIfFull() throws(StrataError) {
        if bytes.count >= chunkSize { try flush() }
    }

    /// Hands whatever the buffer holds to the sink.
    package mutating func flush() throws(StrataError) {
        guard !bytes.isEmpty else { return }
        let chunk = Data(bytes)
        bytes.removeAll(keepingCapacity: true)
        try sink(chunk)
    }

    /// Appends `string` in double quotes, escaping `"`, `\` and control characters.
    package static func appendEscaped(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
                case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
                default:
                    let hex = Array(String(byte, radix: 16, uppercase: true).utf8)
                    bytes += Array("\\u".utf8) + Array(repeating: UInt8(ascii: "0"), count: 4 - hex.count) + hex
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
