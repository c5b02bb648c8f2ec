internal import Foundation
internal import Strata
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A streaming `bplist00` encoder: objects are written once, in order, children before the
/// containers that hold them, straight into a 1 MiB buffer that is flushed to the file as it
/// fills. No object tree is built; what stays in memory is the offset of each object (for the
/// offset table) and the buffer.
///
/// Object references have a fixed size, chosen in ``begin(maximumObjectCount:)`` from an upper
/// bound of the number of objects the caller will write. Writing methods return the new
/// object's number. They do not throw: an I/O failure is kept and thrown by ``finish(topObject:)``,
/// and later writes are dropped.
final class BinaryPlistWriter {
    private enum Sink {
        case file(descriptor: Int32, path: String)
        case memory
    }

    // A writer is used by one thread, and no access to its state overlaps another: the
    // runtime's exclusivity checks of a class's stored properties (`swift_beginAccess`, a
    // fifteenth of a binary store's load, most of it in `newObject`) are left out.
    private static let capacity = 1 << 20
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: BinaryPlistWriter.capacity, alignment: 16)
    @exclusivity(unchecked) private var used = 0
    /// Bytes already handed to the sink.
    @exclusivity(unchecked) private var flushed = 0
    @exclusivity(unchecked) private var sink: Sink
    @exclusivity(unchecked) private var memory: [UInt8] = []
    @exclusivity(unchecked) private var failure: StrataError?

    @exclusivity(unchecked) private var offsets: [Int] = []
    @exclusivity(unchecked) private var maximumObjectCount = 0
    @exclusivity(unchecked) private(set) var refSize = 1
    @exclusivity(unchecked) private var smallIntegers = [Int](repeating: -1, count: 256)
    @exclusivity(unchecked) private var falseRef = -1
    @exclusivity(unchecked) private var trueRef = -1

    /// A writer into a new file (created, or truncated when it exists).
    init(creatingFileAt url: URL) throws(StrataError) {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            buffer.deallocate()
            throw StrataError(.storeIO, "cannot create '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        sink = .file(descriptor: descriptor, path: url.path)
    }

    /// A writer into memory; ``finish(topObject:)`` returns the bytes.
    init() {
        sink = .memory
    }

    deinit {
        if case .file(let descriptor, _) = sink { close(descriptor) }
        buffer.deallocate()
    }

    /// The number of objects written so far.
    var objectCount: Int { offsets.count }

    /// True once a write to the file failed; the rest of the output is dropped.
    var hasFailed: Bool { failure != nil }

    /// Writes the header and fixes the reference size for at most `maximumObjectCount` objects.
    func begin(maximumObjectCount: Int) {
        precondition(offsets.isEmpty && flushed + used == 0, "begin(maximumObjectCount:) must come first")
        self.maximumObjectCount = maximumObjectCount
        refSize = Self.byteCount(for: UInt64(max(maximumObjectCount - 1, 0)))
        offsets.reserveCapacity(maximumObjectCount)
        for byte in BinaryPlistReader.header { append(byte) }
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    static func byteCount(for value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    // MARK: - Objects

    func integer(_ value: Int64) -> Int {
        if value >= 0 && value < 256 {
            let cached = smallIntegers[Int(value)]
            if cached >= 0 { return cached }
        }
        let ref = newObject()
        reserve(9)
        appendIntegerBody(value)
        if value >= 0 && value < 256 { smallIntegers[Int(value)] = ref }
        return ref
    }

    func bool(_ value: Bool) -> Int {
        if value, trueRef >= 0 { return trueRef }
        if !value, falseRef >= 0 { return falseRef }
        let ref = newObject()
        reserve(1)
        append(value ? 0x09 : 0x08)
        if value { trueRef = ref } else { falseRef = ref }
        return ref
    }

    /// An 8-byte real.
    func real(_ value: Double) -> Int {
        let ref = newObject()
        reserve(9)
        append(0x23)
        appendBigEndian(value.bitPattern)
        return ref
    }

    /// A 4-byte real.
    func real(_ value: Float) -> Int {
        let ref = newObject()
        reserve(5)
        append(0x22)
        appendBigEndian(value.bitPattern)
        return ref
    }

    /// A date: seconds since 2001-01-01T00:00:00Z.
    func date(secondsSinceReferenceDate value: Double) -> Int {
        let ref = newObject()
        reserve(9)
        append(0x33)
        appendBigEndian(value.bitPattern)
        return ref
    }

    func data(_ value: Data) -> Int {
        let ref = newObject()
        appendMarker(0x4, count: value.count)
        value.withUnsafeBytes { appendRaw($0) }
        return ref
    }

    /// An ASCII string when every character is ASCII, otherwise big-endian UTF-16 (the two
    /// string kinds of the format).
    func string(_ value: String) -> Int {
        let ref = newObject()
        var value = value
        value.withUTF8 { utf8 in
            if utf8.contains(where: { $0 >= 0x80 }) {
                appendUTF16(utf8)
            } else {
                appendMarker(0x5, count: utf8.count)
                appendRaw(UnsafeRawBufferPointer(utf8))
            }
        }
        return ref
    }

    /// A UTF-16 string object from a string's UTF-8 (valid, as every Swift string's is),
    /// transcoded here in two passes: `String.utf16` of a native string costs several times more.
    private func appendUTF16(_ utf8: UnsafeBufferPointer<UInt8>) {
        // One unit per scalar, two for a scalar of four UTF-8 bytes (a surrogate pair).
        var units = 0
        for byte in utf8 where byte & 0xC0 != 0x80 { units += byte >= 0xF0 ? 2 : 1 }
        appendMarker(0x6, count: units)
        var index = 0
        while index < utf8.count {
            reserve(4)
            let lead = UInt32(utf8[index])
            switch lead {
            case ..<0x80:
                appendBigEndian(UInt16(lead))
                index += 1
            case ..<0xE0:
                appendBigEndian(UInt16((lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)))
                index += 2
            case ..<0xF0:
                appendBigEndian(UInt16((lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)))
                index += 3
            default:
                let scalar = (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12
                    | UInt32(utf8[index + 2] & 0x3F) << 6 | UInt32(utf8[index + 3] & 0x3F)
                let offset = scalar - 0x10000
                appendBigEndian(UInt16(0xD800 | offset >> 10))
                appendBigEndian(UInt16(0xDC00 | offset & 0x3FF))
                index += 4
            }
        }
    }

    func array(_ refs: [Int]) -> Int {
        let ref = newObject()
        appendMarker(0xA, count: refs.count)
        appendRefs(refs)
        return ref
    }

    /// A dictionary: `keys[i]` maps to `values[i]`.
    func dictionary(keys: [Int], values: [Int]) -> Int {
        precondition(keys.count == values.count, "a dictionary needs as many values as keys")
        let ref = newObject()
        appendMarker(0xD, count: keys.count)
        appendRefs(keys)
        appendRefs(values)
        return ref
    }

    /// Writes the offset table and the trailer and closes the file.
    /// - Returns: the whole file when writing into memory; empty for a file.
    /// - Throws: `storeIO` when a write failed.
    @discardableResult
    func finish(topObject: Int) throws(StrataError) -> [UInt8] {
        precondition(topObject >= 0 && topObject < offsets.count, "the top object \(topObject) was never written")
        let tableOffset = flushed + used
        let offsetSize = Self.byteCount(for: UInt64(offsets.last ?? 0))
        for offset in offsets {
            reserve(8)
            appendSized(UInt64(offset), size: offsetSize)
        }
        reserve(32)
        for _ in 0..<6 { append(0) }
        append(UInt8(offsetSize))
        append(UInt8(refSize))
        appendBigEndian(UInt64(offsets.count))
        appendBigEndian(UInt64(topObject))
        appendBigEndian(UInt64(tableOffset))
        flush()
        if case .file(let descriptor, let path) = sink {
            sink = .memory
            if close(descriptor) != 0, failure == nil {
                failure = StrataError(.storeIO, "cannot close '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
            }
        }
        if let failure { throw failure }
        return memory
    }

    // MARK: - Bytes

    private func newObject() -> Int {
        precondition(offsets.count < maximumObjectCount, "more objects than the bound given to begin(maximumObjectCount:)")
        offsets.append(flushed + used)
        return offsets.count - 1
    }

    /// Makes room for `count` more bytes in the buffer (`count` ≤ the buffer's capacity).
    @inline(__always)
    private func reserve(_ count: Int) {
        if used + count > Self.capacity { flush() }
    }

    @inline(__always)
    private func append(_ byte: UInt8) {
        buffer.storeBytes(of: byte, toByteOffset: used, as: UInt8.self)
        used += 1
    }

    @inline(__always)
    private func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: used, as: T.self)
        used += MemoryLayout<T>.size
    }

    @inline(__always)
    private func appendSized(_ value: UInt64, size: Int) {
        switch size {
        case 1: append(UInt8(truncatingIfNeeded: value))
        case 2: appendBigEndian(UInt16(truncatingIfNeeded: value))
        case 4: appendBigEndian(UInt32(truncatingIfNeeded: value))
        default: appendBigEndian(value)
        }
    }

    /// An integer object's marker and body: non-negative values in the fewest of 1, 2, 4 or 8
    /// bytes, negative ones in 8 (1-, 2- and 4-byte integers are unsigned in the format).
    @inline(__always)
    private func appendIntegerBody(_ value: Int64) {
        let size = value < 0 ? 8 : Self.byteCount(for: UInt64(value))
        append(0x10 | UInt8(size.trailingZeroBitCount))
        appendSized(UInt64(bitPattern: value), size: size)
    }

    /// A marker with a length in its low nibble, or 0xF and an integer object after it.
    @inline(__always)
    private func appendMarker(_ type: UInt8, count: Int) {
        reserve(10)
        if count < 15 {
            append(type << 4 | UInt8(count))
        } else {
            append(type << 4 | 0x0F)
            appendIntegerBody(Int64(count))
        }
    }

    private func appendRefs(_ refs: [Int]) {
        for ref in refs {
            reserve(8)
            appendSized(UInt64(ref), size: refSize)
        }
    }

    private func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count <= Self.capacity - used {
            if let base = bytes.baseAddress { (buffer + used).copyMemory(from: base, byteCount: bytes.count) }
            used += bytes.count
            return
        }
        flush()
        if bytes.count <= Self.capacity / 2 {
            if let base = bytes.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) }
            used = bytes.count
        } else {
            deliver(bytes)
        }
    }

    private func flush() {
        guard used > 0 else { return }
        deliver(UnsafeRawBufferPointer(start: buffer, count: used))
        used = 0
    }

    /// Hands bytes to the sink; the buffer must be flushed first.
    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        defer { flushed += bytes.count }
        guard failure == nil else { return }
        switch sink {
        case .memory:
            memory.append(contentsOf: bytes)
        case .file(let descriptor, let path):
            var done = 0
            while done < bytes.count {
                let result = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = StrataError(.storeIO, "cannot write '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
                    return
                }
                done += result
            }
        }
    }
}
