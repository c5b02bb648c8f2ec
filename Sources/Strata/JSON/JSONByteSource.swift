package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Where a ``JSONReader`` gets its bytes: the next chunk, on demand.
package protocol JSONByteSource {
    /// Copies the next bytes into `buffer` (at most `buffer.count`) and returns how many; 0 at
    /// the end of the input. A source that fails to read ends its input and keeps what went
    /// wrong in its own state, for its owner to report.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
}

/// Bytes already in memory, handed out in chunks of at most `chunkSize` bytes.
package struct JSONMemorySource: JSONByteSource {
    private let data: Data
    private var offset: Int
    private let chunkSize: Int

    package init(_ data: Data, chunkSize: Int = 1 << 16) {
        self.data = data
        self.offset = data.startIndex
        self.chunkSize = max(chunkSize, 1)
    }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, chunkSize, data.endIndex - offset)
        guard count > 0 else { return 0 }
        data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: offset..<(offset + count))
        offset += count
        return count
    }
}

/// An open file descriptor, read with read(2) (the owner opens and closes it).
package struct JSONFileSource: JSONByteSource {
    private let descriptor: Int32
    /// The `errno` of a failed read; the input ended there.
    package private(set) var failure: Int32?
    /// The bytes read so far.
    package private(set) var bytesRead = 0

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard failure == nil, let base = buffer.baseAddress else { return 0 }
        while true {
            #if canImport(Glibc)
            let count = Glibc.read(descriptor, base, buffer.count)
            #elseif canImport(Musl)
            let count = Musl.read(descriptor, base, buffer.count)
            #else
            let count = Darwin.read(descriptor, base, buffer.count)
            #endif
            if count >= 0 {
                bytesRead += count
                return count
            }
            if errno == EINTR { continue }
            failure = errno
            return 0
        }
    }
}
