import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves that fail or are killed halfway leave the old store whole.
@Suite struct BinaryPlistCrashSafetyTests {
    static let childKey = "STRATA_BPLIST_CRASH_CHILD_STORE"

    /// Turns ``HalfWritingFormat``'s failure on and off from the test.
    final class FailureSwitch: Sendable {
        private let state = Mutex(false)

        var isOn: Bool {
            get { state.withLock { $0 } }
            set { state.withLock { $0 = newValue } }
        }
    }

    /// The binary format, except that while its switch is on a write stops halfway: it leaves
    /// the first half of the new file in the temporary file and throws, as a full disk would.
    struct HalfWritingFormat: AtomicStoreFormat {
        let base = BinaryPlistStoreFormat()
        let failure: FailureSwitch

        var type: StoreType { base.type }
        var fileExtensions: [String] { base.fileExtensions }
        func recognizes(header: Data) -> Bool { base.recognizes(header: header) }
        func read(from url: URL) throws(StrataError) -> AtomicStoreContents { try base.read(from: url) }
        func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata { try base.readMetadata(from: url) }

        func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError) {
            guard failure.isOn else { return try base.write(contents, to: url) }
            let bytes = try base.encode(contents)
            _ = FileManager.default.createFile(atPath: url.path, contents: Data(bytes.prefix(bytes.count / 2)))
            throw StrataError(.storeIO, "simulated failure after writing \(bytes.count / 2) of \(bytes.count) bytes")
        }
    }

    @Test func aSaveThatFailsHalfwayLeavesTheOldFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        let failure = FailureSwitch()
        var types = StoreTypeRegistry()
        types.register(AtomicStoreFactory(format: HalfWritingFormat(failure: failure)))
        let coordinator = PersistentStoreCoordinator(schema: Fixtures.schema, storeTypes: types)
        try coordinator.addStore(StoreDescription(type: .binaryPlist, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        let kept = try context.insertObject(entityName: "Item")
        kept["text"] = "kept"
        let doomed = try context.insertObject(entityName: "Item")
        doomed["text"] = "deleted later"
        try context.save()
        let before = try Data(contentsOf: url)
        #expect(directory.names == ["store.plist", "store.plist.lock"])

        failure.isOn = true
        kept["text"] = "changed"
        context.delete(doomed)
        let added = try context.insertObject(entityName: "Item")
        added["text"] = "added"
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .storeIO)
        #expect(error.message.hasPrefix("simulated failure after writing "))
        // The old file byte for byte, no temporary file left, and the store's records unchanged.
        #expect(try Data(contentsOf: url) == before)
        #expect(directory.names == ["store.plist", "store.plist.lock"])
        let other = ManagedObjectContext(coordinator: coordinator)
        let stored = try other.fetch(FetchRequest(entityName: "Item", sortDescriptors: [FetchSortDescriptor("text")]))
        #expect(stored.map { $0["text"] as? String } == ["deleted later", "kept"])
        #expect(try Fixtures.format.read(from: url).recordCount == 2)
        // The context still holds its changes, and saves them once writing works again.
        #expect(context.hasChanges)
        failure.isOn = false
        try context.save()
        let after = try Fixtures.format.read(from: url)
        #expect(after.records["Item"]?.values.compactMap { $0.attributes["text"] }.sorted { "\($0)" < "\($1)" } == [.string("added"), .string("changed")])
        #expect(directory.names == ["store.plist", "store.plist.lock"])
    }

    /// Starts this test binary again as a child that saves to the store in a loop, kills it with
    /// SIGKILL at a random moment, and checks that the store reads whole and holds exactly the
    /// state of one committed save. Repeated several times.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childKey] == nil))
    func killDuringSavesLeavesAWholeStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        // Big enough that each save takes a while, so that kills land inside writes.
        let ballast = (1...3_000).map { Fixtures.record("Tag", Int64($0), ["name": .string(String(repeating: "ballast \($0) ", count: 8))]) }
        try Fixtures.format.write(Fixtures.contents(ballast, keySequences: ["Tag": 3_000]), to: url)
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var generator = SeededGenerator(seed: 9)
        var saved = 0
        for round in 0..<6 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: executable)
            child.arguments = ["--testing-library", "swift-testing", "--filter", "crashChildSavesUntilKilled"]
            child.environment = ProcessInfo.processInfo.environment.merging([Self.childKey: url.path]) { $1 }
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            let before = Self.fileNumber(url)
            try child.run()
            // Once the child has renamed its first save over the store, kill it at a random
            // moment of its saving loop.
            let deadline = Date().addingTimeInterval(60)
            while Self.fileNumber(url) == before, Date() < deadline, child.isRunning {
                Thread.sleep(forTimeInterval: 0.01)
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.5, using: &generator))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child ended by itself (status \(child.terminationStatus))")
            #expect(child.terminationStatus == SIGKILL)
            let contents = try Fixtures.format.read(from: url)
            let counters = (contents.records["Item"] ?? [:]).values.compactMap { record -> Int64? in
                if case .integer(let value)? = record.attributes["large"] { return value }
                return nil
            }.sorted()
            #expect(counters == (0..<counters.count).map { Int64($0 + 1) }, "round \(round): not the state of one save")
            #expect(contents.records["Tag"]?.count == 3_000)
            #expect(counters.count >= saved)
            saved = counters.count
        }
        // A kill inside a save leaves its temporary file behind (the old store is untouched).
        let interrupted = directory.names.filter { $0.hasSuffix(".tmp") }.count
        #expect(saved >= 6, "each child should have completed a save before it was killed")
        print("kill -9 test: \(saved) saves committed over 6 kills; \(interrupted) kills landed inside a save (temporary files left)")
    }

    /// The inode of the file: every save renames a new file over the store.
    static func fileNumber(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.systemFileNumber] as? Int
    }

    /// The child of ``killDuringSavesLeavesAWholeStore()``: saves one more item at a time, with
    /// a counter, until it is killed (or after 60 seconds, so that no stray child lingers).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childKey] != nil, "runs only as the child process of killDuringSavesLeavesAWholeStore"))
    func crashChildSavesUntilKilled() throws {
        let url = URL(fileURLWithPath: ProcessInfo.processInfo.environment[Self.childKey]!)
        let context = ManagedObjectContext(coordinator: try Fixtures.coordinator(at: url))
        var next = Int64(try context.count(for: FetchRequest(entityName: "Item")) + 1)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let item = try context.insertObject(entityName: "Item")
            item["text"] = "save \(next)"
            item["large"] = next
            try context.save()
            next += 1
        }
    }
}
