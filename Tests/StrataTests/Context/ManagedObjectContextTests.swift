import Foundation
import StrataTestKit
import Synchronization
import Strata
import Testing

/// A coordinator with an in-memory store and one saved person, Ann, with a book and a pet.
private func stack() throws -> (PersistentStoreCoordinator, ManagedObjectContext, Person) {
    let coordinator = TestModel.coordinator()
    let context = ManagedObjectContext(coordinator: coordinator)
    let ann = context.person("Ann", "Lee")
    ann.age = 30
    context.book("Dune", by: ann)
    let pet = Pet(context: context)
    pet.name = "Rex"
    ann.pet = pet
    try context.save()
    return (coordinator, context, ann)
}

@Suite struct ManagedObjectContextTests {
    // MARK: - Uniquing and faults

    @Test func oneObjectPerRecordPerContext() throws {
        let (coordinator, context, ann) = try stack()
        #expect(context.object(with: ann.objectID) === ann)
        #expect(try context.existingObject(with: ann.objectID) === ann)
        #expect(try context.fetch(Person.self).first === ann)
        #expect(ann.books.first?.author === ann)

        let other = ManagedObjectContext(coordinator: coordinator)
        let first = try other.fetch(Person.self)
        let second = try other.fetch(FetchRequest(entityName: "Person"))
        let third = other.object(with: ann.objectID)
        #expect(first.count == 1)
        #expect(first[0] === second[0])
        #expect(first[0] === third)
        #expect(first[0] !== ann)
        #expect(first[0].books.first?.author === first[0])
        #expect(other.registeredObjects.contains(first[0]))
    }

    @Test func objectWithReturnsAFaultThatFillsOnAccess() throws {
        let (coordinator, _, ann) = try stack()
        let other = ManagedObjectContext(coordinator: coordinator)
        let fault = other.object(with: ann.objectID)
        #expect(fault.isFault)
        #expect(!fault.hasChanges)
        #expect(fault["firstName"] as? String == "Ann")
        #expect(!fault.isFault)

        // A fault for a record that does not exist reads as deleted and empty.
        let missing = try coordinator.objectID(entityName: "Person", primaryKey: 999)
        let ghost = other.object(with: missing)
        #expect(ghost.isFault)
        #expect(ghost["firstName"] == nil)
        #expect(!ghost.isFault)
        #expect(ghost.isDeleted)

        // Relationship destinations are faults until touched.
        let person = try other.existingObject(with: ann.objectID)
        #expect(!person.isFault)
        let pet = try #require(person.object(forKey: "pet"))
        #expect(pet.isFault)
        #expect(pet["name"] as? String == "Rex")
        #expect(!pet.isFault)
    }

    @Test func existingObjectThrowsForUnknownIDs() throws {
        let (coordinator, context, ann) = try stack()
        let other = ManagedObjectContext(coordinator: coordinator)
        let missing = try coordinator.objectID(entityName: "Person", primaryKey: 999)
        expectError(.objectNotFound) { _ = try other.existingObject(with: missing) }
        let inserted = context.person("New")
        expectError(.objectNotFound) { _ = try other.existingObject(with: inserted.objectID) }
        #expect(try context.existingObject(with: inserted.objectID) === inserted)
        context.delete(ann)
        try context.save()
        expectError(.objectNotFound) { _ = try other.existingObject(with: ann.objectID) }
    }

    // MARK: - Change tracking

    @Test func changeStateTransitions() throws {
        let (_, context, ann) = try stack()
        #expect(!context.hasChanges)
        let bob = context.person("Bob")
        #expect(bob.isInserted && bob.hasChanges && !bob.isUpdated && !bob.isDeleted)
        #expect(context.insertedObjects == [bob])
        try context.save()
        #expect(!bob.isInserted && !bob.hasChanges && !bob.objectID.isTemporary)

        ann.firstName = "Anne"
        #expect(ann.isUpdated && ann.hasChanges && context.hasChanges)
        #expect(context.updatedObjects == [ann])
        ann.firstName = "Ann"  // back to the saved value
        #expect(!ann.isUpdated && !ann.hasChanges)
        #expect(!context.hasChanges)
        #expect(context.updatedObjects.isEmpty)

        // A to-many change and its reversal, likewise.
        let book = try #require(ann.books.first)
        ann.books = []
        #expect(ann.isUpdated && book.isUpdated)
        ann.books = [book]
        #expect(!ann.isUpdated && !book.isUpdated && !context.hasChanges)

        context.delete(bob)
        #expect(bob.isDeleted && bob.hasChanges && !bob.isUpdated)
        #expect(context.deletedObjects == [bob])
        try context.save()
        #expect(bob.managedObjectContext == nil)
        #expect(!context.registeredObjects.contains(bob))

        // Inserted then deleted: never reaches the store.
        let temp = context.person("Temp")
        context.delete(temp)
        #expect(context.insertedObjects.isEmpty && context.deletedObjects.isEmpty)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: where_("firstName", .equal, "Temp"))) == 0)
    }

    @Test func changedAndCommittedValues() throws {
        let (_, context, ann) = try stack()
        #expect(ann.changedValues().isEmpty)
        ann.firstName = "Anne"
        ann.age = nil
        ann.mood = "happy"   // transient: kept in memory, never a change to save
        #expect(ann.changedValues() == ["firstName": .attribute(.string("Anne")), "age": .attribute(nil)])
        #expect(ann.committedValues(forKeys: ["firstName", "age"]) == ["firstName": .attribute(.string("Ann")), "age": .attribute(.integer(30))])
        let committed = ann.committedValues()
        #expect(committed["lastName"] == .attribute(.string("Lee")))
        #expect(committed["books"] == .toMany(ann.books.map(\.objectID)))
        #expect(committed["pet"] == .toOne(ann.pet?.objectID))
        #expect(committed["mood"] == nil)
        #expect(Set(committed.keys) == ["firstName", "lastName", "age", "nickname", "books", "pet", "friends"])

        let bob = context.person("Bob")
        #expect(bob.committedValues(forKeys: ["firstName", "friends"]) == ["firstName": .attribute(nil), "friends": .toMany([])])
        ann.friends = [bob]
        #expect(ann.changedValues()["friends"] == .toMany([bob.objectID]))
        try context.save()
        #expect(ann.changedValues().isEmpty)
        #expect(ann.committedValues(forKeys: ["firstName", "friends"]) == ["firstName": .attribute(.string("Anne")), "friends": .toMany([bob.objectID])])
    }

    @Test func insertingRefusesUnknownAndAbstractEntities() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let unknown = expectError(.unknownEntity) { try context.insertObject(entityName: "Persn") }
        #expect(unknown?.message.contains("did you mean 'Person'") == true, "\(unknown?.message ?? "")")
        expectError(.invalidData) { try context.insertObject(entityName: "Shape") }
        let circle = try context.insertObject(entityName: "Circle")
        #expect(circle["radius"] as? Double == 1)
        #expect(context.insertedObjects == [circle])
    }

    // MARK: - Rollback, reset, refresh

    @Test func rollbackDropsEveryUnsavedChange() throws {
        let (coordinator, context, ann) = try stack()
        let book = try #require(ann.books.first)
        let pet = try #require(ann.pet)
        let inserted = context.person("Bob")
        ann.firstName = "Anne"
        ann.friends = [inserted]
        context.delete(book)
        pet.owner = nil
        context.rollback()
        #expect(!context.hasChanges)
        #expect(inserted.managedObjectContext == nil)
        #expect(!context.registeredObjects.contains(inserted))
        #expect(ann.firstName == "Ann")
        #expect(ann.friends.isEmpty)
        #expect(!book.isDeleted)
        #expect(ann.books == [book])
        #expect(book.author === ann)
        #expect(ann.pet === pet)
        #expect(pet.owner === ann)
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 1)
        try context.save()
        let stored = try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Book"))
        #expect(stored == 1)
    }

    @Test func resetForgetsEveryObject() throws {
        let (_, context, ann) = try stack()
        let inserted = context.person("Bob")
        ann.firstName = "Anne"
        context.reset()
        #expect(!context.hasChanges)
        #expect(context.registeredObjects.isEmpty)
        #expect(ann.managedObjectContext == nil)
        #expect(inserted.managedObjectContext == nil)
        let again = try #require(try context.fetch(Person.self).first)
        #expect(again !== ann)
        #expect(again.firstName == "Ann")
        #expect(again.objectID == ann.objectID)
    }

    @Test func refreshWithAndWithoutMergingChanges() throws {
        let (coordinator, context, ann) = try stack()
        let other = ManagedObjectContext(coordinator: coordinator)
        let elsewhere = try #require(try other.fetch(Person.self).first)
        elsewhere.lastName = "Smith"
        elsewhere.age = 31
        try other.save()

        // Without merging: unsaved changes are dropped, the object is a fault of the new state.
        ann.firstName = "Anne"
        context.refresh(ann, mergeChanges: false)
        #expect(ann.isFault)
        #expect(!ann.hasChanges && !context.hasChanges)
        #expect(ann.firstName == "Ann")
        #expect(ann.lastName == "Smith")
        #expect(ann.age == 31)

        // Merging: own changes stay on top of the stored values.
        elsewhere.lastName = "Jones"
        try other.save()
        ann.firstName = "Anne"
        context.refresh(ann, mergeChanges: true)
        #expect(ann.firstName == "Anne")
        #expect(ann.lastName == "Jones")
        #expect(ann.changedValues() == ["firstName": .attribute(.string("Anne"))])
        try context.save()
        let stored = try ManagedObjectContext(coordinator: coordinator).existingObject(with: ann.objectID)
        #expect(stored["firstName"] as? String == "Anne")
        #expect(stored["lastName"] as? String == "Jones")

        // An inserted object is not refreshed.
        let bob = context.person("Bob")
        context.refresh(bob, mergeChanges: false)
        #expect(bob.isInserted && bob.firstName == "Bob")
    }

    // MARK: - Saves seen by others

    @Test func saveObserversGetEverySaveAndStopWhenRemoved() throws {
        let (coordinator, context, ann) = try stack()
        let received = Received()
        let token = coordinator.addSaveObserver { received.append($0) }
        let book = try #require(ann.books.first)
        ann.firstName = "Anne"
        let bob = context.person("Bob")
        context.delete(book)
        try context.save()
        let notes = received.all
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(note.inserted == [bob.objectID])
        #expect(note.updated == [ann.objectID])
        #expect(note.deleted == [book.objectID])
        #expect(note.changedKeys == [ann.objectID: ["firstName", "books"]])
        #expect(Set(note.records.keys) == [ann.objectID, bob.objectID])
        #expect(note.records[ann.objectID]?.attributes["firstName"] == .string("Anne"))
        #expect(note.records[bob.objectID]?.attributes["firstName"] == .string("Bob"))
        #expect(note.sourceContext != nil)

        coordinator.removeObserver(token)
        ann.firstName = "Ann"
        try context.save()
        #expect(received.all.count == 1)
    }

    @Test func saveNotificationsAsAnAsyncSequence() async throws {
        let coordinator = TestModel.coordinator()
        let notifications = coordinator.saveNotifications()
        let ids = try await Task.detached {
            let context = ManagedObjectContext(coordinator: coordinator)
            var ids: [ObjectID] = []
            for name in ["Ann", "Bob"] {
                let person = context.person(name)
                try context.save()
                ids.append(person.objectID)
            }
            return ids
        }.value
        var seen: [Set<ObjectID>] = []
        for await notification in notifications {
            seen.append(notification.inserted)
            if seen.count == 2 { break }
        }
        #expect(seen == [[ids[0]], [ids[1]]])
    }

    @Test func mergeChangesFromAnotherContextsSave() throws {
        let (coordinator, context, ann) = try stack()
        let other = ManagedObjectContext(coordinator: coordinator)
        let mine = try #require(try other.fetch(Person.self).first)
        let myBook = try #require(mine.books.first)
        #expect(myBook.title == "Dune")
        mine.nickname = "mine"          // an unsaved change of the merging context

        let received = Received()
        let token = coordinator.addSaveObserver { received.append($0) }
        defer { coordinator.removeObserver(token) }
        ann.lastName = "Smith"
        ann.nickname = "theirs"
        let book = try #require(ann.books.first)
        context.delete(book)
        let bob = context.person("Bob")
        try context.save()

        other.mergeChanges(from: try #require(received.all.first))
        #expect(mine.lastName == "Smith")
        #expect(mine.nickname == "mine")
        #expect(mine.changedValues() == ["nickname": .attribute(.string("mine"))])
        #expect(mine.books.isEmpty)
        #expect(myBook.managedObjectContext == nil)
        #expect(myBook.isDeleted)
        #expect(try other.existingObject(with: bob.objectID)["firstName"] as? String == "Bob")
        try other.save()
        let stored = try ManagedObjectContext(coordinator: coordinator).existingObject(with: ann.objectID)
        #expect(stored["nickname"] as? String == "mine")
        #expect(stored["lastName"] as? String == "Smith")
    }

    @Test func automaticMergingOnTheNextOperation() throws {
        let (coordinator, context, ann) = try stack()
        let other = ManagedObjectContext(coordinator: coordinator)
        other.automaticallyMergesChangesFromParent = true
        let mine = try #require(try other.fetch(Person.self).first)
        ann.lastName = "Smith"
        try context.save()
        #expect(mine.lastName == "Lee")      // not merged until the context's next operation
        _ = try other.fetch(FetchRequest(entityName: "Tag"))
        #expect(mine.lastName == "Smith")
        #expect(!other.hasChanges)

        // Its own saves are not merged back; turning it off stops merging.
        mine.age = 50
        try other.save()
        other.automaticallyMergesChangesFromParent = false
        context.refresh(ann, mergeChanges: false)
        #expect(ann.age == 50)
        ann.lastName = "Jones"
        try context.save()
        _ = try other.fetch(FetchRequest(entityName: "Tag"))
        #expect(mine.lastName == "Smith")
    }

    @Test func performRunsItsBodyAsOneUndoGroup() throws {
        let (_, context, ann) = try stack()
        context.undoManager = UndoStack()
        let result = context.perform {
            ann.firstName = "Anne"
            ann.lastName = "Smith"
            return ann.fullName
        }
        #expect(result == "Anne Smith")
        context.undo()
        #expect(ann.fullName == "Ann Lee")
        #expect(!context.hasChanges)
    }
}

/// Notifications collected by an observer, from whichever task saved.
final class Received: Sendable {
    private let notifications = Mutex<[SaveNotification]>([])
    func append(_ notification: SaveNotification) { notifications.withLock { $0.append(notification) } }
    var all: [SaveNotification] { notifications.withLock { $0 } }
}
