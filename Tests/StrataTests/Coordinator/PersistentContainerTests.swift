import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct PersistentContainerTests {
    @Test func defaultsToOneInMemoryStore() throws {
        let container = try PersistentContainer(schema: TestModel.schema, classes: [Person.self])
        #expect(container.storeDescriptions == [.inMemory()])
        #expect(container.coordinator.stores.map(\.type) == [.inMemory])
        #expect(container.schema == TestModel.schema)
        let context = container.newBackgroundContext()
        #expect(context.name == "background")
        #expect(!context.automaticallyMergesChangesFromParent)
        #expect(context !== container.newBackgroundContext())
        #expect(context.insert(Person.self).isInserted)
    }

    @MainActor
    @Test func viewContextMergesBackgroundSaves() async throws {
        let container = try PersistentContainer(schema: TestModel.schema, classes: [Person.self, Book.self])
        let view = container.viewContext
        #expect(container.viewContext === view)
        #expect(view.name == "viewContext")
        #expect(view.automaticallyMergesChangesFromParent)

        let id = try await container.performBackgroundTask { context in
            let ann = context.person("Ann")
            try context.save()
            return ann.objectID
        }
        let ann = try #require(try view.fetch(Person.self).first)
        #expect(ann.objectID == id)
        try await container.performBackgroundTask { context in
            let person = try #require(try context.existingObject(with: id) as? Person)
            person.lastName = "Smith"
            try context.save()
        }
        #expect(ann.lastName == "Doe")             // merged at the view context's next operation
        _ = try view.count(for: FetchRequest(entityName: "Book"))
        #expect(ann.lastName == "Smith")
        #expect(!view.hasChanges)
    }

    @Test func performBackgroundTaskReturnsAndThrows() async throws {
        let container = try PersistentContainer(schema: TestModel.schema)
        let count = try await container.performBackgroundTask { context in
            try context.insertObject(entityName: "Tag")["name"] = "a"
            try context.save()
            return try context.count(for: FetchRequest(entityName: "Tag"))
        }
        #expect(count == 1)
        await #expect(throws: StrataError.self) {
            try await container.performBackgroundTask { context in
                try context.insertObject(entityName: "Tag")   // no name: refused
                try context.save()
            }
        }
        let stored = try await container.performBackgroundTask { try $0.count(for: FetchRequest(entityName: "Tag")) }
        #expect(stored == 1)
    }

    @Test func buildsFromAConfigurationFile() throws {
        let temporary = try TemporaryDirectory(prefix: "container")
        let directory = temporary.url
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Schemas"), withIntermediateDirectories: true)
        try Data(TestModel.json.utf8).write(to: directory.appendingPathComponent("Schemas/Library.json"))
        let file = directory.appendingPathComponent("strata.json")
        try Data(#"{ "schema": "Schemas/Library.json", "stores": [ { "type": "sqlite", "path": "Data/app.sqlite" } ] }"#.utf8).write(to: file)

        // The file names a store type this registry does not have...
        let unknown = expectError(.noStore) { _ = try PersistentContainer(configurationFile: file, environment: [:]) }
        #expect(unknown?.message == "unknown store type 'sqlite'; known types: memory")
        // ...which the environment replaces without a code change.
        let container = try PersistentContainer(configurationFile: file, environment: ["STRATA_STORE": "memory"])
        #expect(container.coordinator.stores.map(\.type) == [.inMemory])
        #expect(container.schema == TestModel.schema)

        // A store's folder is made when missing.
        let factory = try CountingStoreFactory(schema: TestModel.schema)
        try Data(#"{ "schema": "Schemas/Library.json", "stores": [ { "type": "counting", "path": "Deep/Data/x.counting" } ] }"#.utf8).write(to: file)
        let counting = try PersistentContainer(configurationFile: file, storeTypes: StoreTypeRegistry([factory]), environment: [:])
        #expect(counting.coordinator.stores.map(\.type) == [CountingStoreFactory.type])
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Deep/Data").path, isDirectory: &isDirectory) && isDirectory.boolValue)

        // A schema that does not load is named.
        try Data(#"{ "schema": "Schemas/Missing.json", "stores": [ { "type": "memory" } ] }"#.utf8).write(to: file)
        let missing = expectError(.invalidConfiguration) { _ = try PersistentContainer(configurationFile: file, environment: [:]) }
        #expect(missing?.message.contains("the schema '") == true)
        #expect(missing?.message.contains("Schemas/Missing.json' does not load") == true, "\(missing?.message ?? "")")
    }

    /// Writers save distinct objects at once from background tasks while readers count; every
    /// save is seen whole, and everything is there at the end. Run under TSan too:
    /// `swift test --sanitize=thread --filter concurrentBackgroundSavesAndReads`. On Linux, TSan
    /// can report a "Swift access race" on state inside `Mutex.withLock` when the lock was
    /// contended: the mutex hands it over in the kernel (a PI futex), which TSan does not see.
    /// A program with nothing but a contended `Mutex<[Int: Int]>` gets the same report.
    @Test func concurrentBackgroundSavesAndReads() async throws {
        let container = try PersistentContainer(schema: TestModel.schema, classes: [Person.self, Book.self])
        let writers = 6, batches = 3, batchSize = 5
        let savedIDs = try await withThrowingTaskGroup(of: [ObjectID].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        var ids: [ObjectID] = []
                        for batch in 0..<batches {
                            var people: [Person] = []
                            for index in 0..<batchSize {
                                let person = context.person("w\(writer)-b\(batch)-\(index)", "Writer\(writer)")
                                context.book("book of w\(writer)-b\(batch)-\(index)", by: person)
                                people.append(person)
                            }
                            try context.save()
                            ids += people.map(\.objectID)
                        }
                        return ids
                    }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<10 {
                        let (people, books) = try await container.performBackgroundTask { context in
                            (try context.count(for: FetchRequest(entityName: "Person")), try context.count(for: FetchRequest(entityName: "Book")))
                        }
                        // Saves are all-or-nothing: a reader sees whole batches.
                        #expect(people % batchSize == 0)
                        #expect(books % batchSize == 0)
                    }
                    return []
                }
            }
            var all: [ObjectID] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(savedIDs.count == writers * batches * batchSize)
        #expect(Set(savedIDs.compactMap(\.primaryKey)).count == savedIDs.count)

        let check = container.newBackgroundContext()
        let people = try check.fetch(Person.self)
        // Each person with their last name and their one book.
        let expected = (0..<writers).flatMap { writer in
            (0..<batches).flatMap { batch in
                (0..<batchSize).map { index in
                    let name = "w\(writer)-b\(batch)-\(index)"
                    return "\(name) Writer\(writer) \(["book of \(name)"])"
                }
            }
        }
        #expect(people.map { "\($0.fullName) \($0.books.map(\.title))" }.sorted() == expected.sorted())
        #expect(Set(people.map(\.objectID)) == Set(savedIDs))
        #expect(try check.count(for: FetchRequest(entityName: "Book")) == writers * batches * batchSize)
    }
}
