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

    /// A store's companions belong to it — SQLite's -wal, -shm and -journal, an atomic store's
    /// .lock — whether they exist at that moment or not: a -wal appears as soon as a connection
    /// opens the store, and writing a dump there replaced a live log and destroyed the store
    /// (the adversarial trial: 6 of 12 rounds beside loads); a dump written as the .lock gave
    /// two writers two locks.
    static let companions: [(String, String, Bool)] = [("sqlite", "-wal"), ("sqlite", "-shm"), ("sqlite", "-journal"), ("xml", ".lock"), ("plist", ".lock")]
        .flatMap { pair in [false, true].map { (pair.0, pair.1, $0) } }

    @Test(arguments: companions)
    func dumpDoesNotWriteOverACompanion(_ ext: String, _ suffix: String, _ exists: Bool) throws {
        let workspace = try Workspace.todo(ext)
        let store = "todo.\(ext)"
        let companion = store + suffix
        if exists && !workspace.exists(companion) { try workspace.write(companion, "") }
        if !exists && workspace.exists(companion) { try FileManager.default.removeItem(at: workspace.file(companion)) }
        let before = try #require(workspace.contents(store))
        let run = try workspace.run("dump", store, "-o", companion)
        #expect(run.stderr == "strata: error: the output file '\(companion)' is the store '\(store)' (or one of its files); no command writes over one of its inputs; choose another file\n")
        #expect(run.status == 2)
        #expect(workspace.exists(companion) == exists)
        #expect(workspace.contents(store) == before)
    }

    @Test func convertDoesNotWriteOverACompanionThatIsNotThereYet() throws {
        let workspace = try Workspace.todo("sqlite")
        let run = try workspace.run("convert", "--to", "xml", "todo.sqlite", "todo.sqlite-wal")
        #expect(run.stderr == "strata: error: the source 'todo.sqlite' and the destination 'todo.sqlite-wal' are the same file (or the destination is one of the source store's files); convert into another file\n")
        #expect(run.status == 2)
        #expect(!workspace.exists("todo.sqlite-wal"))
    }

    // MARK: - Output files are written as a user expects

    /// `dump -o /dev/null` replaced the machine's /dev/null with a regular file.
    @Test func dumpWritesIntoADeviceWithoutReplacingIt() throws {
        let workspace = try Workspace.todo("xml")
        let run = try workspace.run("dump", "todo.xml", "-o", "/dev/null")
        #expect(run.status == 0, "\(run.stderr)")
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial)
    }

    /// An output file keeps its mode, and a symlinked one stays a link with the dump in its target.
    @Test func dumpKeepsTheOutputsModeAndWritesThroughASymlink() throws {
        let workspace = try Workspace.todo("xml")
        try workspace.write("private.json", "old")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: workspace.file("private.json").path)
        try FileManager.default.createSymbolicLink(atPath: workspace.file("link.json").path, withDestinationPath: "private.json")
        let run = try workspace.run("dump", "todo.xml", "-o", "link.json")
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try workspace.run("dump", "todo.xml").stdout
        #expect(workspace.contents("private.json").map { String(decoding: $0, as: UTF8.self) } == expected)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.file("link.json").path) == "private.json")
        let mode = try FileManager.default.attributesOfItem(atPath: workspace.file("private.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func dumpRefusesADirectoryAsOutput() throws {
        let workspace = try Workspace.todo("xml")
        try FileManager.default.createDirectory(at: workspace.file("out"), withIntermediateDirectories: false)
        let run = try workspace.run("dump", "todo.xml", "-o", "out")
        #expect(run.stderr == "strata: error: 'out' is a directory; write the output to a file\n")
        #expect(run.status == 2)
    }

    /// A SQLite file with no write permission bit is read-only even for root, as the XML and
    /// binary stores already were: the trial's root `load` into a 444 store changed it.
    @Test func aSQLiteStoreWithoutWriteBitsIsNotWrittenEvenByRoot() throws {
        let workspace = try Workspace.todo("sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: workspace.file("todo.sqlite").path)
        let before = try #require(workspace.contents("todo.sqlite"))
        try workspace.write("more.json", #"{"objects": {"Tag": [{"@id": 99, "name": "extra"}]}}"#)
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.sqlite", "more.json")
        #expect(run.status == 2)
        #expect(run.stderr.contains("the store is read-only"), "\(run.stderr)")
        #expect(workspace.contents("todo.sqlite") == before)
    }

    @Test(arguments: aliasCases)
    func convertDoesNotWriteOverItsSource(_ ext: String, _ alias: Alias) throws {
        let workspace = try Workspace.todo(ext)
        let before = try #require(workspace.contents("todo.\(ext)"))
        let destination = try Self.alias(alias, of: "todo.\(ext)", in: workspace)
        let run = try workspace.run("convert", "--force", "--to", "xml", "todo.\(ext)", destination)
        #expect(run.stderr == "strata: error: the source 'todo.\(ext)' and the destination '\(destination)' are the same file (or the destination is one of the source store's files); convert into another file\n")
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
