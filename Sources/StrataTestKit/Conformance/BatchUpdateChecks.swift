import Foundation
import Strata
import Testing

/// Batch updates (``BatchUpdateRequest``) on every store: only matching objects change, versions
/// move on, contexts merge them, every rule is enforced and a refused update changes nothing.
package struct BatchUpdateChecks {
    package init() {}

    /// Five books: pages 100, 200, …, 500; titles "b1" … "b5".
    private func fiveBooks(_ fixture: StoreFixture) throws -> [ObjectID] {
        let result = try fixture.coordinator.execute(BatchInsertRequest(
            entityName: "Book", objects: (1...5).map { ["title": "b\($0)", "pages": $0 * 100, "price": Decimal($0)] }, resultType: .objectIDs))
        return result.objectIDs
    }

    package func updatesOnlyTheMatchingObjectsAndBumpsTheirVersions(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let books = try fiveBooks(fixture)
        let request = BatchUpdateRequest(
            entityName: "Book", predicate: try FetchPredicate(format: "pages >= 300"),
            propertiesToUpdate: ["title": "Ça ira", "price": Decimal(string: "0.10")!, "rating": nil], resultType: .objectIDs)
        let result = try fixture.coordinator.execute(request)
        #expect(result.count == 3)
        #expect(result.objectIDs == Array(books[2...]))
        let records = try fixture.store.records(for: books)
        #expect(books.map { records[$0]?.version } == [1, 1, 2, 2, 2])
        #expect(books.map { records[$0]?.attributes["title"] } == [.string("b1"), .string("b2"), .string("Ça ira"), .string("Ça ira"), .string("Ça ira")])
        #expect(records[books[4]]?.attributes["pages"] == .integer(500))
        // The new values are found by predicates and sorts (SQLite: their comparison keys).
        let context = fixture.context()
        let folded = try context.fetch(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "title BEGINSWITH[cd] 'ca' AND price < 1")))
        #expect(folded.map(\.objectID) == Array(books[2...]))
        let sorted = try context.fetch(FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("price"), FetchSortDescriptor("pages", ascending: false)]))
        #expect(sorted.map(\.objectID) == [books[4], books[3], books[2], books[0], books[1]])
        try fixture.verifyStored { context throws in
            #expect(try context.count(for: FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "title == 'Ça ira'"))) == 3)
        }
    }

    /// The coordinator's cache of saved rows never serves a row a batch request changed or
    /// deleted, whether or not the request listed its objects.
    package func cachedRowsAreNotServedStale(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let books = try fiveBooks(fixture)
        for id in books { _ = try fixture.coordinator.record(for: id) }
        for resultType in [BatchResultType.statusOnly, .objectIDs] {
            let title = "\(resultType)"
            _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Book", predicate: try FetchPredicate(format: "pages <= 200"), propertiesToUpdate: ["title": title], resultType: resultType))
            #expect(try books.map { try fixture.coordinator.record(for: $0)?.attributes["title"] } == [.string(title), .string(title), .string("b3"), .string("b4"), .string("b5")])
        }
        _ = try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Book", predicate: try FetchPredicate(format: "pages >= 400")))
        #expect(try books.map { try fixture.coordinator.record(for: $0) == nil } == [false, false, false, true, true])
    }

    package func contextsLearnTheNewValues(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let books = try fiveBooks(fixture)
        let merging = fixture.context()
        merging.automaticallyMergesChangesFromParent = true
        let watched = try merging.existingObject(with: books[0])
        #expect(watched["title"] as? String == "b1")
        let stale = fixture.context()
        let staleBook = try stale.existingObject(with: books[0])
        _ = staleBook["title"]
        let executing = fixture.context()
        let own = try executing.existingObject(with: books[0])
        _ = own["title"]

        let result = try executing.execute(BatchUpdateRequest(entityName: "Book", predicate: try FetchPredicate(format: "pages < 200"), propertiesToUpdate: ["title": "new"]))
        #expect(result.count == 1)
        // The executing context merged at once; the automatic one at its next operation.
        #expect(own["title"] as? String == "new")
        merging.perform {}
        #expect(watched["title"] as? String == "new")
        // A context that merges nothing still holds the old version: its save of the object is
        // a merge conflict, not a lost update.
        #expect(staleBook["title"] as? String == "b1")
        staleBook["pages"] = 1
        let conflict = expectError(.mergeConflict) { try stale.save() }
        #expect(conflict?.failures.map(\.objectID) == [books[0]])
        // Merged, it saves on top of the new values.
        own["pages"] = 2
        try executing.save()
        #expect(try fixture.store.records(for: [books[0]])[books[0]]?.attributes["pages"] == .integer(2))
    }

    package func aValueThatBreaksARuleIsRefusedForEveryMatchingObject(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.validation)
        let context = fixture.context()
        let maker = try context.make("Maker", ["name": "acme"])
        var gadgets: [ManagedObject] = []
        for (name, serial) in [("ab", "s1"), ("cd", "s2"), ("ef", nil)] as [(String, String?)] {
            let gadget = try context.make("Gadget", ["name": name, "serial": serial as Any])
            gadget.setObject(maker, forKey: "maker")
            gadgets.append(gadget)
        }
        try context.save()
        let ids = gadgets.map(\.objectID)
        let before = try fixture.snapshot()
        let all = try FetchPredicate(format: "TRUEPREDICATE")
        let cases: [([String: Any?], [Failure])] = [
            (["name": "x"], ids.map { Failure(.tooShort, $0, "name") }),
            (["name": nil, "large": 30], ids.flatMap { [Failure(.aboveMaximum, $0, "large"), Failure(.missingValue, $0, "name")] }),
            (["serial": "same"], [Failure(.notUnique, ids[1], "serial"), Failure(.notUnique, ids[2], "serial")]),
        ]
        for (values, failures) in cases {
            let error = expectError(.validationFailed) {
                _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Gadget", predicate: all, propertiesToUpdate: values))
            }
            #expect(error?.failureSet == Set(failures), "\(values)")
            #expect(try fixture.snapshot() == before)
        }
        // One object may take a free value; nil never collides.
        #expect(try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Gadget", predicate: try FetchPredicate(format: "name == 'ef'"), propertiesToUpdate: ["serial": "s3"])).count == 1)
        #expect(try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Gadget", predicate: all, propertiesToUpdate: ["serial": nil])).count == 3)
        // Nothing matches: nothing to refuse, nothing written.
        let none = try FetchPredicate(format: "name == 'zz'")
        #expect(try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Gadget", predicate: none, propertiesToUpdate: ["name": "x"])).count == 0)
    }

    package func subentitiesAndBadRequests(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let context = fixture.context()
        let document = try context.make("Document", ["title": "d"])
        let scanned = try context.make("ScannedDocument", ["title": "s"])
        let photo = try context.make("Photo", ["title": "p"])
        try context.save()
        let result = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Document", propertiesToUpdate: ["title": "T"], resultType: .objectIDs))
        #expect(result.objectIDs == [document.objectID, scanned.objectID].sorted())
        let only = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Document", propertiesToUpdate: ["pages": 7], includesSubentities: false, resultType: .objectIDs))
        #expect(only.objectIDs == [document.objectID])
        let records = try fixture.store.records(for: [document.objectID, scanned.objectID, photo.objectID])
        #expect(records[photo.objectID]?.attributes["title"] == .string("p"))
        #expect(records[scanned.objectID]?.attributes["pages"] == .integer(1))
        #expect(records[document.objectID]?.attributes["pages"] == .integer(7))

        let before = try fixture.snapshot()
        let unknown = expectError(.unknownProperty) { _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["widht": 2])) }
        #expect(unknown?.message == "entity 'Photo' has no attribute 'widht'; did you mean 'width'?")
        expectError(.unknownProperty) { _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["owner": nil])) }
        expectError(.invalidData) { _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["width": "wide"])) }
        expectError(.invalidData) { _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Photo")) }
        expectError(.invalidPredicate) { _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Photo", predicate: try FetchPredicate(format: "widht > 1"), propertiesToUpdate: ["width": 2])) }
        #expect(try fixture.snapshot() == before)
    }

    /// Attributes set to expressions of each object's own values (Core Data's NSExpression
    /// values), computed before any is set, converted to the attributes' types and checked as
    /// values are, with the same results on every store (SQLite computes them in SQL).
    package func expressionsOfTheObjectsOwnValues(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let books = try fiveBooks(fixture)
        let request = BatchUpdateRequest(
            entityName: "Book", predicate: try FetchPredicate(format: "pages >= 300"),
            propertiesToUpdate: [
                "pages": try FetchExpression(format: "pages + 1"), "price": try FetchExpression(format: "price * 2"),
                "rating": try FetchExpression(format: "pages / 100"), "title": try FetchExpression(format: "uppercase:(title)"),
                "inPrint": false,
            ],
            resultType: .objectIDs)
        #expect(try fixture.coordinator.execute(request).objectIDs == Array(books[2...]))
        let records = try fixture.store.records(for: books)
        #expect(books.map { records[$0]?.version } == [1, 1, 2, 2, 2])
        #expect(books.map { records[$0]?.attributes["pages"] } == [100, 200, 301, 401, 501].map { .integer($0) })
        #expect(books.map { records[$0]?.attributes["price"] } == [1, 2, 6, 8, 10].map { .decimal(Decimal($0)) })
        #expect(books.map { records[$0]?.attributes["rating"] } == [nil, nil, .double(3), .double(4), .double(5)])
        #expect(books.map { records[$0]?.attributes["title"] } == ["b1", "b2", "B3", "B4", "B5"].map { .string($0) })
        #expect(books.map { records[$0]?.attributes["inPrint"] } == [true, true, false, false, false].map { .bool($0) })
        try fixture.verifyStored { context throws in
            #expect(try context.count(for: FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "title BEGINSWITH 'B' AND rating >= 4"))) == 2)
        }
    }

    package func expressionsBreakingARuleChangeNothing(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let books = try fiveBooks(fixture)
        let before = try fixture.snapshot()
        func refused(_ key: String, _ format: String) throws -> StrataError? {
            expectError(.validationFailed) {
                _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: [key: try FetchExpression(format: format)]))
            }
        }
        // A fraction is not an integer; 7 / 2 is 3.5 (as NSExpression divides).
        let fraction = try refused("pages", "pages / 7 + 1")
        #expect(fraction?.failures.map(\.objectID) == books)
        #expect(fraction?.failures.first?.message.hasPrefix("the expression gives 15.28") == true, "\(String(describing: fraction))")
        #expect(fraction?.failures.first?.message.hasSuffix("which an int32 attribute cannot hold") == true)
        // Out of the attribute's range, and a required value removed.
        let range = try refused("pages", "pages * 10000000")
        #expect(range?.failures.map(\.objectID) == Array(books[2...]))
        #expect(try refused("title", "nil + 1")?.failures.map(\.code) == Array(repeating: .missingValue, count: 5))
        #expect(try fixture.snapshot() == before)
        let unknown = expectError(.invalidPredicate) {
            _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["pages": try FetchExpression(format: "pagse + 1")]))
        }
        #expect(unknown?.message.contains("did you mean 'pages'") == true, "\(String(describing: unknown))")
        let aggregate = expectError(.invalidPredicate) {
            _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["pages": try FetchExpression(format: "@sum.pages")]))
        }
        #expect(aggregate?.message.hasPrefix("the batch update sets 'pages' to an aggregate of the matching objects") == true)
        #expect(try fixture.snapshot() == before)
    }

    package func expressionsBreakingUniquenessChangeNothing(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "User", objects: [["email": "x@a", "handle": "Ann"], ["email": "y@a", "handle": "ANN"], ["email": "z@a", "handle": "bo"]]))
        let before = try fixture.snapshot()
        let error = expectError(.validationFailed) {
            _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "User", propertiesToUpdate: ["email": try FetchExpression(format: "lowercase:(handle)")]))
        }
        #expect(error?.failures.map(\.code).contains(.notUnique) == true, "\(String(describing: error))")
        #expect(try fixture.snapshot() == before)
        // Values that stay distinct are fine, and a key path of another attribute is an expression.
        _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "User", propertiesToUpdate: ["handle": try FetchExpression(format: "email")]))
        try fixture.verifyStored { context throws in
            #expect(try context.all("User", by: "email").map { $0["handle"] as? String } == ["x@a", "y@a", "z@a"])
        }
    }

    /// Unique values that move between objects (each email becomes another user's): the
    /// result breaks no constraint, whatever order the objects are written in, and is saved.
    package func expressionsMovingUniqueValuesBetweenObjects(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "User", objects: [
            ["email": "a", "handle": "b"], ["email": "b", "handle": "c"], ["email": "c", "handle": "d"], ["email": "d", "handle": "a"],
        ]))
        _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "User", propertiesToUpdate: ["email": try FetchExpression(format: "handle")]))
        try fixture.verifyStored { context throws in
            #expect(try context.all("User", by: "handle").map { $0["email"] as? String } == ["a", "b", "c", "d"])
        }
    }

    /// An expression that gives an object or none (a to-one relationship) is not a value of an
    /// attribute: refused for every matching object, nothing written (before, SQLite wrote nil
    /// into a required attribute and the other stores left it, both counting the objects as
    /// updated).
    package func expressionsGivingObjectsAreRefused(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let books = try fiveBooks(fixture)
        let context = fixture.context()
        try context.existingObject(with: books[0]).setObject(try context.make("Author", ["name": "ann"]), forKey: "author")
        try context.save()
        let before = try fixture.snapshot()
        let error = expectError(.validationFailed) {
            _ = try fixture.coordinator.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["title": try FetchExpression(format: "author")]))
        }
        #expect(error?.failures.map(\.objectID) == books)
        #expect(error?.failures.first?.message.hasSuffix("which a string attribute cannot hold") == true, "\(String(describing: error))")
        #expect(try fixture.snapshot() == before)
    }
}
