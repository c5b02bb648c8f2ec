import Foundation
import Strata
import StrataSQLite
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `load` and `convert --force` replace a store file the way a careful user would (issue 10,
/// D4): its mode kept, written through a symlink, a read-only file refused.
@Suite("strata replacing store files")
struct SafeReplacementTests {
    static func mode(_ workspace: Workspace, _ name: String) -> mode_t? {
        var status = stat()
        guard stat(workspace.file(name).path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    static let moreTags = "{\"objects\": {\"Tag\": [{\"@id\": 20, \"name\": \"garden\"}]}}"

    /// The issue's reproduction: `chmod 600 p.xml; strata load … p.xml more.json; ls -l p.xml`.
    @Test(arguments: ["xml", "plist"])
    func loadKeepsAPrivateStorePrivate(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        try workspace.write("more.json", Self.moreTags)
        #expect(chmod(workspace.file("todo.\(ext)").path, 0o600) == 0)
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.\(ext)", "more.json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.mode(workspace, "todo.\(ext)") == 0o600)
    }

    @Test(arguments: storeExtensions)
    func convertForceKeepsTheDestinationsMode(_ ext: String) throws {
        let workspace = try Workspace.todo("xml")
        try workspace.load("old.\(ext)", schema: "TodoList.json", data: [("more.json", Self.moreTags)])
        #expect(chmod(workspace.file("old.\(ext)").path, 0o640) == 0)
        let run = try workspace.run("convert", "--force", "todo.xml", "old.\(ext)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.mode(workspace, "old.\(ext)") == 0o640)
        #expect(try workspace.dump("old.\(ext)") == (try workspace.dump("todo.xml")))
    }

    /// Was: the link was replaced by a regular file and the real store never got the data.
    @Test(arguments: storeExtensions)
    func convertForceWritesThroughASymlink(_ ext: String) throws {
        let workspace = try Workspace.todo("xml")
        try FileManager.default.createDirectory(at: workspace.file("real"), withIntermediateDirectories: true)
        try workspace.load("real/old.\(ext)", schema: "TodoList.json", data: [("more.json", Self.moreTags)])
        try FileManager.default.createSymbolicLink(atPath: workspace.file("link.\(ext)").path, withDestinationPath: "real/old.\(ext)")
        let run = try workspace.run("convert", "--force", "todo.xml", "link.\(ext)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.file("link.\(ext)").path) == "real/old.\(ext)")
        #expect(try workspace.dump("real/old.\(ext)") == (try workspace.dump("todo.xml")))
    }

    /// A destination without write permission is refused (even for root) and left as it was.
    @Test(arguments: storeExtensions)
    func convertForceRefusesAReadOnlyDestination(_ ext: String) throws {
        let workspace = try Workspace.todo("xml")
        try workspace.load("old.\(ext)", schema: "TodoList.json", data: [("more.json", Self.moreTags)])
        #expect(chmod(workspace.file("old.\(ext)").path, 0o444) == 0)
        let before = try #require(workspace.contents("old.\(ext)"))
        let run = try workspace.run("convert", "--force", "todo.xml", "old.\(ext)")
        #expect(run.status == 2)
        #expect(run.stderr == "strata: error: '\(workspace.file("old.\(ext)").standardizedFileURL.path)' is read-only (mode 444); nothing was written. Make it writable (chmod u+w) to save to it\n")
        #expect(workspace.contents("old.\(ext)") == before)
        #expect(Self.mode(workspace, "old.\(ext)") == 0o444)
    }

    /// A SQLite destination open in another connection, with committed transactions still in
    /// its write-ahead log: converted into in place (SQLite's backup API), so the log is never
    /// orphaned and the file keeps its inode.
    @Test func convertForceIntoAnOpenSQLiteStore() throws {
        let workspace = try Workspace.todo("xml")
        try workspace.load("old.sqlite", schema: "TodoList.json", data: [("more.json", Self.moreTags)])
        var before = stat()
        #expect(stat(workspace.file("old.sqlite").path, &before) == 0)
        do {
            let coordinator = PersistentStoreCoordinator(schema: try Schema(contentsOf: workspace.file("TodoList.json")), storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
            try coordinator.addStore(StoreDescription(type: .sqlite, url: workspace.file("old.sqlite")))
            let context = ManagedObjectContext(coordinator: coordinator)
            try context.insertObject(entityName: "Tag")["name"] = "in the log"
            try context.save()
            #expect(workspace.exists("old.sqlite-wal"))

            let run = try workspace.run("convert", "--force", "todo.xml", "old.sqlite")
            #expect(run.status == 0, "\(run.stderr)")
        }
        var after = stat()
        #expect(stat(workspace.file("old.sqlite").path, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(try workspace.dump("old.sqlite") == (try workspace.dump("todo.xml")))
    }

    /// Any other replacement of a SQLite store with a log beside it is refused, nothing removed.
    @Test func convertForceToAnotherTypeRefusesASQLiteStoreWithALog() throws {
        let workspace = try Workspace.todo("xml")
        try workspace.load("old.sqlite", schema: "TodoList.json", data: [("more.json", Self.moreTags)])
        try workspace.write("old.sqlite-wal", "")
        let before = try #require(workspace.contents("old.sqlite"))
        let run = try workspace.run("convert", "--force", "--to", "xml", "todo.xml", "old.sqlite")
        #expect(run.status == 2)
        #expect(run.stderr.contains("has a '-wal' file beside it: another process may have the SQLite store open"), "\(run.stderr)")
        #expect(workspace.contents("old.sqlite") == before)
        #expect(workspace.exists("old.sqlite-wal"))
    }
}

/// Another user saving to a store (issue 10, D4: "a read-only root-owned file in a writable
/// directory is replaced by another user, who then owns it"). Run as root, saving as `nobody`.
@Suite("strata as another user", .enabled(if: geteuid() == 0 && StrataExecutable.canDropPrivileges, "needs root and setpriv"))
struct OtherUserReplacementTests {
    static func owner(_ workspace: Workspace, _ name: String) -> uid_t? {
        var status = stat()
        return stat(workspace.file(name).path, &status) == 0 ? status.st_uid : nil
    }

    /// A root-owned 0644 store in a directory everyone may write: refused, untouched, root's.
    @Test(arguments: ["xml", "plist"])
    func aFileTheUserMayNotWriteIsRefused(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        try workspace.write("more.json", SafeReplacementTests.moreTags)
        #expect(chmod(workspace.url.path, 0o777) == 0)
        #expect(chmod(workspace.file("todo.\(ext)").path, 0o644) == 0)
        let before = try #require(workspace.contents("todo.\(ext)"))
        let run = try workspace.runAsNobody("load", "--schema", "TodoList.json", "todo.\(ext)", "more.json")
        #expect(run.status == 2)
        #expect(run.stderr == "strata: error: you may not write '\(workspace.file("todo.\(ext)").standardizedFileURL.path)' (Permission denied); nothing was written. A save replaces the whole file, which it does only when you could write the file itself\n")
        #expect(workspace.contents("todo.\(ext)") == before)
        #expect(Self.owner(workspace, "todo.\(ext)") == 0)
    }

    /// A root-owned store that everyone may write: a save would hand it to the saver, since
    /// only root can give a file away, so it is refused.
    @Test(arguments: ["xml", "plist"])
    func aFileWhoseOwnerCannotBeKeptIsRefused(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        try workspace.write("more.json", SafeReplacementTests.moreTags)
        #expect(chmod(workspace.url.path, 0o777) == 0)
        #expect(chmod(workspace.file("todo.\(ext)").path, 0o666) == 0)
        let before = try #require(workspace.contents("todo.\(ext)"))
        let run = try workspace.runAsNobody("load", "--schema", "TodoList.json", "todo.\(ext)", "more.json")
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("strata: error: cannot keep the owner (uid 0) of '\(workspace.file("todo.\(ext)").standardizedFileURL.path)' (Operation not permitted): "), "\(run.stderr)")
        #expect(workspace.contents("todo.\(ext)") == before)
        #expect(Self.owner(workspace, "todo.\(ext)") == 0)
        // No temporary file is left behind.
        #expect(try workspace.listing() == ["TodoList.json", "more.json", "todo.json", "todo.\(ext)"])
    }
}

extension SafeReplacementTests {
    /// No command writes its output over one of its inputs, a symlink to it included.
    @Test func convertRefusesADestinationThatIsTheSourceThroughASymlink() throws {
        let workspace = try Workspace.todo("xml")
        try FileManager.default.createSymbolicLink(atPath: workspace.file("alias.xml").path, withDestinationPath: "todo.xml")
        let before = try #require(workspace.contents("todo.xml"))
        let run = try workspace.run("convert", "--force", "todo.xml", "alias.xml")
        #expect(run.status == 2)
        #expect(run.stderr == "strata: error: the source 'todo.xml' and the destination 'alias.xml' are the same file (or the destination is one of the source store's files); convert into another file\n")
        #expect(workspace.contents("todo.xml") == before)
    }
}
