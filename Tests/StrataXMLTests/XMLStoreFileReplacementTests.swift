import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A save replaces the store file by rename; the new file must be the old one's successor in
/// every way a user sees (issue 10, D4): same mode, same owner, same place behind a symlink,
/// and no replacement of a file the user could not write.
@Suite struct XMLStoreFileReplacementTests {
    static func status(_ url: URL) throws -> stat {
        var status = stat()
        try #require(lstat(url.path, &status) == 0, "lstat \(url.path): \(String(cString: strerror(errno)))")
        return status
    }

    /// Creates a store with one tag at `url` and returns a context on it.
    static func storeWithATag(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = xmlCoordinator(try exampleSchema("TodoList"))
        try coordinator.addStore(StoreDescription(type: .xml, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertObject(entityName: "Tag")["name"] = "home"
        try context.save()
        return context
    }

    static func tagNames(_ url: URL) throws -> Set<String> {
        Set(try XMLStoreFormat().read(from: url).records["Tag"]?.values.compactMap { record -> String? in
            if case .string(let name) = record.attributes["name"] { return name }
            return nil
        } ?? [])
    }

    /// Was: a 0600 store became 0644 (world-readable) after a save.
    @Test(arguments: [0o600, 0o640, 0o664] as [mode_t])
    func aSaveKeepsTheMode(_ mode: mode_t) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let context = try Self.storeWithATag(url)
            #expect(chmod(url.path, mode) == 0)
            try context.insertObject(entityName: "Tag")["name"] = "work"
            try context.save()
            #expect(try Self.status(url).st_mode & 0o7777 == mode)
            #expect(try Self.tagNames(url) == ["home", "work"])
        }
    }

    /// Was: a symlinked store was replaced by a regular file, so the real file never got the
    /// data. The link stays a link and the file it names gets the save, written beside it.
    @Test func aSaveWritesThroughASymlink() throws {
        try withTemporaryDirectory { directory in
            let realDirectory = directory.appendingPathComponent("real")
            try FileManager.default.createDirectory(at: realDirectory, withIntermediateDirectories: true)
            let real = realDirectory.appendingPathComponent("todos.xml")
            _ = try Self.storeWithATag(real)
            let link = directory.appendingPathComponent("link.xml")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real/todos.xml")

            let coordinator = xmlCoordinator(try exampleSchema("TodoList"))
            try coordinator.addStore(StoreDescription(type: .xml, url: link))
            let other = ManagedObjectContext(coordinator: coordinator)
            try other.insertObject(entityName: "Tag")["name"] = "work"
            try other.save()
            #expect(try Self.status(link).st_mode & S_IFMT == S_IFLNK)
            #expect(try Self.tagNames(real) == ["home", "work"])
            // The lock file and the temporary files live beside the real file.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["link.xml", "real"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: realDirectory.path).sorted() == ["todos.xml", "todos.xml.lock"])
        }
    }

    /// Was: a read-only file in a writable directory was replaced. A file with no write
    /// permission at all is refused even for root, and nothing changes.
    @Test func aReadOnlyStoreIsRefused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let context = try Self.storeWithATag(url)
            #expect(chmod(url.path, 0o444) == 0)
            let before = try Data(contentsOf: url)
            let inode = try Self.status(url).st_ino
            try context.insertObject(entityName: "Tag")["name"] = "work"
            let error = strataError { try context.save() }
            #expect(error?.code == .storeIO)
            #expect(error?.message == "'\(url.path)' is read-only (mode 444); nothing was written. Make it writable (chmod u+w) to save to it")
            #expect(try Data(contentsOf: url) == before)
            #expect(try Self.status(url).st_ino == inode)
            #expect(try Self.status(url).st_mode & 0o7777 == 0o444)
            #expect(context.hasChanges)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["todos.xml", "todos.xml.lock"])
        }
    }

    /// Was: the file changed hands to whoever saved. As root, a file owned by another user and
    /// group keeps them.
    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func aSaveKeepsTheOwner() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let context = try Self.storeWithATag(url)
            #expect(chown(url.path, 4242, 4343) == 0)
            #expect(chmod(url.path, 0o620) == 0)
            try context.insertObject(entityName: "Tag")["name"] = "work"
            try context.save()
            let status = try Self.status(url)
            #expect(status.st_uid == 4242)
            #expect(status.st_gid == 4343)
            #expect(status.st_mode & 0o7777 == 0o620)
            #expect(try Self.tagNames(url) == ["home", "work"])
        }
    }
}

extension XMLStoreFileReplacementTests {
    /// A FIFO where the store should be is refused at once, not waited on.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            #expect(mkfifo(url.path, 0o644) == 0)
            let coordinator = xmlCoordinator(try exampleSchema("TodoList"))
            let error = strataError { try coordinator.addStore(StoreDescription(type: .xml, url: url)) }
            #expect(error?.code == .storeIO)
            #expect(error?.message == "'\(url.path)' is a FIFO (named pipe), not a regular file; a store must be a regular file (or a symlink to one)")
        }
    }
}
