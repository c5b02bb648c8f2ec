internal import Foundation
package import CLibXML2
package import Strata
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A file read through a 256 KiB buffer, for libxml2's input callbacks: libxml2 asks for about
/// 4 KB at a time, and a `read(2)` for each would cost more than the parsing.
///
/// Owns its file descriptor and closes it in `deinit`.
package final class XMLFileInput {
    private let descriptor: Int32
    private let path: String
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    /// The first read error, kept so that the parser's "I/O error" can say why.
    package private(set) var failure: StrataError?

    private static let capacity = 1 << 18

    package init(path: String) throws(StrataError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw StrataError(.storeIO, "cannot open '\(path)': \(reason)")
        }
        buffer = .allocate(byteCount: Self.capacity, alignment: 1)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    /// Copies up to `count` bytes into `destination`: the number copied, 0 at the end of the
    /// file, -1 after an error.
    package func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int32 {
        guard failure == nil else { return -1 }
        if start == end {
            start = 0
            end = 0
            while true {
                let result = readDescriptor(descriptor, buffer.baseAddress!, Self.capacity)
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = StrataError(.storeIO, "cannot read '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
                    return -1
                }
                end = result
                break
            }
            if end == 0 { return 0 }
        }
        let copied = min(count, end - start)
        destination.copyMemory(from: buffer.baseAddress! + start, byteCount: copied)
        start += copied
        return Int32(copied)
    }
}

extension XMLFileInput {
    /// libxml2's input callback (`xmlCreateIOParserCtxt`): reads from the ``XMLFileInput``
    /// passed as context, unretained (the caller keeps it alive for the parse).
    package static let readCallback: xmlInputReadCallback = { context, buffer, count in
        guard let context, let buffer else { return -1 }
        return Unmanaged<XMLFileInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: Int(count))
    }

    /// libxml2's close callback: the ``XMLFileInput`` closes its file itself.
    package static let closeCallback: xmlInputCloseCallback = { _ in 0 }
}

/// read(2), outside the class so that its `read(into:count:)` does not hide it.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
