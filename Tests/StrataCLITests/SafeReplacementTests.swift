import Foundation
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

    /// A SQLite destination with a log beside it may be open in another process (or hold
    /// committed transactions in its log): refused, nothing removed.
    @Test func convertForceRefusesASQLiteStoreWithALog() throws {
        let workspace = try Workspace.todo("xml")
        try workspace.load("old.sqlite", schema: "TodoList.json", data: [("more.json", Self.moreTags)])
        try workspace.write("old.sqlite-wal", "")
        let before = try #require(workspace.contents("old.sqlite"))
        let run = try workspace.run("convert", "--force", "todo.xml", "old.sqlite")
        #expect(run.status == 2)
        #expect(run.stderr.contains("has a '-wal' file beside it: another process may have the SQLite store open"), "\(run.stderr)")
        #expect(workspace.contents("old.sqlite") == before)
        #expect(workspace.exists("old.sqlite-wal"))
    }
}
