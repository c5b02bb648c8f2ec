import Foundation
import Strata
import Testing

/// Batch inserts (``BatchInsertRequest``) on every store: defaults, every rule enforced,
/// all-or-nothing.
package struct BatchInsertChecks {
    package init() {}

    package func insertsWithDefaultsAndReturnsIDsInOrder(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try fixture.savedTaggedBook()
        let request = BatchInsertRequest(
            entityName: "Book",
            objects: [
                ["title": "Emma", "pages": 474, "price": Decimal(string: "12.50")!, "published": Date(timeIntervalSince1970: 0)],
                ["title": "Persuasion", "rating": 4.5, "inPrint": false, "pages": Int32?.none as Any],
            ],
            resultType: .objectIDs)
        let result = try fixture.coordinator.execute(request)
        #expect(result.count == 2)
        #expect(result.objectIDs.map(\.primaryKey) == [2, 3])
        let records = try fixture.store.records(for: result.objectIDs)
        let emma = try #require(records[result.objectIDs[0]])
        #expect(emma.attributes.dictionary == [
            "title": .string("Emma"), "pages": .integer(474), "price": .decimal(Decimal(string: "12.50")!),
            "published": .date(Date(timeIntervalSince1970: 0)), "inPrint": .bool(true),
        ])
        #expect(emma.version == 1)
        #expect(records[result.objectIDs[1]]?.attributes.dictionary == ["title": .string("Persuasion"), "rating": .double(4.5), "inPrint": .bool(false)])
        try fixture.verifyStored { context throws in
            #expect(try context.all("Book", by: "title").map { $0["title"] as? String } == ["Emma", "Germinal", "Persuasion"])
        }
        // The key sequence moved on: a context's next book gets the next key.
        let context = fixture.context()
        let next = try context.make("Book", ["title": "Sanditon"])
        try context.save()
        #expect(next.objectID.primaryKey == 4)
    }

    package func typedValuesAndCounts(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let values: [[String: AttributeValue]] = (1...50).map { ["name": .string("tag \($0)")] }
        let result = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Tag", values: values, resultType: .count))
        #expect(result.count == 50)
        #expect(result.objectIDs.isEmpty)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Tag", predicate: try FetchPredicate(format: "name BEGINSWITH 'tag 4'"))) == 11)
    }

    package func aBrokenRuleRefusesEveryObject(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.validation)
        let before = try fixture.snapshot()
        let error = expectError(.validationFailed) {
            _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Maker", objects: [["name": "fine"], [:], ["name": NSNull()]]))
        }
        #expect(error?.failures.map(\.code) == [.missingValue, .missingValue])
        #expect(error?.failures.map(\.key) == ["name", "name"])
        #expect(error?.failures.map { $0.message } == [
            "(object 1 of the batch insert) a value is required (the attribute is not optional)",
            "(object 2 of the batch insert) a value is required (the attribute is not optional)",
        ])
        #expect(try fixture.snapshot() == before)
        // A required relationship cannot be given.
        let required = expectError(.validationFailed) {
            _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Gadget", objects: [["name": "ok"]]))
        }
        #expect(required?.message.hasPrefix("'Gadget.maker' is a required relationship, which a batch insert cannot set") == true)
        #expect(try fixture.snapshot() == before)
    }

    package func uniquenessIsCheckedAgainstTheStoreAndWithinTheRequest(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let context = fixture.context()
        try context.make("User", ["email": "a@x", "handle": "a"])
        try context.save()
        let before = try fixture.snapshot()
        for objects in [[["email": "a@x", "handle": "b"]], [["email": "b@x", "handle": "b"], ["email": "b@x", "handle": "c"]]] as [[[String: Any]]] {
            let error = expectError(.validationFailed) {
                _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "User", objects: objects))
            }
            #expect(error?.failures.map(\.code) == [.notUnique])
            #expect(error?.failures.first?.message.hasPrefix("(object \(objects.count - 1) of the batch insert) 'email' must be unique") == true, "\(String(describing: error))")
            #expect(try fixture.snapshot() == before)
        }
    }

    package func badKeysAndValuesAreErrorsNotTraps(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let unknown = expectError(.unknownProperty) {
            _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Book", objects: [["titel": "x"]]))
        }
        #expect(unknown?.message == "entity 'Book' has no attribute 'titel'; did you mean 'title'?")
        let relationship = expectError(.unknownProperty) {
            _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "x", "author": 1]]))
        }
        #expect(relationship?.message.hasPrefix("'Book.author' is a relationship; a batch insert sets attributes only") == true)
        let wrongType = expectError(.invalidData) {
            _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "x"], ["title": "y", "pages": "many"]]))
        }
        #expect(wrongType?.message == #"object 1: Book.pages is an int32 attribute; it cannot hold "many" (a String)"#)
        expectError(.unknownEntity) { _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Books", objects: [[:]])) }
        #expect(try fixture.snapshot().objects.isEmpty)
    }

    /// Enough objects for SQLite's inserts of many rows (32 a statement) and single rows after
    /// them: every object stored once, keys in order, a decomposed string found by its NFC
    /// form (the shadow column), observers told; a duplicate late in the request refuses all.
    package func manyObjectsInStatementsOfManyRows(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let heard = Locked<[ObjectID]>([])
        fixture.coordinator.addSaveObserver { notification in heard.withLock { $0 += notification.inserted } }
        let objects: [[String: Any]] = (0..<75).map { ["email": "user\($0)@x", "handle": $0 == 70 ? "Zoe\u{301}" : "h\($0)"] }
        let result = try fixture.coordinator.execute(BatchInsertRequest(entityName: "User", objects: objects, resultType: .objectIDs))
        #expect(result.objectIDs.map(\.primaryKey) == (1...75).map { Int64($0) })
        #expect(Set(heard.withLock { $0 }) == Set(result.objectIDs))
        try fixture.verifyStored { context throws in
            let users = try context.fetch(FetchRequest(entityName: "User", sortDescriptors: [FetchSortDescriptor("email")]))
            #expect(users.count == 75)
            #expect(Set(users.map { $0["email"] as? String }) == Set((0..<75).map { "user\($0)@x" }))
            let zoe = try context.fetch(FetchRequest(entityName: "User", predicate: try FetchPredicate(format: "handle == %@", "Zo\u{E9}")))
            #expect(zoe.map { $0["email"] as? String } == ["user70@x"])
        }
        let before = try fixture.snapshot()
        var again = (0..<70).map { ["email": "new\($0)@x", "handle": "n\($0)"] as [String: Any] }
        again.append(["email": "user3@x", "handle": "late"])
        let error = expectError(.validationFailed) {
            _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "User", objects: again))
        }
        #expect(error?.failures.map(\.code) == [.notUnique])
        #expect(error?.failures.first?.message.hasPrefix("(object 70 of the batch insert) 'email' must be unique") == true, "\(String(describing: error))")
        #expect(try fixture.snapshot() == before)
        // The refused request took no keys for good: the next insert continues the sequence.
        let next = try fixture.coordinator.execute(BatchInsertRequest(entityName: "User", objects: [["email": "last@x", "handle": "last"]], resultType: .objectIDs))
        #expect(next.objectIDs.first?.primaryKey.map { $0 > 75 } == true)
    }
}
