package import Foundation

/// UUIDs read from text strictly, without Foundation: `UUID(uuidString:)` on Linux accepts some
/// bytes that are not hex digits, and costs microseconds a value.
package enum UUIDText {
    /// Parses `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in either case; nil for anything else.
    package static func uuid(ascii bytes: UnsafeRawBufferPointer) -> UUID? {
        guard bytes.count == 36 else { return nil }
        var result: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &result) { output -> Bool in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard bytes[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = nibble(bytes[position]), let low = nibble(bytes[position + 1]) else { return false }
                output[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return valid ? UUID(uuid: result) : nil
    }

    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
