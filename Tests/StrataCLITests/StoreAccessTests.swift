import Foundation
import Testing

/// What every command does with the files it is given: no command writes over one of its
/// inputs, and no command opens a path that is not a regular file.
@Suite("files every command refuses")
struct StoreAccessTests {
    /// How a second name can lead to a store file.
    enum Alias: String, CaseIterable {
        /// The same path, spelled differently.
        case spelling
        case symlink
        case hardLink
    }

    /// Makes `name` another way to reach `store` in `workspace`, and returns the name to use.
    static func alias(_ alias: Alias, of store: String, in workspace: Workspace) throws -> String {
        switch alias {
        case .spelling:
            return "./" + store
        case .symlink:
            try FileManager.default.createSymbolicLink(atPath: workspace.file("link.out").path, withDestinationPath: store)
            return "link.out"
        case .hardLink:
            try FileManager.default.linkItem(at: workspace.file(store), to: workspace.file("hard.out"))
            return "hard.out"
        }
    }

    /// Every alias on SQLite, and each store type once: the comparison does not depend on it.
    static let aliasCases: [(String, Alias)] = Alias.allCases.map { ("sqlite", $0) } + [("xml", .spelling), ("plist", .hardLink)]

    // MARK: - No command writes over one of its inputs (D5)

    /// `strata dump s.sqlite -o s.sqlite` used to replace the store with its JSON and exit 0.
    @Test(arguments: aliasCases)
    func dumpDoesNotWriteOverItsStore(_ ext: String, _ alias: Alias) throws {
        let workspace = try Workspace.todo(ext)
        let before = try #require(workspace.contents("todo.\(ext)"))
        let output = try Self.alias(alias, of: "todo.\(ext)", in: workspace)
        let run = try workspace.run("dump", "todo.\(ext)", "-o", output)
        #expect(run.stderr == "strata: error: the output file '\(output)' is the store 'todo.\(ext)' (or one of its files); no command writes over one of its inputs; choose another file\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(workspace.contents("todo.\(ext)") == before)
    }

    /// SQLite's -wal and -shm files belong to the store: writing over them loses committed data.
    @Test(arguments: ["-wal", "-shm"])
    func dumpDoesNotWriteOverASQLiteCompanion(_ suffix: String) throws {
        let workspace = try Workspace.todo("sqlite")
        // A reader keeps the log files present while strata runs; make them exist for the test.
        if !workspace.exists("todo.sqlite" + suffix) { try workspace.write("todo.sqlite" + suffix, "") }
        let run = try workspace.run("dump", "todo.sqlite", "-o", "todo.sqlite" + suffix)
        #expect(run.stderr.hasPrefix("strata: error: the output file 'todo.sqlite\(suffix)' is the store 'todo.sqlite' (or one of its files)"), "\(run.stderr)")
        #expect(run.status == 2)
    }

    @Test(arguments: aliasCases)
    func convertDoesNotWriteOverItsSource(_ ext: String, _ alias: Alias) throws {
        let workspace = try Workspace.todo(ext)
        let before = try #require(workspace.contents("todo.\(ext)"))
        let destination = try Self.alias(alias, of: "todo.\(ext)", in: workspace)
        let run = try workspace.run("convert", "--force", "--to", "xml", "todo.\(ext)", destination)
        #expect(run.stderr == "strata: error: the source 'todo.\(ext)' and the destination '\(destination)' are the same file; convert into another file\n")
        #expect(run.status == 2)
        #expect(workspace.contents("todo.\(ext)") == before)
    }

    /// A data file that is the store itself is refused before anything is read or written.
    @Test(arguments: aliasCases)
    func loadDoesNotReadItsStoreAsData(_ ext: String, _ alias: Alias) throws {
        let workspace = try Workspace.todo(ext)
        let before = try #require(workspace.contents("todo.\(ext)"))
        let data = try Self.alias(alias, of: "todo.\(ext)", in: workspace)
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.\(ext)", data)
        #expect(run.stderr == "strata: error: the data file '\(data)' is the store 'todo.\(ext)' (or one of its files); no command writes over one of its inputs; choose another file\n")
        #expect(run.status == 2)
        #expect(workspace.contents("todo.\(ext)") == before)
    }

    // MARK: - Paths that are not regular files

    /// Every command that reads a store, given a FIFO: refused at once, never opened (opening a
    /// FIFO for reading blocks until a writer comes). Bounded: a run that blocks is stopped.
    @Test(arguments: [
        ["inspect", "pipe.xml"],
        ["dump", "pipe.xml"],
        ["query", "pipe.xml", "Todo"],
        ["delete", "pipe.xml", "Todo", "--where", "TRUEPREDICATE"],
        ["check", "pipe.xml"],
        ["convert", "pipe.xml", "out.sqlite"],
        ["inspect", "--type", "sqlite", "pipe.xml"],
        ["load", "--schema", "TodoList.json", "pipe.xml", "todo.json"],
    ])
    func aFIFOIsRefused(_ arguments: [String]) throws {
        let workspace = try Workspace(["todo.json": todoData], schemas: ["TodoList"])
        try #require(mkfifo(workspace.file("pipe.xml").path, 0o600) == 0)
        let run = try workspace.run(arguments, timeout: 20)
        #expect(!run.timedOut, "strata \(arguments.joined(separator: " ")) blocked on the FIFO")
        #expect(run.stderr.contains("'pipe.xml' is a FIFO (named pipe), not a regular file; a store must be a regular file (or a symlink to one)\n"), "\(run.stderr)")
        #expect(run.status == 2)
    }

    /// A model file that is a FIFO, for every command that reads one.
    @Test(arguments: [
        ["validate", "model.json"],
        ["load", "--schema", "model.json", "todo.plist", "todo.json"],
    ])
    func aFIFOAsAModelFileIsRefused(_ arguments: [String]) throws {
        let workspace = try Workspace(["todo.json": todoData])
        try #require(mkfifo(workspace.file("model.json").path, 0o600) == 0)
        let run = try workspace.run(arguments, timeout: 20)
        #expect(!run.timedOut, "strata \(arguments.joined(separator: " ")) blocked on the FIFO")
        #expect(run.stderr.contains("'model.json' is a FIFO (named pipe), not a regular file; a model file must be a regular file (or a symlink to one)") || run.stdout.contains("'model.json' is a FIFO (named pipe), not a regular file; a model file must be a regular file (or a symlink to one)"), "\(run.stdout)\(run.stderr)")
        #expect(run.status == 2)
    }

    @Test func aFIFOAsADataFileIsRefused() throws {
        let workspace = try Workspace(schemas: ["TodoList"])
        try #require(mkfifo(workspace.file("data.json").path, 0o600) == 0)
        let run = try workspace.run(["load", "--schema", "TodoList.json", "todo.plist", "data.json"], timeout: 20)
        #expect(!run.timedOut)
        #expect(run.stderr == "strata: error: 'data.json' is a FIFO (named pipe), not a regular file; a data file must be a regular file (or a symlink to one)\n")
        #expect(run.status == 2)
        #expect(!workspace.exists("todo.plist"))
    }

    @Test(arguments: ["inspect", "dump", "check"])
    func aDirectoryIsRefused(_ command: String) throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(at: workspace.file("store.sqlite"), withIntermediateDirectories: false)
        let run = try workspace.run(command, "store.sqlite")
        #expect(run.stderr.contains("'store.sqlite' is a directory, not a regular file"), "\(run.stderr)")
        #expect(run.status == 2)
    }

    /// A symlink to a store is a store.
    @Test(arguments: storeExtensions)
    func aSymlinkToAStoreIsFine(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        try FileManager.default.createSymbolicLink(atPath: workspace.file("link.\(ext)").path, withDestinationPath: "todo.\(ext)")
        #expect(try workspace.dump("link.\(ext)") == (try workspace.dump("todo.\(ext)")))
        #expect(try workspace.run("check", "link.\(ext)").status == 0)
    }
}
