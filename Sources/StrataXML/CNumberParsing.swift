#if os(Linux)
internal import CLibXML2

/// `strtod`/`strtof` in the C locale on text already checked to be a plain decimal number
/// (``XMLValueCoding/parseDouble(_:)``), copied to a NUL-terminated stack buffer: the same
/// correctly rounded conversion `Double(_: String)` makes on Linux, without building a `String`
/// per value. Nil when the text is too long for the buffer (the caller then goes through
/// `String`).
enum CNumberParsing {
    /// The C locale, so that the decimal point is `.` whatever `setlocale` was given.
    nonisolated(unsafe) private static let cLocale: locale_t? = strata_c_locale()

    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let cLocale else { return nil }
        return withCString(text) { strata_strtod_c($0, cLocale) }
    }

    static func float(_ text: UnsafeBufferPointer<UInt8>) -> Float? {
        guard let cLocale else { return nil }
        return withCString(text) { strata_strtof_c($0, cLocale) }
    }

    private static func withCString<T>(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<CChar>) -> T) -> T? {
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        guard text.count < MemoryLayout.size(ofValue: buffer), let base = text.baseAddress else { return nil }
        return withUnsafeMutableBytes(of: &buffer) { raw in
            raw.baseAddress!.copyMemory(from: base, byteCount: text.count)
            raw[text.count] = 0
            return body(raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
    }
}
#else
/// Elsewhere the callers go through `String`.
enum CNumberParsing {
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? { nil }
    static func float(_ text: UnsafeBufferPointer<UInt8>) -> Float? { nil }
}
#endif
