import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// Two coordinators (as two processes would) on one XML file: a save that finds the file
/// replaced by the other's save rebases onto it under the optimistic-locking rules.
@Suite struct XMLStoreConcurrencyTests {
    /// Opens the store at `url` in a coordinator of its own.
    static func open(_ url: URL, _ schema: Schema) throws -> (PersistentStoreCoordinator, AtomicStore) {
        let coordinator = xmlCoordinator(schema)
        let store = try #require(try coordinator.addStore(StoreDescription(type: .xml, url: url)) as? AtomicStore)
        return (coordinator, store)
    }

    /// Runs `body` with a new store file and two coordinators that opened it.
    static func withTwoCoordinators(
        _ body: (URL, PersistentStoreCoordinator, PersistentStoreCoordinator) throws -> Void
    ) throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            try body(url, try open(url, schema).0, try open(url, schema).0)
        }
    }

    /// Tag names by primary key, read from the file itself.
    static func tagsInFile(_ url: URL) throws -> [Int64: String] {
        var result: [Int64: String] = [:]
        for record in try XMLStoreFormat().read(from: url).records["Tag"]?.values ?? [:].values {
            if case .string(let name) = record.attributes["name"] { result[record.objectID.primaryKey!] = name }
        }
        return result
    }

    static func tags(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: "Tag"))
    }

    /// Both insert, each with the key its own store handed out (1): the first keeps it, the
    /// second's tag and to-do get fresh keys, its context sees them, and the to-do's tag is its
    /// own tag, not the other's.
    @Test func concurrentInsertsAreBothKeptWithFreshKeys() throws {
        try Self.withTwoCoordinators { url, first, second in
            let secondStore = try #require(second.stores.first as? AtomicStore)

            let one = ManagedObjectContext(coordinator: first)
            let home = try one.insertObject(entityName: "Tag")
            home["name"] = "home"
            try one.save()
            #expect(home.objectID.primaryKey == 1)

            let two = ManagedObjectContext(coordinator: second)
            let work = try two.insertObject(entityName: "Tag")
            work["name"] = "work"
            let todo = try two.insertObject(entityName: "Todo")
            todo["title"] = "Write report"
            todo["createdAt"] = Date(timeIntervalSince1970: 0)
            todo.addObject(work, forKey: "tags")
            let notifications = Locked<[SaveNotification]>([])
            let token = second.addSaveObserver { notification in notifications.withLock { $0.append(notification) } }
            defer { second.removeObserver(token) }
            try two.save()

            #expect(work.objectID.primaryKey == 2)
            #expect(!work.objectID.isTemporary)
            #expect(try Self.tagsInFile(url) == [1: "home", 2: "work"])
            let stored = try #require(try XMLStoreFormat().read(from: url).records["Todo"]?.values.first)
            #expect(stored.toMany["tags"] == [work.objectID])
            // The context's objects hold the fresh IDs too, as their saved state.
            #expect(todo.objects(forKey: "tags") == [work])
            #expect(work.objects(forKey: "todos") == [todo])
            #expect(todo.committedValues(forKeys: ["tags"]) == ["tags": .toMany([work.objectID])])
            #expect(!two.hasChanges && !todo.hasChanges && !work.hasChanges)
            #expect(two.registeredObjects == [work, todo])
            #expect(try two.existingObject(with: work.objectID) === work)
            // The notification names the objects by their final IDs.
            let notified = notifications.withLock { $0 }
            #expect(notified.count == 1)
            #expect(notified.first?.inserted == [work.objectID, todo.objectID])
            #expect(notified.first?.records[work.objectID]?.toMany["todos"] == [todo.objectID])
            // The second store now holds what the first saved too.
            #expect(Set(try Self.tags(ManagedObjectContext(coordinator: second)).map { $0["name"] as? String }) == ["home", "work"])
            #expect(secondStore.snapshot.recordCount == 3)
        }
    }

    /// An explicitly requested key (`load`'s @id) that another process took is an error, and
    /// the file keeps the other's object.
    @Test func aRequestedKeyAnotherSaveTookIsAnError() throws {
        try Self.withTwoCoordinators { url, first, second in
            let one = ManagedObjectContext(coordinator: first)
            try one.insertObject(entityName: "Tag", primaryKey: 7)["name"] = "home"
            try one.save()

            let two = ManagedObjectContext(coordinator: second)
            try two.insertObject(entityName: "Tag", primaryKey: 7)["name"] = "work"
            let error = strataError { try two.save() }
            #expect(error?.code == .validationFailed)
            #expect(error?.message == "an object with primary key 7 already exists in the 'Tag' hierarchy (saved by another process since this store was loaded); nothing was saved")
            #expect(try Self.tagsInFile(url) == [7: "home"])
            #expect(two.hasChanges)
        }
    }

    /// An update of an object the other process changed since it was read is a merge
    /// conflict naming the object; with the overwrite policy the last writer wins.
    @Test func aConflictingUpdateFollowsTheMergePolicy() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            do {
                let (seed, _) = try Self.open(url, schema)
                let context = ManagedObjectContext(coordinator: seed)
                try context.insertObject(entityName: "Tag")["name"] = "home"
                try context.save()
            }
            let (first, _) = try Self.open(url, schema)
            let (second, _) = try Self.open(url, schema)
            let one = ManagedObjectContext(coordinator: first)
            let two = ManagedObjectContext(coordinator: second)
            let mine = try #require(try Self.tags(one).first)
            let theirs = try #require(try Self.tags(two).first)

            theirs["name"] = "house"
            try two.save()
            mine["name"] = "flat"
            let error = strataError { try one.save() }
            #expect(error?.code == .mergeConflict)
            #expect(error?.failures.map(\.objectID) == [mine.objectID])
            // The XML layout keeps no versions: objects read from the file are at version 0, and
            // one another process changed is put one above.
            #expect(error?.failures.first?.message == "changed by another save (of another process) since it was read (version 0 read, 1 stored)")
            #expect(try Self.tagsInFile(url) == [1: "house"])

            one.mergePolicy = .overwrite
            try one.save()
            #expect(try Self.tagsInFile(url) == [1: "flat"])
        }
    }

    /// Deleting an object the other process deleted already is no conflict; updating it is.
    @Test func anUpdateOfAnObjectTheOtherDeletedIsAConflict() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let (first, _) = try Self.open(url, schema)
            let seed = ManagedObjectContext(coordinator: first)
            try seed.insertObject(entityName: "Tag")["name"] = "home"
            try seed.insertObject(entityName: "Tag")["name"] = "work"
            try seed.save()
            let (second, _) = try Self.open(url, schema)
            let two = ManagedObjectContext(coordinator: second)
            for tag in try Self.tags(two) { two.delete(tag) }
            try two.save()

            let one = ManagedObjectContext(coordinator: first)
            let tags = try Self.tags(one)
            let home = try #require(tags.first { $0["name"] as? String == "home" })
            let work = try #require(tags.first { $0["name"] as? String == "work" })
            one.delete(work)
            home["name"] = "house"
            let error = strataError { try one.save() }
            #expect(error?.code == .mergeConflict)
            #expect(error?.failures.map(\.objectID) == [home.objectID])
            #expect(try Self.tagsInFile(url) == [:])
        }
    }

    /// An object only this process changed is no conflict after another process's save, though
    /// the file lists its to-many members in key order and this process in the order it saved.
    @Test func anObjectOnlyThisProcessChangedIsNoConflict() throws {
        try Self.withTwoCoordinators { url, first, second in
            let one = ManagedObjectContext(coordinator: first)
            let todo = try one.insertObject(entityName: "Todo")
            todo["title"] = "Plan trip"
            todo["createdAt"] = Date(timeIntervalSince1970: 0)
            var tags: [ManagedObject] = []
            for name in ["apple", "mango", "zebra"] {
                let tag = try one.insertObject(entityName: "Tag")
                tag["name"] = name
                tags.append(tag)
            }
            // The context gives the tags in the order they were added (3, 1, 2), the file in key order.
            for tag in [tags[2], tags[0], tags[1]] { todo.addObject(tag, forKey: "tags") }
            try one.save()
            #expect(try XMLStoreFormat().read(from: url).records["Todo"]?.values.first?.toMany["tags"]?.map(\.primaryKey) == [1, 2, 3])

            let two = ManagedObjectContext(coordinator: second)
            try two.insertObject(entityName: "Location")["name"] = "Office"
            try two.save()

            todo["priority"] = 3
            try one.save()
            let stored = try #require(try XMLStoreFormat().read(from: url).records["Todo"]?.values.first)
            #expect(stored.attributes["priority"] == .integer(3))
            #expect(try XMLStoreFormat().read(from: url).records["Location"]?.count == 1)
        }
    }

    /// Uniqueness constraints hold across the two processes' objects.
    @Test func uniquenessIsCheckedAgainstTheOthersObjects() throws {
        try Self.withTwoCoordinators { url, first, second in
            let one = ManagedObjectContext(coordinator: first)
            try one.insertObject(entityName: "Tag")["name"] = "home"
            try one.save()
            let two = ManagedObjectContext(coordinator: second)
            try two.insertObject(entityName: "Tag")["name"] = "home"
            let error = strataError { try two.save() }
            #expect(error?.code == .validationFailed)
            #expect(error?.message == "the save would break a uniqueness constraint (with objects another process saved)")
            #expect(try Self.tagsInFile(url) == [1: "home"])
        }
    }

    /// A store replaced by another store (another UUID, as `convert --force` does) is never
    /// written over by a save of the old one.
    @Test func aStoreReplacedByAnotherStoreRefusesTheSave() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let other = directory.appendingPathComponent("other.xml")
            let (first, _) = try Self.open(url, schema)
            let (replacement, _) = try Self.open(other, schema)
            let seed = ManagedObjectContext(coordinator: replacement)
            try seed.insertObject(entityName: "Tag")["name"] = "other"
            try seed.save()
            try FileManager.default.removeItem(at: url)
            try FileManager.default.copyItem(at: other, to: url)

            let one = ManagedObjectContext(coordinator: first)
            try one.insertObject(entityName: "Tag")["name"] = "mine"
            let error = strataError { try one.save() }
            #expect(error?.code == .storeIO)
            #expect(error?.message.contains("was replaced by another store") == true)
            #expect(try Self.tagsInFile(url) == [1: "other"])
        }
    }

    /// Threads of two coordinators saving at once, many times: every object is kept, each
    /// once, with a key of its own.
    @Test func manySavesFromTwoCoordinatorsAtOnce() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            let coordinators = try [Self.open(url, schema).0, Self.open(url, schema).0]
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                for round in 0..<10 {
                    let context = ManagedObjectContext(coordinator: coordinators[side])
                    do {
                        for item in 0..<3 { try context.insertObject(entityName: "Tag")["name"] = "\(side)-\(round)-\(item)" }
                        try context.save()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let tags = try Self.tagsInFile(url)
            #expect(Set(tags.values) == Set((0..<2).flatMap { side in (0..<10).flatMap { round in (0..<3).map { "\(side)-\(round)-\($0)" } } }))
            #expect(tags.count == 60)
        }
    }
}
