import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Testing

/// The binary store behind a coordinator and contexts: what one stack saves, the next reads.
@Suite struct BinaryPlistStoreTests {
    let when = ISO8601.date(from: "1969-07-20T20:17:40.123Z")!

    func items(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: "Item", sortDescriptors: [FetchSortDescriptor("text")]))
    }

    /// Saves a few related objects of every type into a new store at `url`.
    func makeStore(at url: URL) throws {
        let coordinator = try Fixtures.coordinator(at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let owner = try context.insertObject(entityName: "Owner")
        owner["name"] = "Ada"
        let tag = try context.insertObject(entityName: "Tag")
        tag["name"] = "home"
        let milk = try context.insertObject(entityName: "Item")
        milk["text"] = "Buy milk <&> \"now\"\t😀"
        milk["small"] = Int16.min
        milk["medium"] = Int32.max
        milk["large"] = Int64.max
        milk["amount"] = Decimal(string: "123456789012345678.901234567890")!
        milk["ratio"] = Double.nan
        milk["level"] = Float.infinity
        milk["flag"] = false
        milk["when"] = when
        milk["blob"] = Data()
        milk["token"] = UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!
        milk["link"] = URL(string: "https://example.com/milk?x=1")!
        milk.setObject(owner, forKey: "owner")
        milk.addObject(tag, forKey: "tags")
        let bread = try context.insertObject(entityName: "Item")
        bread["text"] = "Buy bread"
        bread["large"] = Int64.min
        bread.setObject(owner, forKey: "owner")
        bread.setObject(milk, forKey: "next")
        let photo = try context.insertObject(entityName: "Photo")
        photo["title"] = "Beach"
        photo["width"] = Int32(640)
        let document = try context.insertObject(entityName: "Document")
        document["title"] = "Report"
        document["pages"] = Int32(12)
        owner.addObject(photo, forKey: "assets")
        owner.addObject(document, forKey: "assets")
        try context.save()
    }

    @Test func aSecondStackReadsWhatTheFirstSaved() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try makeStore(at: url)
        let context = ManagedObjectContext(coordinator: try Fixtures.coordinator(at: url))
        let items = try items(context)
        #expect(items.count == 2)
        let bread = items[0]
        let milk = items[1]
        #expect(milk["text"] as? String == "Buy milk <&> \"now\"\t😀")
        #expect(milk["small"] as? Int64 == Int64(Int16.min))
        #expect(milk["medium"] as? Int64 == Int64(Int32.max))
        #expect(milk["large"] as? Int64 == .max)
        #expect(milk["amount"] as? Decimal == Decimal(string: "123456789012345678.901234567890")!)
        #expect((milk["ratio"] as? Double)?.isNaN == true)
        #expect(milk["level"] as? Float == .infinity)
        #expect(milk["flag"] as? Bool == false)
        #expect(milk["when"] as? Date == when)
        #expect(milk["blob"] as? Data == Data())
        #expect(milk["token"] as? UUID == UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!)
        #expect(milk["link"] as? URL == URL(string: "https://example.com/milk?x=1")!)
        #expect(milk["shape"] == nil)
        #expect(bread["large"] as? Int64 == .min)
        #expect(bread["blob"] == nil)
        #expect(bread.object(forKey: "next") === milk)
        let owner = try #require(milk.object(forKey: "owner"))
        #expect(owner["name"] as? String == "Ada")
        #expect(Set(owner.objects(forKey: "items")) == [milk, bread])
        #expect(owner.objects(forKey: "assets").map { $0["title"] as? String } == ["Beach", "Report"])
        #expect(owner.objects(forKey: "assets").map(\.objectID.entityName) == ["Photo", "Document"])
        #expect(milk.objects(forKey: "tags").map { $0["name"] as? String } == ["home"])
        let assets = try context.fetch(FetchRequest(entityName: "Asset", sortDescriptors: [FetchSortDescriptor("title")]))
        #expect(assets.map(\.objectID.entityName) == ["Photo", "Document"])
    }

    @Test func updatesDeletesAndKeySequencesPersist() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try makeStore(at: url)
        let milkID: ObjectID
        do {
            let context = ManagedObjectContext(coordinator: try Fixtures.coordinator(at: url))
            let items = try items(context)
            items[0]["text"] = "Buy rye bread"
            milkID = items[1].objectID
            context.delete(items[1])
            try context.save()
        }
        let coordinator = try Fixtures.coordinator(at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let items = try items(context)
        #expect(items.map { $0["text"] as? String } == ["Buy rye bread"])
        // The deleted item's key is not handed out again.
        let snapshot = try #require(coordinator.stores.first as? AtomicStore).snapshot
        #expect(snapshot.keySequences["Item"] == 2)
        let third = try context.insertObject(entityName: "Item")
        third["text"] = "third"
        try context.save()
        #expect(third.objectID.primaryKey == 3)
        // The updated record's version went up by one save.
        let bread = try #require(snapshot.records["Item"]?.values.first)
        #expect(bread.version == 2)
        // 'next' has no inverse: deleting the item it named cleared it (the save looked for
        // references to the deleted item), through a save and a reopen.
        #expect(bread.toOne["next"] == nil)
        let reopened = try Fixtures.format.read(from: url)
        #expect(reopened.record(bread.objectID)?.toOne["next"] == nil)
        #expect(reopened.record(milkID) == nil)
    }

    @Test func customMetadataIsWrittenAtOnce() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.bplist")
        let coordinator = try Fixtures.coordinator(at: url)
        let store = try #require(coordinator.stores.first)
        try coordinator.setMetadata("42", forKey: "sync token", in: store)
        let metadata = try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: Fixtures.storeTypes)
        #expect(metadata.custom == ["sync token": "42"])
        #expect(metadata.storeType == .binaryPlist)
        #expect(metadata.storeIdentifier == store.metadata.storeIdentifier)
        #expect(metadata.modelVersionHash == Fixtures.schema.versionHash)
        #expect(metadata.schemaJSON == Fixtures.schema.jsonString)
        #expect(store.capabilities == [.persistent])
        #expect(store.type == .binaryPlist)
    }

    @Test func anotherModelIsRefusedBeforeAnyDataIsRead() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try makeStore(at: url)
        let before = try Data(contentsOf: url)
        let changed = try Schema(data: Data(Fixtures.schemaJSON.replacingOccurrences(of: #"{ "name": "pages", "type": "int32" }"#, with: #"{ "name": "pages", "type": "int64" }"#).utf8))
        let coordinator = PersistentStoreCoordinator(schema: changed, storeTypes: Fixtures.storeTypes)
        let error = try #require(throws: StrataError.self) { try coordinator.addStore(StoreDescription(type: .binaryPlist, url: url)) }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("changed: Document"))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aCorruptStoreIsNotOpened() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try makeStore(at: url)
        var bytes = try Data(contentsOf: url)
        bytes.removeLast(10)
        try bytes.write(to: url)
        let error = try #require(throws: StrataError.self) { try Fixtures.coordinator(at: url) }
        #expect(error.code == .corruptStore)
        #expect(error.file == url.path)
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aHundredThousandObjectsRoundTrip() throws {
        var generator = SeededGenerator(seed: 100_000)
        var records: [StoreRecord] = []
        records.reserveCapacity(100_000)
        let base = ISO8601.date(from: "2024-01-01T00:00:00.000Z")!
        for key in 1...100_000 {
            records.append(Fixtures.record("Item", Int64(key), [
                "text": .string("Item \(key) — \(UInt32.random(in: 0...UInt32.max, using: &generator))"),
                "small": .integer(Int64.random(in: -32768...32767, using: &generator)),
                "medium": .integer(Int64.random(in: Int64(Int32.min)...Int64(Int32.max), using: &generator)),
                "large": .integer(Int64(bitPattern: generator.next())),
                "amount": .decimal(Decimal(key) / 100),
                "ratio": .double(Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)),
                "level": .float(Float.random(in: -1e6...1e6, using: &generator)),
                "flag": .bool(key % 3 == 0),
                "when": .date(base.addingTimeInterval(Double(key) * 61.001)),
                "blob": .binary(Data((0..<(key % 17)).map { UInt8(truncatingIfNeeded: $0 &* key) })),
            ], toMany: ["tags": key % 10 == 0 ? [Fixtures.id("Tag", Int64(key % 100 + 1))] : []]))
        }
        records += (1...100).map { Fixtures.record("Tag", Int64($0), ["name": .string("tag \($0)")]) }
        let contents = Fixtures.contents(records, keySequences: ["Item": 100_000, "Tag": 100])
        let directory = try TemporaryDirectory()
        let url = directory.file("large.plist")
        try Fixtures.format.write(contents, to: url)
        let back = try Fixtures.format.read(from: url)
        #expect(back.recordCount == 100_100)
        #expect(back.records == contents.records)
        #expect(back.keySequences == contents.keySequences)
        #expect(back.metadata == contents.metadata)
    }
}
