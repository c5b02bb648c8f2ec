import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// Remote change notifications: what one coordinator saves reaches the contexts of another
/// (another process, another machine) through NOTIFY and `strata_history`.
@Suite struct PostgresChangeObserverTests {
    @Test func anotherCoordinatorsSavesReachThisOnesContexts() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let writer = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let product = try writer.insertObject(entityName: "Product")
        product["sku"] = "p"
        product["ratio"] = 1.0
        try writer.save()

        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withPostgres)
        let store = try #require(try coordinator.addStore(StoreDescription(type: .postgres, url: place.url)) as? PostgresStore)
        let observer = try store.mergeRemoteChanges(into: coordinator)
        defer { observer.stop() }
        let notifications = Locked<[SaveNotification]>([])
        coordinator.addSaveObserver { notification in notifications.withLock { $0.append(notification) } }
        let reader = ManagedObjectContext(coordinator: coordinator)
        reader.automaticallyMergesChangesFromParent = true
        let seen = try #require(try reader.fetch(FetchRequest(entityName: "Product")).first)
        #expect(seen["ratio"] as? Double == 1.0)

        product["ratio"] = 2.0
        let maker = try writer.insertObject(entityName: "Maker")
        maker["name"] = "new"
        try writer.save()
        waitUntil { notifications.withLock { !$0.isEmpty } }
        let first = try #require(notifications.withLock { $0.first })
        #expect(first.updated == [product.objectID])
        #expect(first.inserted == [maker.objectID])
        #expect(first.sourceContext == nil)
        #expect(try reader.existingObject(with: product.objectID)["ratio"] as? Double == 2.0)

        writer.delete(product)
        try writer.save()
        waitUntil { notifications.withLock { $0.count >= 2 } }
        #expect(notifications.withLock { $0.last?.deleted } == [product.objectID])
        #expect(throws: StrataError.self) { _ = try reader.existingObject(with: product.objectID) }
        // Its own saves are not announced twice.
        let own = ManagedObjectContext(coordinator: coordinator)
        let label = try own.insertObject(entityName: "Label")
        label["text"] = "mine"
        try own.save()
        let countAfterOwnSave = notifications.withLock { $0.count }
        #expect(countAfterOwnSave == 3)
        #expect(notifications.withLock { $0.last?.sourceContext } != nil)
    }

    @Test func anObserverStartedAfterAnEarlierOneCatchesUpFromTheHistory() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let store = try place.store(schema)
        let writer = ManagedObjectContext(coordinator: try place.coordinator(schema))
        var makers: [ObjectID] = []
        for name in ["a", "b"] {
            let maker = try writer.insertObject(entityName: "Maker")
            maker["name"] = name
            try writer.save()
            makers.append(maker.objectID)
        }
        let received = Locked<[PostgresRemoteChanges]>([])
        let observer = try store.observeRemoteChanges(after: 0) { changes in received.withLock { $0.append(changes) } }
        defer { observer.stop() }
        waitUntil { received.withLock { !$0.isEmpty } }
        #expect(received.withLock { $0.first?.inserted } == Set(makers))
        #expect(received.withLock { $0.first?.lastHistoryID } == 2)
    }

    @Test func anObserverWhoseConnectionIsKilledMissesNothing() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let store = try place.store(schema)
        let received = Locked<Set<ObjectID>>([])
        let observer = try store.observeRemoteChanges { changes in received.withLock { $0.formUnion(changes.inserted) } }
        defer { observer.stop() }
        let listening = { () throws -> Bool in
            try place.column("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'strata observer \(place.name)'") == ["1"]
        }
        try waitUntil(listening)
        _ = try place.column("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'strata observer \(place.name)'")
        let writer = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let maker = try writer.insertObject(entityName: "Maker")
        maker["name"] = "while away"
        try writer.save()
        waitUntil { received.withLock { !$0.isEmpty } }
        #expect(received.withLock { $0 } == [maker.objectID])
    }

    /// History IDs are drawn when a save writes its row, and saves commit in any order: a save
    /// that drew an earlier ID but commits after a later one must still be delivered, though
    /// the observer has read past the later one.
    @Test func aSaveCommittingAfterALaterOneIsNotMissed() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let observed = try place.store(schema)
        let first = try place.store(schema)
        let (secondURL, secondName) = place.url(applicationName: "second")
        let second = try PostgresStore(location: PostgresLocation(secondURL), schema: schema)
        let received = Locked<Set<ObjectID>>([])
        let observer = try observed.observeRemoteChanges { changes in received.withLock { $0.formUnion(changes.inserted) } }
        defer { observer.stop() }
        // Objects of two hierarchies: the saves do not wait for each other's rows.
        func insert(_ entity: String, _ store: PostgresStore) throws -> StoreChangeset {
            let key = try store.allocatePrimaryKeys(rootEntity: entity, count: 1)[0]
            return StoreChangeset(inserted: [StoreRecord(objectID: ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: key), attributes: [:])])
        }
        let early = try insert("Maker", first)
        let late = try insert("Label", second)
        let lateID = late.inserted[0].objectID
        let secondFailed = Locked<StrataError?>(nil)
        _ = try first.save(early) { () throws(StrataError) in
            // The first save has written everything and not committed; another process saves.
            Thread {
                do throws(StrataError) { _ = try second.save(late) } catch { secondFailed.withLock { $0 = error } }
            }.start()
            // Until that save is delivered, or waits for this one to end.
            waitUntil { received.withLock { $0.contains(lateID) } || place.waitsForALock(secondName) }
        }
        waitUntil { received.withLock { $0.count == 2 } }
        #expect(received.withLock { $0 } == [early.inserted[0].objectID, lateID])
        #expect(secondFailed.withLock { $0 } == nil)
    }
}
