import Foundation
import Strata
import StrataTestKit
import Testing

/// Saves of another process (here: another coordinator with its own store instance on the same
/// file) reach a coordinator that observes remote changes, through the store's record of
/// changes: SQLite's `strata_history`, an atomic store's replaced file.
@Suite struct RemoteChangeTests {
    static let schema: Schema = {
        do {
            return try Schema(data: Data("""
            { "name": "Notes", "version": "1", "entities": [
              { "name": "Note", "attributes": [ { "name": "text", "type": "string" } ] },
              { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ] } ] }
            """.utf8), file: "notes")
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    /// Two coordinators on one new store, the watcher following the other's saves; the store
    /// is removed with the pair.
    private final class Pair {
        let description: StoreDescription
        let watcher: PersistentStoreCoordinator
        let writer: PersistentStoreCoordinator
        let observation: RemoteChangeObservation

        init(_ kind: StoreKind) throws {
            description = try kind.makeDescription()
            watcher = PersistentStoreCoordinator(schema: RemoteChangeTests.schema, storeTypes: kind.storeTypes)
            try watcher.addStore(description)
            writer = PersistentStoreCoordinator(schema: RemoteChangeTests.schema, storeTypes: kind.storeTypes)
            try writer.addStore(description)
            observation = try watcher.observeRemoteChanges()
        }

        deinit {
            observation.stop()
            if let url = description.url { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: StoreKind.all.filter(\.persists))
    func anotherProcessSavesArriveAsNotifications(_ kind: StoreKind) async throws {
        let pair = try Pair(kind)
        defer { withExtendedLifetime(pair) {} }
        let (watcher, writer) = (pair.watcher, pair.writer)
        var notifications = watcher.saveNotifications().makeAsyncIterator()
        var values = watcher.observeObjectIDs(FetchRequest(entityName: "Note", sortDescriptors: [FetchSortDescriptor("text")])).makeAsyncIterator()
        #expect(try await values.next() == [])

        let context = ManagedObjectContext(coordinator: writer)
        let first = try context.insertObject(entityName: "Note")
        first["text"] = "a"
        let second = try context.insertObject(entityName: "Note")
        second["text"] = "b"
        try context.save()
        var notification = try #require(await notifications.next())
        #expect(notification.inserted == [first.objectID, second.objectID])
        #expect(notification.updated.isEmpty && notification.deleted.isEmpty)
        #expect(try await values.next() == [first.objectID, second.objectID])
        // The watcher's own reads see the new rows.
        #expect(try ManagedObjectContext(coordinator: watcher).fetchObjectIDs(FetchRequest(entityName: "Note")).count == 2)

        first["text"] = "c"
        context.delete(second)
        try context.save()
        notification = try #require(await notifications.next())
        #expect(notification.inserted.isEmpty)
        #expect(notification.updated == [first.objectID])
        #expect(notification.deleted == [second.objectID])
        #expect(try await values.next() == [first.objectID])
        let read = try ManagedObjectContext(coordinator: watcher).existingObject(with: first.objectID)
        #expect(read["text"] as? String == "c")

        // The watcher's own saves are not reported back to it.
        let own = ManagedObjectContext(coordinator: watcher)
        let tag = try own.insertObject(entityName: "Tag")
        tag["name"] = "mine"
        try own.save()
        notification = try #require(await notifications.next())
        #expect(notification.sourceContext != nil && notification.inserted == [tag.objectID])
        let other = try context.insertObject(entityName: "Tag")
        other["name"] = "theirs"
        try context.save()
        notification = try #require(await notifications.next())
        #expect(notification.sourceContext == nil && notification.inserted == [other.objectID])
    }

    /// A save of the watcher right after another process's: on a file store it may find the
    /// file replaced and rebase onto it before the observer looked; the other process's
    /// change is reported all the same, once.
    @Test(.timeLimit(.minutes(1)), arguments: StoreKind.all.filter(\.persists))
    func aSaveThatRebasesDoesNotHideTheOtherProcesssChanges(_ kind: StoreKind) async throws {
        let pair = try Pair(kind)
        defer { withExtendedLifetime(pair) {} }
        let (watcher, writer) = (pair.watcher, pair.writer)
        var notifications = watcher.saveNotifications().makeAsyncIterator()
        let theirs = ManagedObjectContext(coordinator: writer)
        let note = try theirs.insertObject(entityName: "Note")
        note["text"] = "theirs"
        try theirs.save()
        let mine = ManagedObjectContext(coordinator: watcher)
        let tag = try mine.insertObject(entityName: "Tag")
        tag["name"] = "mine"
        try mine.save()
        var remote: [SaveNotification] = []
        while remote.isEmpty {
            let notification = try #require(await notifications.next())
            if notification.sourceContext == nil { remote.append(notification) }
        }
        #expect(remote[0].inserted == [note.objectID])
        #expect(remote[0].updated.isEmpty && remote[0].deleted.isEmpty)
        #expect(try ManagedObjectContext(coordinator: watcher).fetchObjectIDs(FetchRequest(entityName: "Note")) == [note.objectID])
    }
}
