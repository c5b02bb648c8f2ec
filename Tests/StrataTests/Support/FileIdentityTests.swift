import Foundation
@testable import Strata
import Testing

@Suite("FileIdentity")
struct FileIdentityTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-file-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func linksAndSpellingsAreTheSameFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("s.sqlite")
        try Data("x".utf8).write(to: store)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("link"), withDestinationURL: store)
        try FileManager.default.linkItem(at: store, to: directory.appendingPathComponent("hard"))
        let identity = try #require(FileIdentity(path: store.path))
        #expect(FileIdentity(path: directory.appendingPathComponent("link").path) == identity)
        #expect(FileIdentity(path: directory.appendingPathComponent("hard").path) == identity)
        #expect(FileIdentity(path: directory.path + "/./s.sqlite") == identity)
        #expect(FileIdentity(path: directory.appendingPathComponent("missing").path) == nil)

        // SQLite's companions belong to the store, reached through the link as well.
        try Data().write(to: directory.appendingPathComponent("s.sqlite-wal"))
        let wal = try #require(FileIdentity(path: directory.appendingPathComponent("s.sqlite-wal").path))
        #expect(FileIdentity.storeFiles(at: directory.appendingPathComponent("link").path) == [identity, wal])
    }

    /// A FIFO is refused before anything opens it. The FIFO is held open for writing and holds
    /// bytes, so that a regression reads them and fails instead of blocking the test.
    @Test func aFIFOIsRefusedWithoutBeingOpened() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe.xml")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let writer = open(fifo.path, O_RDWR | O_NONBLOCK)
        try #require(writer >= 0)
        defer { close(writer) }
        let bytes = Array(repeating: UInt8(ascii: "<"), count: 128)
        #expect(write(writer, bytes, bytes.count) == bytes.count)

        let message = "'\(fifo.path)' is a FIFO (named pipe), not a regular file; a store must be a regular file (or a symlink to one)"
        #expect(throws: StrataError(.storeIO, message)) { try StoreTypeRegistry().type(of: fifo) }
        #expect(throws: StrataError(.storeIO, message)) {
            try PersistentStoreCoordinator.metadataForStore(at: fifo, type: .inMemory)
        }
        #expect(throws: StrataError(.storeIO, message)) {
            try StoreChecker.check(storeAt: fifo, storeTypes: StoreTypeRegistry())
        }
        // Nothing read it: the bytes are still in the pipe.
        var buffer = [UInt8](repeating: 0, count: 256)
        #expect(read(writer, &buffer, buffer.count) == bytes.count)
    }

    @Test func aDirectoryIsRefused() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: StrataError(.storeIO, "'\(directory.path)' is a directory, not a regular file; a store must be a regular file (or a symlink to one)")) {
            try StoreTypeRegistry().type(of: directory)
        }
    }
}
