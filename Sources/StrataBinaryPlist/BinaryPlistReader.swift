internal import Foundation
internal import Strata

/// One object of a binary property list as the file holds it: scalars decoded, strings, data
/// and containers as positions in the file, to be decoded when needed.
enum PlistObject {
    case null
    case bool(Bool)
    case int(Int64)
    /// A real of 4 or 8 bytes, widened to a double (which keeps a 4-byte real exactly).
    case real(Double, byteCount: Int)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case data(Range<Int>)
    /// Bytes that must all be ASCII.
    case asciiString(Range<Int>)
    /// Big-endian UTF-16 code units; the range is in bytes.
    case utf16String(Range<Int>)
    case uid(UInt64)
    case array(PlistContainer)
    case set(PlistContainer)
    case dictionary(PlistContainer)

    /// What the object is, for error messages: "a string", "an array of 3".
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool(let value): "the boolean \(value)"
        case .int(let value): "the integer \(value)"
        case .real(let value, _): "the real \(value)"
        case .date: "a date"
        case .data(let range): "data of \(range.count) bytes"
        case .asciiString, .utf16String: "a string"
        case .uid: "a UID"
        case .array(let container): "an array of \(container.count)"
        case .set(let container): "a set of \(container.count)"
        case .dictionary(let container): "a dictionary of \(container.count)"
        }
    }
}

/// An array, set or dictionary: where its object references start and how many there are. A
/// dictionary's `count` is its number of entries: `count` key references, then `count` value
/// references.
struct PlistContainer {
    /// The object number of the container itself.
    var ref: Int
    /// The byte offset of its marker.
    var offset: Int
    var count: Int
    /// The byte offset of its first object reference.
    var refsStart: Int
}

/// The bytes of a file at a stable address, freed with their owner.
final class PlistBytes {
    private let storage: UnsafeMutableRawBufferPointer
    let count: Int

    init(count: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        self.count = count
    }

    convenience init<Bytes: Collection>(copying source: Bytes) where Bytes.Element == UInt8 {
        self.init(count: source.count)
        mutableBytes.copyBytes(from: source)
    }

    deinit { storage.deallocate() }

    /// Exactly the file's bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }
    var mutableBytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]) }
}

/// A checked reader of `bplist00` files: validates the trailer once, then every offset, count and
/// object reference as objects are looked up. Nothing here trusts the file: every length is
/// checked against the bytes that remain before the offset table, so damaged input throws
/// `corruptStore` with the byte offset, and no count from the file can make it allocate more
/// than the file's size.
struct BinaryPlistReader {
    let owner: PlistBytes
    let bytes: UnsafeRawBufferPointer
    /// How errors name the file.
    let file: String
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    /// Where the offset table starts: every object lies between the header and this offset.
    let tableOffset: Int

    static let header: [UInt8] = Array("bplist00".utf8)
    static let trailerSize = 32

    init(_ owner: PlistBytes, file: String) throws(StrataError) {
        self.owner = owner
        self.file = file
        let bytes = owner.bytes
        self.bytes = bytes
        let size = bytes.count
        func fail(_ message: String, at offset: Int) -> StrataError {
            StrataError(.corruptStore, "not a readable binary property list: \(message) (at byte offset \(offset))", file: file)
        }
        guard size >= Self.header.count, bytes.prefix(Self.header.count).elementsEqual(Self.header) else {
            let start = bytes.prefix(8).map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "." }.joined()
            throw fail("the file does not start with 'bplist00' (it starts with '\(start)', \(size) bytes in all)", at: 0)
        }
        // Header, at least one object byte, at least one offset byte, trailer.
        guard size >= Self.header.count + 2 + Self.trailerSize else {
            throw fail("the file is \(size) bytes long, too short for a header, one object and the 32-byte trailer; it is truncated", at: size)
        }
        let trailer = size - Self.trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        let objectCount = Self.uint64(bytes, at: trailer + 8)
        let topObject = Self.uint64(bytes, at: trailer + 16)
        let tableOffset = Self.uint64(bytes, at: trailer + 24)
        guard [1, 2, 4, 8].contains(offsetSize) else {
            throw fail("the trailer gives an offset size of \(offsetSize) bytes; it must be 1, 2, 4 or 8 (the file is truncated or damaged)", at: trailer + 6)
        }
        guard [1, 2, 4, 8].contains(refSize) else {
            throw fail("the trailer gives an object reference size of \(refSize) bytes; it must be 1, 2, 4 or 8", at: trailer + 7)
        }
        guard tableOffset >= UInt64(Self.header.count + 1), tableOffset < UInt64(trailer) else {
            throw fail("the trailer puts the offset table at byte \(tableOffset), outside the \(Self.header.count + 1)..<\(trailer) the objects and table can occupy", at: trailer + 24)
        }
        let tableSpace = UInt64(trailer) - tableOffset
        guard objectCount >= 1, objectCount <= tableSpace / UInt64(offsetSize) else {
            throw fail("the trailer says the file has \(objectCount) objects, but the \(tableSpace) bytes of its offset table hold \(tableSpace / UInt64(offsetSize)) offsets of \(offsetSize) bytes", at: trailer + 8)
        }
        guard topObject < objectCount else {
            throw fail("the trailer names object \(topObject) as the top object, but there are only \(objectCount)", at: trailer + 16)
        }
        self.offsetSize = offsetSize
        self.refSize = refSize
        self.objectCount = Int(objectCount)
        self.topObject = Int(topObject)
        self.tableOffset = Int(tableOffset)
    }

    // MARK: - Errors

    /// A `corruptStore` error naming the file, what is wrong and where.
    func corrupt(_ message: String, at offset: Int) -> StrataError {
        StrataError(.corruptStore, "\(message) (at byte offset \(offset))", file: file)
    }

    // MARK: - Raw integers

    static func uint64(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A big-endian unsigned integer of 1, 2, 4 or 8 bytes; the caller has checked the bounds.
    @inline(__always)
    func uint(at offset: Int, size: Int) -> UInt64 {
        switch size {
        case 1: UInt64(bytes[offset])
        case 2: UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        default: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }

    // MARK: - Objects

    /// The byte offset of object `ref`, checked to lie among the objects.
    func offset(of ref: Int) throws(StrataError) -> Int {
        guard ref >= 0, ref < objectCount else {
            throw corrupt("a reference to object \(ref), but the file has only \(objectCount) objects", at: tableOffset)
        }
        let entry = tableOffset + ref * offsetSize
        let offset = uint(at: entry, size: offsetSize)
        guard offset >= UInt64(Self.header.count), offset < UInt64(tableOffset) else {
            throw corrupt("the offset table puts object \(ref) at byte \(offset), outside the objects (bytes 8..<\(tableOffset))", at: entry)
        }
        return Int(offset)
    }

    /// The object number found at reference slot `index` of a container (keys first, then
    /// values, for a dictionary); the container's bounds were checked when it was read.
    @inline(__always)
    func reference(_ index: Int, in container: PlistContainer) throws(StrataError) -> Int {
        let position = container.refsStart + index * refSize
        let ref = uint(at: position, size: refSize)
        guard ref < UInt64(objectCount) else {
            throw corrupt("a reference to object \(ref) in the container at byte offset \(container.offset), but the file has only \(objectCount) objects", at: position)
        }
        return Int(ref)
    }

    /// Reads the object `ref`, checking that everything it occupies lies before the offset table.
    func object(_ ref: Int) throws(StrataError) -> PlistObject {
        let offset = try offset(of: ref)
        return try object(ref, at: offset)
    }

    func object(_ ref: Int, at offset: Int) throws(StrataError) -> PlistObject {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch low {
            case 0x0: return .null
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            default: throw corrupt("unknown object marker 0x\(String(marker, radix: 16, uppercase: true))", at: offset)
            }
        case 0x1:
            return .int(try integer(at: offset, marker: marker))
        case 0x2:
            guard low == 2 || low == 3 else {
                throw corrupt("a real of \(1 << min(low, 15)) bytes; only 4- and 8-byte reals exist", at: offset)
            }
            let size = 1 << low
            try need(size, after: offset + 1, for: "a real", at: offset)
            if size == 4 {
                let bits = UInt32(uint(at: offset + 1, size: 4))
                return .real(Double(Float(bitPattern: bits)), byteCount: 4)
            }
            return .real(Double(bitPattern: uint(at: offset + 1, size: 8)), byteCount: 8)
        case 0x3:
            guard low == 3 else { throw corrupt("a date marker 0x\(String(marker, radix: 16, uppercase: true)); dates are 0x33", at: offset) }
            try need(8, after: offset + 1, for: "a date", at: offset)
            return .date(Double(bitPattern: uint(at: offset + 1, size: 8)))
        case 0x4:
            let (count, start) = try length(at: offset, unit: 1, what: "data")
            return .data(start..<(start + count))
        case 0x5:
            let (count, start) = try length(at: offset, unit: 1, what: "an ASCII string")
            return .asciiString(start..<(start + count))
        case 0x6:
            let (count, start) = try length(at: offset, unit: 2, what: "a UTF-16 string")
            return .utf16String(start..<(start + 2 * count))
        case 0x8:
            let size = low + 1
            guard size <= 8 else { throw corrupt("a UID of \(size) bytes; at most 8 are supported", at: offset) }
            try need(size, after: offset + 1, for: "a UID", at: offset)
            var value: UInt64 = 0
            for index in 0..<size { value = value << 8 | UInt64(bytes[offset + 1 + index]) }
            return .uid(value)
        case 0xA:
            let (count, start) = try length(at: offset, unit: refSize, what: "an array")
            return .array(PlistContainer(ref: ref, offset: offset, count: count, refsStart: start))
        case 0xC:
            let (count, start) = try length(at: offset, unit: refSize, what: "a set")
            return .set(PlistContainer(ref: ref, offset: offset, count: count, refsStart: start))
        case 0xD:
            let (count, start) = try length(at: offset, unit: 2 * refSize, what: "a dictionary")
            return .dictionary(PlistContainer(ref: ref, offset: offset, count: count, refsStart: start))
        default:
            throw corrupt("unknown object marker 0x\(String(marker, radix: 16, uppercase: true))", at: offset)
        }
    }

    /// Throws unless `count` bytes from `start` lie before the offset table.
    @inline(__always)
    private func need(_ count: Int, after start: Int, for what: String, at offset: Int) throws(StrataError) {
        guard count <= tableOffset - start else {
            throw corrupt("\(what) needs \(count) bytes but only \(max(0, tableOffset - start)) remain before the offset table; the file is truncated or damaged", at: offset)
        }
    }

    /// An integer object (marker 0x10–0x14): 1, 2 and 4 bytes are unsigned, 8 and 16 bytes are
    /// signed (as Core Foundation and Python's plistlib read them). A 16-byte integer must fit
    /// in 64 bits.
    private func integer(at offset: Int, marker: UInt8) throws(StrataError) -> Int64 {
        let low = Int(marker & 0x0F)
        guard low <= 4 else {
            throw corrupt("an integer of \(1 << low) bytes; integers have 1, 2, 4, 8 or 16 bytes", at: offset)
        }
        let size = 1 << low
        try need(size, after: offset + 1, for: "an integer", at: offset)
        if size == 16 {
            let high = uint(at: offset + 1, size: 8)
            let value = Int64(bitPattern: uint(at: offset + 9, size: 8))
            guard high == (value < 0 ? UInt64.max : 0) else {
                let sign = Int64(bitPattern: high) < 0 ? "below" : "above"
                throw corrupt("a 16-byte integer \(sign) the 64-bit range (Strata integers are int64; Python's plistlib writes integers from 2^63 to 2^64-1 this way)", at: offset)
            }
            return value
        }
        let raw = uint(at: offset + 1, size: size)
        return size == 8 ? Int64(bitPattern: raw) : Int64(raw)
    }

    /// The element count and first content byte of a string, data or container: the low nibble,
    /// or, when it is 0xF, an integer object that follows the marker. Checked against the bytes
    /// left before the offset table, `unit` bytes per element.
    @inline(__always)
    private func length(at offset: Int, unit: Int, what: String) throws(StrataError) -> (count: Int, start: Int) {
        let low = Int(bytes[offset] & 0x0F)
        var count = low
        var start = offset + 1
        if low == 0x0F {
            guard start < tableOffset else {
                throw corrupt("\(what) whose length is missing; the file is truncated or damaged", at: offset)
            }
            let lengthMarker = bytes[start]
            guard lengthMarker >> 4 == 0x1, lengthMarker & 0x0F <= 3 else {
                throw corrupt("\(what) whose length is not an integer of 1, 2, 4 or 8 bytes (marker 0x\(String(lengthMarker, radix: 16, uppercase: true)))", at: start)
            }
            let value = try integer(at: start, marker: lengthMarker)
            guard value >= 0 else { throw corrupt("\(what) with a negative length \(value)", at: start) }
            start += 1 + (1 << Int(lengthMarker & 0x0F))
            guard value <= Int64(tableOffset - start) / Int64(unit) else {
                throw corrupt("\(what) says it has \(value) \(unit == 1 ? "bytes" : "elements"), more than the \(max(0, tableOffset - start)) bytes left before the offset table can hold; the file is truncated or damaged", at: offset)
            }
            count = Int(value)
        }
        try need(count * unit, after: start, for: what, at: offset)
        return (count, start)
    }

    // MARK: - Strings and data

    /// The string object `ref`, or nil when the object is not a string.
    func string(_ object: PlistObject, at offset: Int) throws(StrataError) -> String? {
        switch object {
        case .asciiString(let range):
            let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
            if let bad = slice.firstIndex(where: { $0 >= 0x80 }) {
                throw corrupt("an ASCII string holds the byte 0x\(String(slice[bad], radix: 16, uppercase: true)), which is not ASCII", at: range.lowerBound + bad)
            }
            return String(decoding: slice, as: UTF8.self)
        case .utf16String(let range):
            guard let string = utf8String(fromUTF16: range) else {
                throw corrupt("a UTF-16 string holds an unpaired surrogate, which is not valid UTF-16", at: offset)
            }
            return string
        default:
            return nil
        }
    }

    /// The big-endian UTF-16 in `range` transcoded straight into a string's UTF-8 (a generic
    /// `String(validating:as:)` costs several times more); nil for an unpaired surrogate. An
    /// unpaired surrogate is counted as three bytes, more than the writing stops at.
    private func utf8String(fromUTF16 range: Range<Int>) -> String? {
        let count = range.count / 2
        guard count > 0 else { return "" }
        func unit(_ index: Int) -> UInt32 {
            UInt32(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: range.lowerBound + 2 * index, as: UInt16.self)))
        }
        // The UTF-8 length first, so that the string takes no more memory than it needs.
        var length = 0
        var position = 0
        while position < count {
            let code = unit(position)
            position += 1
            if code < 0x80 {
                length += 1
            } else if code < 0x800 {
                length += 2
            } else if (0xD800..<0xDC00).contains(code), position < count, (0xDC00..<0xE000).contains(unit(position)) {
                length += 4
                position += 1
            } else {
                length += 3
            }
        }
        var valid = true
        let string = String(unsafeUninitializedCapacity: length) { utf8 in
            var written = 0
            var index = 0
            while index < count {
                let code = unit(index)
                index += 1
                switch code {
                case ..<0x80:
                    utf8[written] = UInt8(code)
                    written += 1
                case ..<0x800:
                    utf8[written] = UInt8(0xC0 | code >> 6)
                    utf8[written + 1] = UInt8(0x80 | code & 0x3F)
                    written += 2
                case 0xD800..<0xDC00:
                    guard index < count, case let low = unit(index), (0xDC00..<0xE000).contains(low) else {
                        valid = false
                        return 0
                    }
                    index += 1
                    let scalar = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                    utf8[written] = UInt8(0xF0 | scalar >> 18)
                    utf8[written + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                    utf8[written + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    utf8[written + 3] = UInt8(0x80 | scalar & 0x3F)
                    written += 4
                case 0xDC00..<0xE000:
                    valid = false
                    return 0
                default:
                    utf8[written] = UInt8(0xE0 | code >> 12)
                    utf8[written + 1] = UInt8(0x80 | code >> 6 & 0x3F)
                    utf8[written + 2] = UInt8(0x80 | code & 0x3F)
                    written += 3
                }
            }
            return written
        }
        return valid ? string : nil
    }

    func data(_ range: Range<Int>) -> Data {
        Data(UnsafeRawBufferPointer(rebasing: bytes[range]))
    }
}
