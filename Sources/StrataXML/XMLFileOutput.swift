internal import Foundation
internal import Strata
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A new file written through a 1 MiB buffer, for libxml2's output callbacks: libxml2 hands
/// over about 4 KB at a time, and a `write(2)` for each would cost more than the formatting.
///
/// Owns its file descriptor and closes it in `deinit`; ``finish()`` closes it earlier and reports
/// what `close(2)` says (on some file systems a failed write shows only there).
final class XMLFileOutput {
    // Used by one thread, with no overlapping accesses: the runtime's exclusivity checks of
    // these stored properties (on every object a store writes) are left out.
    @exclusivity(unchecked) private var descriptor: Int32
    private let path: String
    private let buffer: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var used = 0
    /// The first error, kept so that a failed libxml2 call can say why it failed.
    @exclusivity(unchecked) private(set) var failure: StrataError?

    private static let capacity = 1 << 20

    /// Creates (or truncates) the file at `path`.
    init(creating path: String) throws(StrataError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot create '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        buffer = .allocate(byteCount: Self.capacity, alignment: 1)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        buffer.deallocate()
    }

    /// Appends bytes, writing the buffer out when it fills. False after an error.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if bytes.isEmpty { return failure == nil }
        guard failure == nil, descriptor >= 0 else { return false }
        if used + bytes.count > Self.capacity {
            guard flush() else { return false }
            if bytes.count > Self.capacity { return writeFully(bytes) }
        }
        UnsafeMutableRawBufferPointer(rebasing: buffer[used...]).copyMemory(from: bytes)
        used += bytes.count
        return true
    }

    /// Writes out what the buffer holds, then `bytes` straight from where they are (for a
    /// writer with a buffer of its own, ``XMLByteSink``). False after an error.
    func writeThrough(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard flush(), descriptor >= 0 else { return false }
        return writeFully(bytes)
    }

    /// Writes out what the buffer holds.
    func flush() -> Bool {
        guard failure == nil else { return false }
        let pending = UnsafeRawBufferPointer(rebasing: buffer[..<used])
        used = 0
        return writeFully(pending)
    }

    /// Flushes and closes the file.
    func finish() throws(StrataError) {
        _ = flush()
        if let failure { throw failure }
        let result = close(descriptor)
        descriptor = -1
        guard result == 0 else {
            throw StrataError(.storeIO, "cannot finish writing '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = StrataError(.storeIO, "cannot write '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
                return false
            }
            offset += written
        }
        return true
    }
}
