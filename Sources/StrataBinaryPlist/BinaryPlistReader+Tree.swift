package import Foundation
package import Strata

/// A small property list read whole into memory: for other modules of the package that read a
/// `bplist00` blob, such as the metadata plist of a Core Data store.
package enum PropertyListValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00:00 UTC, as the format stores them.
    case date(Double)
    case data(Data)
    case uid(UInt64)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    case null

    /// The value as one line of text: strings as they are, numbers and booleans as written in
    /// JSON, data as base64, dates in ISO 8601, arrays and dictionaries as JSON-like text.
    package var text: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .bool(let value): String(value)
        case .date(let value): ISO8601.string(from: Date(timeIntervalSinceReferenceDate: value))
        case .data(let value): value.base64EncodedString()
        case .uid(let value): "UID(\(value))"
        case .array(let values): "[" + values.map(\.quotedText).joined(separator: ", ") + "]"
        case .dictionary(let values):
            "{" + values.keys.sorted().map { "\(PropertyListValue.string($0).quotedText): \(values[$0]!.quotedText)" }.joined(separator: ", ") + "}"
        case .null: "null"
        }
    }

    private var quotedText: String {
        guard case .string(let value) = self else { return text }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension PropertyListValue {
    /// Reads a whole `bplist00` property list. Damaged input throws `corruptStore` naming
    /// `file` and the byte offset; dictionary keys must be strings.
    package init(binaryPlist data: Data, file: String) throws(StrataError) {
        let reader = try BinaryPlistReader(PlistBytes(copying: data), file: file)
        self = try reader.tree(reader.topObject, depth: 0)
    }
}

extension BinaryPlistReader {
    /// How deeply containers may nest: a damaged file whose container holds itself would
    /// otherwise recurse without end.
    static let maximumTreeDepth = 64

    fileprivate func tree(_ ref: Int, depth: Int) throws(StrataError) -> PropertyListValue {
        let offset = try offset(of: ref)
        guard depth <= Self.maximumTreeDepth else {
            throw corrupt("containers nest more than \(Self.maximumTreeDepth) deep (a container that holds itself?)", at: offset)
        }
        let object = try object(ref, at: offset)
        switch object {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .integer(value)
        case .real(let value, _): return .real(value)
        case .date(let value): return .date(value)
        case .data(let range): return .data(data(range))
        case .asciiString, .utf16String: return .string(try string(object, at: offset) ?? "")
        case .uid(let value): return .uid(value)
        case .array(let container), .set(let container):
            var values: [PropertyListValue] = []
            for index in 0..<container.count {
                values.append(try tree(try reference(index, in: container), depth: depth + 1))
            }
            return .array(values)
        case .dictionary(let container):
            var values: [String: PropertyListValue] = [:]
            for index in 0..<container.count {
                let keyRef = try reference(index, in: container)
                guard case .string(let key) = try tree(keyRef, depth: depth + 1) else {
                    throw corrupt("a dictionary key that is not a string", at: container.offset)
                }
                values[key] = try tree(try reference(container.count + index, in: container), depth: depth + 1)
            }
            return .dictionary(values)
        }
    }
}
