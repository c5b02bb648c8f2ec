internal import Foundation
package import Strata

/// Any binary property list decoded whole into a tree, with the same checks as the store reader:
/// for tests and tools that look inside a file.
package indirect enum BinaryPlistValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    /// An 8-byte real.
    case real(Double)
    /// A 4-byte real.
    case float(Float)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case data([UInt8])
    case string(String)
    case uid(UInt64)
    case array([BinaryPlistValue])
    case set([BinaryPlistValue])
    /// Dictionaries with string keys only (as every Strata file has).
    case dictionary([String: BinaryPlistValue])

    /// The deepest nesting ``decode(_:file:)`` follows.
    package static let maximumDepth = 256

    package subscript(key: String) -> BinaryPlistValue? {
        if case .dictionary(let dictionary) = self { return dictionary[key] }
        return nil
    }

    package subscript(index: Int) -> BinaryPlistValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// Decodes a whole `bplist00` file.
    /// - Throws: `corruptStore` naming what is wrong and the byte offset: damaged structure, a
    ///   container that contains itself, nesting deeper than ``maximumDepth``, shared containers
    ///   that would make the tree larger than the file allows.
    package static func decode<Bytes: Collection>(_ bytes: Bytes, file: String = "<memory>") throws(StrataError) -> BinaryPlistValue where Bytes.Element == UInt8 {
        var decoder = TreeDecoder(reader: try BinaryPlistReader(PlistBytes(copying: bytes), file: file))
        return try decoder.value(decoder.reader.topObject)
    }
}

private struct TreeDecoder {
    let reader: BinaryPlistReader
    var budget: Int
    var path: [Int] = []

    init(reader: BinaryPlistReader) {
        self.reader = reader
        budget = (reader.tableOffset - BinaryPlistReader.header.count) / reader.refSize + 16
    }

    mutating func value(_ ref: Int) throws(StrataError) -> BinaryPlistValue {
        let offset = try reader.offset(of: ref)
        let object = try reader.object(ref, at: offset)
        switch object {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .real(let value, let byteCount): return byteCount == 4 ? .float(Float(value)) : .real(value)
        case .date(let value): return .date(value)
        case .data(let range): return .data(Array(UnsafeRawBufferPointer(rebasing: reader.bytes[range])))
        case .asciiString, .utf16String: return .string(try reader.string(object, at: offset)!)
        case .uid(let value): return .uid(value)
        case .array(let container), .set(let container), .dictionary(let container):
            try enter(container, offset: offset)
            defer { path.removeLast() }
            if case .dictionary = object {
                var result: [String: BinaryPlistValue] = [:]
                for index in 0..<container.count {
                    let keyRef = try reader.reference(index, in: container)
                    let keyOffset = try reader.offset(of: keyRef)
                    let keyObject = try reader.object(keyRef, at: keyOffset)
                    guard let key = try reader.string(keyObject, at: keyOffset) else {
                        throw reader.corrupt("a dictionary key is \(keyObject.kindName); only string keys are supported", at: keyOffset)
                    }
                    result[key] = try value(reader.reference(container.count + index, in: container))
                }
                return .dictionary(result)
            }
            var elements: [BinaryPlistValue] = []
            elements.reserveCapacity(container.count)
            for index in 0..<container.count {
                elements.append(try value(reader.reference(index, in: container)))
            }
            if case .set = object { return .set(elements) }
            return .array(elements)
        }
    }

    private mutating func enter(_ container: PlistContainer, offset: Int) throws(StrataError) {
        if path.contains(container.ref) {
            throw reader.corrupt("the container at byte offset \(offset) contains itself: the structure is cyclic", at: offset)
        }
        guard path.count < BinaryPlistValue.maximumDepth else {
            throw reader.corrupt("containers nest more than \(BinaryPlistValue.maximumDepth) deep", at: offset)
        }
        if case .dictionary = try reader.object(container.ref, at: offset) {
            budget -= 2 * container.count
        } else {
            budget -= container.count
        }
        guard budget >= 0 else {
            throw reader.corrupt("the file refers to its objects more often than a file of \(reader.bytes.count) bytes can (containers are shared)", at: offset)
        }
        path.append(container.ref)
    }
}
