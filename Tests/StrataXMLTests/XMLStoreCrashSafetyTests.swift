import Foundation
import Strata
import StrataTestKit
import StrataXML
import Synchronization
import Testing

/// An XML format whose writes can be made to fail halfway: the first half of the real file is
/// written, then the write throws, as a full disk or a crash in the middle would leave it.
final class FailingXMLFormat: AtomicStoreFormat {
    let failing = Atomic<Bool>(false)
    private let base = XMLStoreFormat()

    var type: StoreType { base.type }
    var fileExtensions: [String] { base.fileExtensions }
    func recognizes(header: Data) -> Bool { base.recognizes(header: header) }
    func read(from url: URL) throws(StrataError) -> AtomicStoreContents { try base.read(from: url) }
    func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata { try base.readMetadata(from: url) }

    func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError) {
        try base.write(contents, to: url)
        guard failing.load(ordering: .relaxed) else { return }
        do {
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count / 2).write(to: url)
        } catch {
            Issue.record("could not cut the file: \(error)")
        }
        throw StrataError(.storeIO, "cannot write '\(url.path)': No space left on device")
    }
}

@Suite struct XMLStoreCrashSafetyTests {
    /// A save that fails in the middle leaves the store file byte for byte as it was, no
    /// temporary file behind, the store's records as they were and the context's changes
    /// pending; the next save succeeds.
    @Test func failedSaveLeavesTheOldFile() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let format = FailingXMLFormat()
            let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([AtomicStoreFactory(format: format)]))
            let store = try coordinator.addStore(StoreDescription(type: .xml, url: url)) as! AtomicStore
            let context = ManagedObjectContext(coordinator: coordinator)
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = "home"
            try context.save()
            let before = try Data(contentsOf: url)
            let recordsBefore = store.snapshot.records

            format.failing.store(true, ordering: .relaxed)
            tag["name"] = "house"
            let other = try context.insertObject(entityName: "Tag")
            other["name"] = "work"
            let error = strataError { try context.save() }
            #expect(error?.code == .storeIO)
            #expect(error?.message.hasSuffix("No space left on device") == true)
            #expect(try Data(contentsOf: url) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["todos.xml", "todos.xml.lock"])
            #expect(store.snapshot.records == recordsBefore)
            #expect(context.hasChanges)
            #expect(canonical(try XMLStoreFormat().read(from: url).records, schema) == canonical(recordsBefore, schema))

            format.failing.store(false, ordering: .relaxed)
            try context.save()
            let names = try XMLStoreFormat().read(from: url).records["Tag"]!.values.map { $0.attributes["name"] }
            #expect(Set(names) == [.string("house"), .string("work")])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["todos.xml", "todos.xml.lock"])
        }
    }

    /// A store written with a format that fails is not created at all: no file, no temporary.
    @Test func failedCreationLeavesNothing() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let format = FailingXMLFormat()
            format.failing.store(true, ordering: .relaxed)
            let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([AtomicStoreFactory(format: format)]))
            let error = strataError { try coordinator.addStore(StoreDescription(type: .xml, url: directory.appendingPathComponent("new.xml"))) }
            #expect(error?.code == .storeIO)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left == [])
        }
    }

    // MARK: - kill -9

    static let childStoreVariable = "STRATA_XML_CRASH_CHILD_STORE"
    static let childReadyVariable = "STRATA_XML_CRASH_CHILD_READY"

    /// The child's side of ``killedDuringSavesLeavesAWholeStore()``: run only in a child process
    /// the test starts, it saves in a loop until it is killed. Each save adds one Label and sets
    /// the "counter" Owner's name to the number of Labels, so a whole file always agrees with
    /// itself.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childStoreVariable] != nil))
    func crashChildSaveLoop() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = URL(fileURLWithPath: environment[Self.childStoreVariable]!)
        let ready = URL(fileURLWithPath: environment[Self.childReadyVariable]!)
        let schema = try valuesSchema()
        let coordinator = xmlCoordinator(schema)
        try coordinator.addStore(StoreDescription(type: .xml, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        let counter: ManagedObject
        if let existing = try context.fetch(FetchRequest(entityName: "Owner")).first {
            counter = existing
        } else {
            counter = try context.insertObject(entityName: "Owner")
            counter["name"] = "0"
            // Ballast, so that each save writes long enough for a kill to land in the middle.
            for index in 0..<3000 {
                let sample = try context.insertObject(entityName: "Sample")
                sample["text"] = String(repeating: "ballast \(index) ", count: 8)
                sample["blob"] = Data(repeating: UInt8(index % 256), count: 200)
            }
            try context.save()
        }
        try Data("ready".utf8).write(to: ready)
        let deadline = ContinuousClock.now + .seconds(60)
        var count = Int(counter["name"] as! String)!
        while ContinuousClock.now < deadline {
            let label = try context.insertObject(entityName: "Label")
            label["name"] = "label \(count)"
            count += 1
            counter["name"] = String(count)
            try context.save()
        }
    }

    /// A real crash: a child process saving in a loop is killed with SIGKILL at a random moment,
    /// several times; after each kill the store opens and is whole (its counter matches its
    /// contents), and the next child carries on from it.
    @Test func killedDuringSavesLeavesAWholeStore() throws {
        var generator = SeededGenerator(seed: 9)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("crash.xml")
            var lastCount = -1
            var leftovers: Set<String> = []
            var killedDuringWrite = 0
            for round in 0..<4 {
                let ready = directory.appendingPathComponent("ready-\(round)")
                try killChildTest(
                    "crashChildSaveLoop", storeVariable: Self.childStoreVariable, store: url, readyVariable: Self.childReadyVariable,
                    ready: ready, running: Double.random(in: 0.2...1.2, using: &generator))

                // A killed save leaves its temporary file behind (the old store file stays whole).
                let temporary = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") })
                if !temporary.subtracting(leftovers).isEmpty { killedDuringWrite += 1 }
                leftovers = temporary
                let contents = try XMLStoreFormat().read(from: url)
                let counter = contents.records["Owner"]?.values.first?.attributes["name"]
                let labels = contents.records["Label"]?.count ?? 0
                #expect(counter == .string(String(labels)))
                #expect(contents.records["Sample"]?.count == 3000)
                #expect(labels >= lastCount)
                lastCount = labels
            }
            #expect(lastCount > 0, "the children saved")
            // The children spend most of their time writing: some kills must land mid-write.
            #expect(killedDuringWrite > 0)
        }
    }
}
