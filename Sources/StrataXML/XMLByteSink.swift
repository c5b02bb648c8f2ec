/// Bytes appended straight into one buffer that is handed to `drain` whenever it fills: the XML
/// writer serializes objects through it with no `String` per value and no copy through
/// libxml2's buffers.
///
/// The buffer belongs to ``with(capacity:drain:_:)``, which lends the sink to its body and
/// drains what is left at the end. A failed drain is remembered (``failed``); later bytes are
/// dropped and the caller reports the error its drain recorded. The buffer is freed when the
/// body returns: never keep a copy of the sink beyond it.
///
/// `TextOutputStream` so that `Double.write(to:)` and `Float.write(to:)` hand over their text
/// (`_writeASCII`) without building a `String`.
struct XMLByteSink: TextOutputStream {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var count = 0
    private let drain: (UnsafeRawBufferPointer) -> Bool
    private(set) var failed = false

    /// The most ``withSpace(_:_:)`` may ask for; a buffer holds at least this much.
    static let maximumSpace = 256

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int, drain: @escaping (UnsafeRawBufferPointer) -> Bool) {
        self.base = base
        self.capacity = capacity
        self.drain = drain
    }

    /// Runs `body` with a sink over a new buffer of `capacity` bytes, then drains what it holds.
    /// - Returns: whether every drain succeeded, and what `body` returned.
    static func with<Result, Failure: Error>(
        capacity: Int, drain: @escaping (UnsafeRawBufferPointer) -> Bool,
        _ body: (inout XMLByteSink) throws(Failure) -> Result
    ) throws(Failure) -> (drained: Bool, result: Result) {
        let size = max(capacity, maximumSpace)
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { base.deallocate() }
        var sink = XMLByteSink(base: base, capacity: size, drain: drain)
        let result = try body(&sink)
        sink.flush()
        return (!sink.failed, result)
    }

    /// Hands what the buffer holds to `drain`.
    mutating func flush() {
        if count > 0 && !failed {
            failed = !drain(UnsafeRawBufferPointer(start: base, count: count))
        }
        count = 0
    }

    /// Lets `body` write up to `maximum` (at most ``maximumSpace``) bytes in place; it returns
    /// how many it wrote.
    @inline(__always)
    mutating func withSpace(_ maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        precondition(maximum <= Self.maximumSpace, "withSpace asks for \(maximum) bytes, more than the \(Self.maximumSpace) a flush guarantees")
        if capacity - count < maximum { flush() }
        count += body(base + count)
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= capacity - count else { return appendLarge(bytes) }
        if let source = bytes.baseAddress {
            (base + count).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            count += bytes.count
        }
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UnsafeRawBufferPointer(bytes))
    }

    @inline(__always)
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { flush() }
        base[count] = byte
        count += 1
    }

    private mutating func appendLarge(_ bytes: UnsafeRawBufferPointer) {
        flush()
        if bytes.count >= capacity {
            if !failed { failed = !drain(bytes) }
        } else {
            append(bytes)
        }
    }

    // MARK: TextOutputStream

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        append(buffer)
    }

    // MARK: Numbers

    /// Decimal digits, `-` first for a negative number.
    @inline(__always)
    mutating func appendDecimal(_ value: Int64) {
        withSpace(20) { out in
            var magnitude = value.magnitude
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: 20 digits at most
            return withUnsafeMutableBytes(of: &digits) { scratch in
                var position = scratch.count
                repeat {
                    position -= 1
                    scratch[position] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
                    magnitude /= 10
                } while magnitude != 0
                var written = 0
                if value < 0 {
                    out[0] = UInt8(ascii: "-")
                    written = 1
                }
                let length = scratch.count - position
                (out + written).initialize(from: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + position, count: length)
                return written + length
            }
        }
    }

    // MARK: Text

    /// What text needs before it can go into an XML file as element content.
    struct TextScan {
        /// It holds `&`, `<`, `>` or a carriage return (which a parser would turn into a line feed).
        var needsEscaping = false
        /// It holds a character XML 1.0 cannot carry: U+0000–U+0008, U+000B, U+000C,
        /// U+000E–U+001F, U+FFFE or U+FFFF.
        var hasIllegalCharacter = false
    }

    /// Scans UTF-8 text eight bytes at a time while none of them is a control character, `&`,
    /// `<`, `>` or `0xEF` (the first byte of U+FFFE and U+FFFF), then byte by byte.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> TextScan {
        guard let start = bytes.baseAddress else { return TextScan() }
        var index = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(start + index).loadUnaligned(as: UInt64.self))
            let control = (word &- 0x20 &* ones) & ~word & highs != 0
            if control || hasZeroByte(word ^ (0x26 &* ones)) || hasZeroByte(word ^ (0x3C &* ones))
                || hasZeroByte(word ^ (0x3E &* ones)) || hasZeroByte(word ^ (0xEF &* ones)) {
                break
            }
            index += 8
        }
        var scan = TextScan()
        while index < bytes.count {
            switch start[index] {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0x0D:
                scan.needsEscaping = true
            case 0x09, 0x0A:
                break
            case 0x00..<0x20:
                scan.hasIllegalCharacter = true
                return scan
            case 0xEF:
                // U+FFFE and U+FFFF are EF BF BE and EF BF BF.
                if index + 2 < bytes.count, start[index + 1] == 0xBF, start[index + 2] >= 0xBE {
                    scan.hasIllegalCharacter = true
                    return scan
                }
            default:
                break
            }
            index += 1
        }
        return scan
    }

    /// Appends element content: `&`, `<`, `>` and carriage returns escaped (`&amp;` `&lt;`
    /// `&gt;` `&#13;`), every other byte as it is. `scan` is ``scan(_:)`` of `bytes`.
    mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>, _ scan: TextScan) {
        guard scan.needsEscaping else { return append(bytes) }
        var start = 0
        for index in bytes.indices {
            let escape: StaticString
            switch bytes[index] {
            case UInt8(ascii: "&"): escape = "&amp;"
            case UInt8(ascii: "<"): escape = "&lt;"
            case UInt8(ascii: ">"): escape = "&gt;"
            case 0x0D: escape = "&#13;"
            default: continue
            }
            append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            append(escape)
            start = index + 1
        }
        append(UnsafeBufferPointer(rebasing: bytes[start...]))
    }

    /// Appends the base64 of `bytes` (standard alphabet, `=` padding, no line breaks): the text
    /// `Data.base64EncodedString()` gives.
    mutating func appendBase64(_ bytes: UnsafeRawBufferPointer) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let table = alphabet.utf8Start
        var index = 0
        while index < bytes.count {
            // Up to 48 input bytes (64 characters) at a time.
            let end = min(bytes.count, index + 48)
            withSpace(64) { out in
                var written = 0
                while index + 3 <= end {
                    let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    out[written] = table[Int(group >> 18)]
                    out[written + 1] = table[Int(group >> 12 & 0x3F)]
                    out[written + 2] = table[Int(group >> 6 & 0x3F)]
                    out[written + 3] = table[Int(group & 0x3F)]
                    written += 4
                    index += 3
                }
                if index < end {
                    // One or two bytes left: the end of the input.
                    let second = index + 1 < end ? UInt32(bytes[index + 1]) : 0
                    let group = UInt32(bytes[index]) << 16 | second << 8
                    out[written] = table[Int(group >> 18)]
                    out[written + 1] = table[Int(group >> 12 & 0x3F)]
                    out[written + 2] = index + 1 < end ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
                    out[written + 3] = UInt8(ascii: "=")
                    written += 4
                    index = end
                }
                return written
            }
        }
    }
}
