import Foundation

/// The bytes libFuzzer hands `LLVMFuzzerTestOneInput`, copied out (the pointer may be null
/// when the count is zero).
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}

/// One file per fuzzing process, rewritten with every input, for the readers that take a path.
///
/// It lives in a directory of its own under the temporary directory (`TMPDIR`), named after the
/// process, so that fuzzers running side by side never share it, and it is removed with the
/// files SQLite may leave beside it (`-wal`, `-shm`, `-journal`) before each input is written.
public struct FuzzInputFile: Sendable {
    public let url: URL

    /// - Parameter name: the file's name, whose extension may tell the store type.
    public init(name: String) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent(name)
    }

    /// Replaces the file (and any SQLite side files) with `bytes`.
    public func write(_ bytes: [UInt8]) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            unlink(url.path + suffix)
        }
        do {
            try Data(bytes).write(to: url)
        } catch {
            fatalError("cannot write the fuzz input to \(url.path): \(error)")
        }
    }
}
