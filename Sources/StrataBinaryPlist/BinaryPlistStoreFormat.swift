public import Foundation
public import Strata
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The binary property-list store: a whole store in one standard `bplist00` file, which Python's
/// `plistlib`, `plutil` and Core Foundation read, in the layout `Docs/BinaryPlistFormat.md`
/// describes (a metadata dictionary with the model, then per-entity arrays of records).
///
/// Strata writes and reads these files itself, streaming, without Foundation's property-list
/// coders (several times slower on large stores). The reader checks every offset, count and
/// reference: a damaged, truncated or hostile file is refused with a `corruptStore` error that
/// says what is wrong and at which byte.
///
/// ```swift
/// var types = StoreTypeRegistry()
/// types.register(BinaryPlistStoreFactory())
/// let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: types)
/// try coordinator.addStore(StoreDescription(type: .binaryPlist, url: URL(fileURLWithPath: "todos.plist")))
/// ```
public struct BinaryPlistStoreFormat: AtomicStoreFormat {
    /// The format; it keeps no state, so one value serves every store.
    public init() {}

    /// `binary`.
    public var type: StoreType { .binaryPlist }

    /// `plist` and `bplist`.
    public var fileExtensions: [String] { ["plist", "bplist"] }

    /// True for files that start with `bplist00`.
    public func recognizes(header: Data) -> Bool {
        header.starts(with: BinaryPlistReader.header)
    }

    /// Reads a whole store.
    /// - Throws: `storeIO` when the file cannot be read; `corruptStore` naming what is wrong and
    ///   the byte offset when it is not a valid store of this layout.
    public func read(from url: URL) throws(StrataError) -> AtomicStoreContents {
        try contents(of: PlistFile.load(url), file: url.path)
    }

    /// Reads only the metadata (the records are not decoded).
    /// - Throws: like ``read(from:)``.
    public func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata {
        var decoder = try BinaryPlistStoreDecoder(reader: BinaryPlistReader(PlistFile.load(url), file: url.path))
        return try decoder.metadata().0
    }

    /// Writes a whole store into a new file at `url`.
    /// - Throws: `storeIO` when the file cannot be written; `invalidData` when a record does not
    ///   fit the model (a value of the wrong type, an unknown key, a temporary object ID).
    public func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError) {
        let writer = try BinaryPlistWriter(creatingFileAt: url)
        var encoder = try BinaryPlistStoreEncoder(writer: writer, contents: contents)
        try encoder.encode()
    }

    // MARK: - In memory (tests and tools)

    /// The bytes ``write(_:to:)`` would write.
    package func encode(_ contents: AtomicStoreContents) throws(StrataError) -> [UInt8] {
        let writer = BinaryPlistWriter()
        var encoder = try BinaryPlistStoreEncoder(writer: writer, contents: contents)
        return try encoder.encode()
    }

    /// Reads a store from bytes; `file` names them in errors.
    package func decode<Bytes: Collection>(_ bytes: Bytes, file: String = "<memory>") throws(StrataError) -> AtomicStoreContents where Bytes.Element == UInt8 {
        try contents(of: PlistBytes(copying: bytes), file: file)
    }

    /// Reads only the metadata from bytes.
    package func decodeMetadata<Bytes: Collection>(_ bytes: Bytes, file: String = "<memory>") throws(StrataError) -> StoreMetadata where Bytes.Element == UInt8 {
        var decoder = try BinaryPlistStoreDecoder(reader: BinaryPlistReader(PlistBytes(copying: bytes), file: file))
        return try decoder.metadata().0
    }

    private func contents(of bytes: PlistBytes, file: String) throws(StrataError) -> AtomicStoreContents {
        var decoder = try BinaryPlistStoreDecoder(reader: BinaryPlistReader(bytes, file: file))
        return try decoder.contents()
    }
}

/// Opens binary property-list stores (``BinaryPlistStoreFormat``): the factory to register with a
/// `StoreTypeRegistry` for the `binary` store type.
public struct BinaryPlistStoreFactory: PersistentStoreFactory {
    private let base = AtomicStoreFactory(format: BinaryPlistStoreFormat())

    /// The factory; register it with `StoreTypeRegistry.register(_:)` or pass it to
    /// `StoreTypeRegistry.init(_:)`.
    public init() {}

    /// `binary`.
    public var type: StoreType { base.type }
    /// `plist` and `bplist`.
    public var fileExtensions: [String] { base.fileExtensions }
    /// True for files that start with `bplist00`.
    public func recognizes(header: Data) -> Bool { base.recognizes(header: header) }

    /// Opens the store at `url`, creating it when missing.
    /// - Throws: `invalidConfiguration` without a URL; the errors of ``BinaryPlistStoreFormat``.
    public func open(url: URL?, schema: Schema, configurationName: String?, options: [String: String]) throws(StrataError) -> any PersistentStore {
        try base.open(url: url, schema: schema, configurationName: configurationName, options: options)
    }

    /// Reads the metadata of an existing store without loading its records.
    public func metadata(at url: URL) throws(StrataError) -> StoreMetadata {
        try base.metadata(at: url)
    }

    /// Migrates the store at `url` through `plan`: every record transformed in memory, the file
    /// replaced once, atomically (`AtomicStoreMigration`).
    public func migrateStore(at url: URL, plan: MigrationPlan, options: [String: String], progress: MigrationProgress?) throws(StrataError) -> MigrationReport {
        try base.migrateStore(at: url, plan: plan, options: options, progress: progress)
    }
}

/// Reading a store file whole.
enum PlistFile {
    /// The whole file, read with one allocation of its size.
    static func load(_ url: URL) throws(StrataError) -> PlistBytes {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw StrataError(.storeIO, "cannot open '\(url.path)': \(reason)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StrataError(.storeIO, "cannot read '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw StrataError(.storeIO, "cannot read '\(url.path)': it is not a regular file")
        }
        let size = Int(status.st_size)
        let bytes = PlistBytes(count: size)
        let buffer = bytes.mutableBytes
        var done = 0
        while done < size {
            let result = read(descriptor, buffer.baseAddress! + done, size - done)
            if result < 0 {
                if errno == EINTR { continue }
                throw StrataError(.storeIO, "cannot read '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
            }
            if result == 0 { break }
            done += result
        }
        guard done == size else {
            throw StrataError(.storeIO, "cannot read '\(url.path)': the file shrank from \(size) to \(done) bytes while it was read")
        }
        return bytes
    }
}
