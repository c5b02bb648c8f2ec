import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BulkLoadTests {
    @Test(arguments: StoreKind.all)
    func theRecordPathStoresWhatTheContextPathStores(_ kind: StoreKind) throws {
        try BulkLoadChecks().theRecordPathStoresWhatTheContextPathStores(kind)
    }

    @Test(arguments: StoreKind.all)
    func newObjectsAfterALoadGetFreshKeys(_ kind: StoreKind) throws {
        try BulkLoadChecks().newObjectsAfterALoadGetFreshKeys(kind)
    }

    @Test(arguments: StoreKind.all, BulkLoadChecks.problemLoads)
    func problemsAreReportedAsTheContextPathReportsThem(_ kind: StoreKind, _ data: String) throws {
        try BulkLoadChecks().problemsAreReportedAsTheContextPathReportsThem(kind, data)
    }

    @Test(arguments: StoreKind.all)
    func brokenRulesAreListedTogether(_ kind: StoreKind) throws {
        try BulkLoadChecks().brokenRulesAreListedTogether(kind)
    }

    @Test(arguments: StoreKind.all)
    func aLoadThatTouchesStoredObjectsGoesThroughTheContext(_ kind: StoreKind) throws {
        try BulkLoadChecks().aLoadThatTouchesStoredObjectsGoesThroughTheContext(kind)
    }

    /// Other contexts hear of a load saved as records, as of any save.
    @Test func observersHearOfTheLoad() throws {
        let fixture = try StoreFixture(.memory, Models.graph)
        let heard = Locked<[Set<ObjectID>]>([])
        fixture.coordinator.addSaveObserver { notification in heard.withLock { $0.append(notification.inserted) } }
        let importer = DataImporter(context: fixture.context())
        importer.add(Data(BulkLoadChecks.graphData.utf8), file: "data.json")
        try importer.save()
        let inserted = heard.withLock { $0 }
        #expect(inserted.count == 1)
        #expect(inserted.first?.count == 16)
        #expect(inserted.first?.contains(try fixture.coordinator.objectID(entityName: "Album", primaryKey: 1)) == true)
    }

    /// A save that fails in the store (a full disk, a lock) leaves the load to be saved again,
    /// as a failed context save keeps the context's changes: the second save stores everything,
    /// relationships included.
    @Test func aSaveAfterAFailedOneStoresTheWholeLoad() throws {
        var types = StoreTypeRegistry()
        types.register(FailingStoreFactory(inner: try StoreTypeRegistry().factory(for: .inMemory)))
        let coordinator = PersistentStoreCoordinator(schema: Models.graph, storeTypes: types)
        try coordinator.addStore(StoreDescription(type: FailingStoreFactory.type(wrapping: .inMemory)))
        let store = try #require(coordinator.stores.first as? FailingStore)
        let importer = DataImporter(context: ManagedObjectContext(coordinator: coordinator))
        importer.add(Data(BulkLoadChecks.graphData.utf8), file: "data.json")
        store.failsAtCommit.withLock { $0 = true }
        let error = try #require(throws: StrataError.self) { try importer.save() }
        #expect(error.code == .storeIO)
        store.failsAtCommit.withLock { $0 = false }
        #expect(try importer.save() == ["Track": 4, "Person": 3, "Passport": 2, "Department": 2, "Club": 2, "Playlist": 2, "Album": 1])

        let reference = try StoreFixture(.memory, Models.graph)
        let context = reference.context()
        let other = DataImporter(context: context)
        other.add(Data(BulkLoadChecks.graphData.utf8), file: "data.json")
        try other.finish()
        try context.save()
        #expect(try DataExporter.dump(coordinator) == DataExporter.dump(reference.coordinator))
    }
}
