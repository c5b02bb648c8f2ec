import StrataBinaryPlist

/// Hand-made `bplist00` files for reader tests: object graphs with explicit references (so they
/// can share containers or contain themselves), written with 2-byte references and 4-byte
/// offsets, and a trailer whose fields a test can override.
final class PlistBuilder {
    private(set) var objects: [[UInt8]] = []

    /// A slot for an object whose bytes come later (to make cycles).
    func reserve() -> Int {
        objects.append([])
        return objects.count - 1
    }

    func set(_ index: Int, _ bytes: [UInt8]) {
        objects[index] = bytes
    }

    @discardableResult
    func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    /// Adds a whole tree, children first; dictionary keys in sorted order.
    @discardableResult
    func add(_ value: BinaryPlistValue) -> Int {
        switch value {
        case .null: return add([0x00])
        case .bool(let bool): return add([bool ? 0x09 : 0x08])
        case .int(let int): return add(Self.int(int))
        case .real(let double): return add([0x23] + Self.bigEndian(double.bitPattern))
        case .float(let float): return add([0x22] + Self.bigEndian(float.bitPattern))
        case .date(let seconds): return add([0x33] + Self.bigEndian(seconds.bitPattern))
        case .data(let bytes): return add(Self.marker(0x4, bytes.count) + bytes)
        case .string(let string): return add(Self.string(string))
        case .uid(let uid): return add([0x87] + Self.bigEndian(uid))
        case .array(let elements): return add(array(elements.map { add($0) }))
        case .set(let elements):
            let refs = elements.map { add($0) }
            return add(Self.marker(0xC, refs.count) + refs.flatMap(Self.ref))
        case .dictionary(let dictionary):
            let entries = dictionary.sorted { $0.key < $1.key }.map { ($0.key, add($0.value)) }
            return add(self.dictionary(entries))
        }
    }

    /// The bytes of an array of the given objects.
    func array(_ refs: [Int]) -> [UInt8] {
        Self.marker(0xA, refs.count) + refs.flatMap(Self.ref)
    }

    /// The bytes of a dictionary; its key strings are added as objects.
    func dictionary(_ entries: [(String, Int)]) -> [UInt8] {
        let keys = entries.map { add(Self.string($0.0)) }
        return Self.marker(0xD, entries.count) + keys.flatMap(Self.ref) + entries.map(\.1).flatMap(Self.ref)
    }

    /// The byte offset ``build(top:_:)`` gives object `index`.
    func offset(of index: Int) -> Int {
        8 + objects[..<index].reduce(0) { $0 + $1.count }
    }

    struct Trailer {
        var offsetSize: UInt8 = 4
        var refSize: UInt8 = 2
        var objectCount: UInt64?
        var topObject: UInt64?
        var tableOffset: UInt64?
    }

    /// The file: header, objects, offset table, trailer.
    func build(top: Int, _ trailer: Trailer = Trailer()) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        for offset in offsets { bytes += Self.bigEndian(UInt32(offset)) }
        bytes += [0, 0, 0, 0, 0, 0, trailer.offsetSize, trailer.refSize]
        bytes += Self.bigEndian(trailer.objectCount ?? UInt64(objects.count))
        bytes += Self.bigEndian(trailer.topObject ?? UInt64(top))
        bytes += Self.bigEndian(trailer.tableOffset ?? UInt64(tableOffset))
        return bytes
    }

    /// A whole tree as a file.
    static func file(_ value: BinaryPlistValue) -> [UInt8] {
        let builder = PlistBuilder()
        let top = builder.add(value)
        return builder.build(top: top)
    }

    // MARK: - Object bytes

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func ref(_ index: Int) -> [UInt8] { bigEndian(UInt16(index)) }

    /// An integer as plistlib writes it: non-negative in 1, 2, 4 or 8 bytes, negative in 8.
    static func int(_ value: Int64) -> [UInt8] {
        if value < 0 || value > Int64(UInt32.max) { return [0x13] + bigEndian(value) }
        if value > Int64(UInt16.max) { return [0x12] + bigEndian(UInt32(value)) }
        if value > Int64(UInt8.max) { return [0x11] + bigEndian(UInt16(value)) }
        return [0x10, UInt8(value)]
    }

    /// A marker with its length in the low nibble, or 0xF and an integer.
    static func marker(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0x0F] + int(Int64(count))
    }

    static func string(_ string: String) -> [UInt8] {
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            return marker(0x5, string.utf8.count) + Array(string.utf8)
        }
        return marker(0x6, string.utf16.count) + string.utf16.flatMap(bigEndian)
    }
}

/// A key or index into a tree, for ``BinaryPlistValue/set(_:to:)``.
enum TreePath: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case key(String)
    case index(Int)

    init(stringLiteral value: String) { self = .key(value) }
    init(integerLiteral value: Int) { self = .index(value) }
}

extension BinaryPlistValue {
    /// Replaces (or, with nil, removes) the value at `path`.
    mutating func set(_ path: [TreePath], to value: BinaryPlistValue?) {
        guard let first = path.first else {
            self = value ?? .null
            return
        }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.dictionary(var dictionary), .key(let key)):
            if rest.isEmpty {
                dictionary[key] = value
            } else {
                var child = dictionary[key] ?? .dictionary([:])
                child.set(rest, to: value)
                dictionary[key] = child
            }
            self = .dictionary(dictionary)
        case (.array(var array), .index(let index)):
            if rest.isEmpty {
                if let value { array[index] = value } else { array.remove(at: index) }
            } else {
                array[index].set(rest, to: value)
            }
            self = .array(array)
        default:
            preconditionFailure("no \(first) in \(self)")
        }
    }

    func setting(_ path: [TreePath], to value: BinaryPlistValue?) -> BinaryPlistValue {
        var copy = self
        copy.set(path, to: value)
        return copy
    }
}
