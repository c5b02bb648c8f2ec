import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// What every store does, on PostgreSQL: fetching, relationships, inheritance, optimistic
/// locking between coordinators, all-or-nothing saves, uniqueness.
@Suite struct PostgresStoreBehaviourTests {
    /// Products named `names` (sku = name, price = position), saved.
    private func products(_ names: [String], in context: ManagedObjectContext, entity: String = "Product") throws -> [ManagedObject] {
        var made: [ManagedObject] = []
        for (position, name) in names.enumerated() {
            let product = try context.insertObject(entityName: entity)
            product["name"] = name
            product["sku"] = "\(entity)-\(name)"
            product["price"] = Decimal(position)
            made.append(product)
        }
        try context.save()
        return made
    }

    @Test func fetchesWithPredicatesSortsAndWindowsAsTheEvaluatorDoes() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let context = ManagedObjectContext(coordinator: try place.coordinator(schema))
        _ = try products(["Eclair", "e\u{301}clair", "Apple", "Éclat", "banana"], in: context)
        let reader = ManagedObjectContext(coordinator: try place.coordinator(schema))
        func names(_ format: String, sort: [FetchSortDescriptor] = [FetchSortDescriptor("name")], limit: Int = 0, offset: Int = 0) throws -> [String] {
            var request = FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: format), sortDescriptors: sort)
            request.fetchLimit = limit
            request.fetchOffset = offset
            return try reader.fetch(request).map { $0["name"] as? String ?? "?" }
        }
        // [cd]: case and diacritics ignored; "é" composed and decomposed are one string.
        #expect(try names("name BEGINSWITH[cd] 'ecl'") == ["e\u{301}clair", "Eclair", "Éclat"].sorted())
        #expect(try names("name == 'écl\u{61}ir'") == ["e\u{301}clair"])
        #expect(try names("price >= 2", sort: [FetchSortDescriptor("price", ascending: false)]) == ["banana", "Éclat", "Apple"])
        #expect(try names("price >= 0", sort: [FetchSortDescriptor("price")], limit: 2, offset: 1) == ["e\u{301}clair", "Apple"])
        #expect(try reader.count(for: FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "name CONTAINS[c] 'AN'"))) == 1)
        // A window alone, in key order (SQL's LIMIT and OFFSET).
        var window = FetchRequest(entityName: "Product")
        window.fetchLimit = 2
        window.fetchOffset = 1
        #expect(try reader.fetch(window).map { $0["name"] as? String } == ["e\u{301}clair", "Apple"])
        window.fetchLimit = 0
        window.fetchOffset = 3
        #expect(try reader.fetch(window).map { $0["name"] as? String } == ["Éclat", "banana"])
        #expect(try reader.count(for: window) == 2)
    }

    @Test func relationshipsToOneToManyOrderedAndManyToManyRoundTrip() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        do {
            let context = ManagedObjectContext(coordinator: try place.coordinator(schema))
            let (first, second) = try { () throws -> (ManagedObject, ManagedObject) in
                let made = try products(["one", "two"], in: context)
                return (made[0], made[1])
            }()
            let maker = try context.insertObject(entityName: "Maker")
            maker["name"] = "Acme"
            first["maker"] = maker
            second["maker"] = maker
            let label = try context.insertObject(entityName: "Label")
            label["text"] = "new"
            first.addObject(label, forKey: "labels")
            second.addObject(label, forKey: "labels")
            var steps: [ManagedObject] = []
            for title in ["c", "a", "b"] {
                let step = try context.insertObject(entityName: "Step")
                step["title"] = title
                steps.append(step)
            }
            first.setObjects(steps, forKey: "steps")
            first.addObject(second, forKey: "similar")
            try context.save()
            // Reordered and shortened in a second save.
            first.setObjects([steps[2], steps[0]], forKey: "steps")
            try context.save()
        }
        let context = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let first = try #require(try context.fetch(FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "name == 'one'"))).first)
        #expect(first.objects(forKey: "steps").map { $0["title"] as? String } == ["b", "c"])
        #expect((first["maker"] as? ManagedObject)?["name"] as? String == "Acme")
        #expect(first.objects(forKey: "labels").map { $0["text"] as? String } == ["new"])
        #expect(first.objects(forKey: "similar").map { $0["name"] as? String } == ["two"])
        let maker = try #require(try context.fetch(FetchRequest(entityName: "Maker")).first)
        #expect(Set(maker.objects(forKey: "products").map { $0["name"] as? String }) == ["one", "two"])
        let label = try #require(try context.fetch(FetchRequest(entityName: "Label")).first)
        #expect(label.objects(forKey: "products").count == 2)
        // Predicates through relationships, both ways.
        #expect(try context.count(for: FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "ANY labels.text == 'new' AND maker.name == 'Acme'"))) == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Step", predicate: try FetchPredicate(format: "product == nil"))) == 1)
        // Deleting a product removes its join rows.
        context.delete(first)
        try context.save()
        #expect(try place.column("SELECT count(*) FROM \"Label.products\"") == ["1"])
        #expect(try place.column("SELECT count(*) FROM \"Product.similar\"") == ["0"])
    }

    @Test func subentitiesShareTheirRootsTable() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let context = ManagedObjectContext(coordinator: try place.coordinator(schema))
        _ = try products(["plain"], in: context)
        let bundle = try products(["bundle"], in: context, entity: "Bundle")[0]
        bundle["discount"] = 0.25
        try context.save()
        let reader = ManagedObjectContext(coordinator: try place.coordinator(schema))
        #expect(try reader.fetch(FetchRequest(entityName: "Product", sortDescriptors: [FetchSortDescriptor("name")])).map { $0.entity.name } == ["Bundle", "Product"])
        var onlyProducts = FetchRequest(entityName: "Product")
        onlyProducts.includesSubentities = false
        #expect(try reader.fetch(onlyProducts).map { $0["name"] as? String } == ["plain"])
        #expect(try reader.fetch(FetchRequest(entityName: "Bundle")).map { $0["discount"] as? Double } == [0.25])
        #expect(try place.column("SELECT \"_entity\" FROM \"Product\" ORDER BY \"_pk\"") == ["Product", "Bundle"])
    }

    @Test func twoCoordinatorsSavingOneObjectConflictAndTheSecondWritesNothing() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let setup = ManagedObjectContext(coordinator: try place.coordinator(schema))
        _ = try products(["shared", "other"], in: setup)
        let first = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let second = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let request = FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "name == 'shared'"))
        let mine = try #require(try first.fetch(request).first)
        let theirs = try #require(try second.fetch(request).first)
        let other = try #require(try second.fetch(FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "name == 'other'"))).first)
        mine["ratio"] = 1.0
        try first.save()
        theirs["ratio"] = 2.0
        other["ratio"] = 3.0
        let inserted = try second.insertObject(entityName: "Maker")
        inserted["name"] = "never"
        let error = #expect(throws: StrataError.self) { try second.save() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.objectID) == [theirs.objectID])
        // Nothing of the failed save reached the store.
        #expect(try place.column("SELECT ratio FROM \"Product\" ORDER BY \"_pk\"") == ["1", nil])
        #expect(try place.column("SELECT \"_version\" FROM \"Product\" ORDER BY \"_pk\"") == ["2", "1"])
        #expect(try place.column("SELECT count(*) FROM \"Maker\"") == ["0"])
    }

    @Test func aDeleteOfAnObjectChangedSinceItWasReadConflicts() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let setup = ManagedObjectContext(coordinator: try place.coordinator(schema))
        _ = try products(["x"], in: setup)
        let first = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let second = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let mine = try #require(try first.fetch(FetchRequest(entityName: "Product")).first)
        let theirs = try #require(try second.fetch(FetchRequest(entityName: "Product")).first)
        mine["name"] = "changed"
        try first.save()
        second.delete(theirs)
        let error = #expect(throws: StrataError.self) { try second.save() }
        #expect(error?.code == .mergeConflict)
        #expect(try place.column("SELECT name FROM \"Product\"") == ["changed"])
    }

    @Test func aBrokenUniquenessConstraintFailsTheSaveAndWritesNothing() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let store = try place.store(schema)
        let keys = try store.allocatePrimaryKeys(rootEntity: "Product", count: 3)
        let ids = keys.map { ObjectID(entityName: "Product", storeIdentifier: store.storeIdentifier, primaryKey: $0) }
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: ids[0], attributes: ["sku": .string("S")])]))
        let twice = StoreChangeset(inserted: [
            StoreRecord(objectID: ids[1], attributes: ["sku": .string("T")]),
            StoreRecord(objectID: ids[2], attributes: ["sku": .string("S")]),
        ])
        #expect(store.uniquenessViolations(twice).map(\.objectID).contains(ids[2]))
        let error = #expect(throws: StrataError.self) { try store.save(twice) }
        #expect(error?.code == .validationFailed)
        #expect(error?.failures.isEmpty == false)
        #expect(try place.column("SELECT sku FROM \"Product\" ORDER BY \"_pk\"") == ["S"])
        // Two objects may swap their values in one save (the constraint is checked at its end).
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: ids[1], attributes: ["sku": .string("T")])]))
        var swap = StoreChangeset(updated: [
            StoreRecord(objectID: ids[0], attributes: ["sku": .string("T")], version: 1),
            StoreRecord(objectID: ids[1], attributes: ["sku": .string("S")], version: 1),
        ])
        swap.overwritesConflicts = false
        _ = try store.save(swap)
        #expect(try place.column("SELECT sku FROM \"Product\" ORDER BY \"_pk\"") == ["T", "S"])
    }

    @Test func aFailingBeforeCommitHookLeavesTheStoreAsItWas() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let store = try place.store(try Models.shop())
        let key = try store.allocatePrimaryKeys(rootEntity: "Maker", count: 1)[0]
        let id = ObjectID(entityName: "Maker", storeIdentifier: store.storeIdentifier, primaryKey: key)
        struct Refused: Error {}
        let error = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["name": .string("m")])])) { () throws(StrataError) in
                throw StrataError(.storeIO, "the other store refused")
            }
        }
        #expect(error?.message == "the other store refused")
        #expect(try store.records(for: [id]).isEmpty)
        #expect(try place.column("SELECT count(*) FROM \"Maker\"") == ["0"])
    }

    /// A connection that breaks during COMMIT: the server is asked what became of the save, the
    /// error says so, nothing is retried, and the store saves again on a new connection.
    @Test func aConnectionLostDuringCommitAsksTheServerWhatBecameOfTheSave() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let (url, applicationName) = place.url(applicationName: "commit")
        let store = try PostgresStore(location: PostgresLocation(url), schema: try Models.shop())
        let key = try store.allocatePrimaryKeys(rootEntity: "Maker", count: 1)[0]
        let id = ObjectID(entityName: "Maker", storeIdentifier: store.storeIdentifier, primaryKey: key)
        let changes = StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["name": .string("m")])])
        let error = #expect(throws: StrataError.self) {
            try store.save(changes) { () throws(StrataError) in
                // The session ends (waiting until it has) just before the COMMIT is sent.
                _ = try? place.column("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE application_name = '\(applicationName)'")
            }
        }
        #expect(error?.code == .storeIO)
        #expect(error?.message.contains("broke during COMMIT") == true, "\(error?.message ?? "")")
        // The server, asked on a new connection, says it rolled the transaction back.
        #expect(error?.message.contains("the server rolled the save back: nothing was saved") == true)
        #expect(try place.column("SELECT count(*) FROM \"Maker\"") == ["0"])
        // The next save runs on a new connection.
        _ = try store.save(changes)
        #expect(try store.records(for: [id])[id]?.attributes["name"] == .string("m"))
        // What the server says of a committed transaction, an aborted one, and one it never had.
        let other = try PGConnectionPool(location: PostgresLocation(place.url)).connect()
        func transaction(_ end: String) throws -> Int64 {
            try other.run("BEGIN")
            let xid = try #require(try other.run("SELECT txid_current()").int64(0, 0))
            try other.run(end)
            return xid
        }
        #expect(store.outcome(of: try transaction("COMMIT")) == "committed")
        #expect(store.outcome(of: try transaction("ROLLBACK")) == "aborted")
        #expect(store.outcome(of: Int64.max) == nil)
    }

    /// A schema name takes at most 56 bytes: the store's notification channel
    /// (`strata.<schema>`) must fit PostgreSQL's 63.
    @Test func theLongestSchemaNameSaves() throws {
        let base = try TestServer.url()
        let name = "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)) + String(repeating: "s", count: 34)
        #expect(name.utf8.count == 56)
        let url = URL(string: base + (base.contains("?") ? "&" : "?") + "schema=\(name)")!
        defer { try? PostgresStoreFactory().destroyStore(at: url) }
        let store = try PostgresStore(location: PostgresLocation(url), schema: try Models.shop())
        let key = try store.allocatePrimaryKeys(rootEntity: "Maker", count: 1)[0]
        let id = ObjectID(entityName: "Maker", storeIdentifier: store.storeIdentifier, primaryKey: key)
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["name": .string("m")])]))
        #expect(try store.records(for: [id]).keys.sorted() == [id])
        let error = #expect(throws: StrataError.self) { _ = try PostgresLocation(URL(string: base + (base.contains("?") ? "&" : "?") + "schema=\(name)x")!) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("use 1 to 56 letters") == true)
    }

    @Test func aReferenceToAnObjectAnotherSaveDeletedFailsTheSave() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let setup = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let maker = try setup.insertObject(entityName: "Maker")
        maker["name"] = "gone soon"
        try setup.save()
        let other = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let stale = try #require(try other.fetch(FetchRequest(entityName: "Maker")).first)
        setup.delete(maker)
        try setup.save()
        let product = try other.insertObject(entityName: "Product")
        product["sku"] = "p"
        product["maker"] = stale
        #expect(throws: StrataError.self) { try other.save() }
        #expect(try place.column("SELECT count(*) FROM \"Product\"") == ["0"])
    }

    @Test func aStoreOpenedWithAnotherModelIsRefused() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let store = try place.store(try Models.shop())
        let other = try Models.schema(#"{ "name": "Other", "entities": [ { "name": "Thing", "attributes": [ { "name": "n", "type": "int64" } ] } ] }"#)
        let error = #expect(throws: StrataError.self) { _ = try place.store(other) }
        #expect(error?.code == .incompatibleModel)
        // The same model opens it again, with its identity.
        #expect(try place.store(try Models.shop()).storeIdentifier == store.storeIdentifier)
        #expect(try PostgresStoreFactory().metadata(at: place.url).storeIdentifier == store.storeIdentifier)
    }

    @Test func concurrentSavesOfOneCounterLoseNoIncrement() async throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let setup = ManagedObjectContext(coordinator: try place.coordinator(schema))
        let counter = try products(["counter"], in: setup)[0]
        counter["large"] = Int64(0)
        try setup.save()
        let workers = 4
        let increments = 5
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    let context = ManagedObjectContext(coordinator: try place.coordinator(schema))
                    var done = 0
                    while done < increments {
                        context.reset()
                        let object = try #require(try context.fetch(FetchRequest(entityName: "Product")).first)
                        object["large"] = (object["large"] as? Int64 ?? 0) + 1
                        do {
                            try context.save()
                            done += 1
                        } catch let error as StrataError where error.code == .mergeConflict {
                            continue
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try place.column("SELECT large FROM \"Product\"") == ["\(workers * increments)"])
    }
}

/// Uniqueness by the rules every store shares, found without reading whole tables.
@Suite struct PostgresUniquenessTests {
    @Test func canonicallyEquivalentStringsAreTheSameValue() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let context = ManagedObjectContext(coordinator: try place.coordinator(schema))
        for sku in ["Caf\u{E9}", "other", "x"] {
            let product = try context.insertObject(entityName: "Product")
            product["sku"] = sku
        }
        try context.save()
        let bundle = try context.insertObject(entityName: "Bundle")
        bundle["sku"] = "Cafe\u{301}"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.failures.map(\.objectID).contains(bundle.objectID) == true)
        // nil never collides, and a value of its own is fine.
        bundle["sku"] = nil
        let another = try context.insertObject(entityName: "Product")
        another["sku"] = nil
        try context.save()
        bundle["sku"] = "Cafe"
        try context.save()
        #expect(try place.column("SELECT count(*) FROM \"Product\"") == ["5"])
    }

    /// A subentity's own constraint is deferred like a root's: two objects swap their values.
    @Test func aSubentitysConstraintLetsTwoObjectsSwapTheirValues() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.schema("""
            { "name": "Zoo", "entities": [
              { "name": "Animal", "attributes": [ { "name": "tag", "type": "string", "optional": true } ] },
              { "name": "Dog", "parent": "Animal", "uniquenessConstraints": [["tag"]] } ] }
            """)
        let store = try place.store(schema)
        let ids = try store.allocatePrimaryKeys(rootEntity: "Animal", count: 4).map { ObjectID(entityName: "Dog", storeIdentifier: store.storeIdentifier, primaryKey: $0) }
        func insert(_ index: Int, _ tag: String) throws(StrataError) {
            _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: ids[index], attributes: ["tag": .string(tag)])]))
        }
        try insert(0, "a")
        try insert(1, "b")
        var swap = StoreChangeset(updated: [
            StoreRecord(objectID: ids[0], attributes: ["tag": .string("b")], version: 1), StoreRecord(objectID: ids[1], attributes: ["tag": .string("a")], version: 1),
        ])
        swap.overwritesConflicts = false
        _ = try store.save(swap)
        #expect(try place.column("SELECT tag FROM \"Animal\" ORDER BY \"_pk\"") == ["b", "a"])
        // And canonically equivalent values collide in the server's constraint.
        try insert(2, "a\u{300}")
        let error = #expect(throws: StrataError.self) { try insert(3, "\u{E0}") }
        #expect(error?.code == .validationFailed)
        #expect(try place.column("SELECT count(*) FROM \"Animal\"") == ["3"])
    }

    /// Two processes saving canonically equivalent values at once: the coordinators' checks
    /// before the saves see neither, so the server's constraint must tell them equal.
    @Test(arguments: ["Product", "Bundle"])
    func canonicallyEquivalentStringsSavedAtOnceCollide(_ entity: String) throws {
        let place = try TestSchema()
        defer { place.drop() }
        let schema = try Models.shop()
        let first = try place.store(schema)
        let (secondURL, secondName) = place.url(applicationName: "second")
        let second = try PostgresStore(location: PostgresLocation(secondURL), schema: schema)
        func insert(_ sku: String, _ store: PostgresStore) throws -> StoreChangeset {
            let key = try store.allocatePrimaryKeys(rootEntity: "Product", count: 1)[0]
            return StoreChangeset(inserted: [StoreRecord(objectID: ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: key), attributes: ["sku": .string(sku)])])
        }
        let composed = try insert("Caf\u{E9}", first)
        let decomposed = try insert("Cafe\u{301}", second)
        let outcome = Locked<StrataError??>(nil)
        _ = try first.save(composed) { () throws(StrataError) in
            Thread {
                do throws(StrataError) {
                    _ = try second.save(decomposed)
                    outcome.withLock { $0 = .some(nil) }
                } catch {
                    outcome.withLock { $0 = .some(error) }
                }
            }.start()
            waitUntil { outcome.withLock { $0 != nil } || place.waitsForALock(secondName) }
        }
        waitUntil { outcome.withLock { $0 != nil } }
        #expect(outcome.withLock { $0??.code } == .validationFailed)
        #expect(try place.column("SELECT count(*) FROM \"Product\"") == ["1"])
    }
}
