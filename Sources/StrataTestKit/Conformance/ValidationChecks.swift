import Foundation
import Strata
import Testing

/// Every validation rule. A refused save reports every problem at once, leaves the store as it
/// was and the context with its changes; fixing the values makes the same save succeed.
package struct ValidationChecks {
    package init() {}

    /// Expects `context.save()` to fail with exactly `expected`, with nothing written.
    static func expectRefused(
        _ context: ManagedObjectContext, _ fixture: StoreFixture, _ expected: Set<Failure>,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let before = try fixture.snapshot()
        let inserted = context.insertedObjects, updated = context.updatedObjects, deleted = context.deletedObjects
        let error = expectError(.validationFailed, sourceLocation: sourceLocation) { try context.save() }
        #expect(error?.failureSet == expected, sourceLocation: sourceLocation)
        #expect(try fixture.snapshot() == before, "the refused save changed the store", sourceLocation: sourceLocation)
        #expect(context.hasChanges, sourceLocation: sourceLocation)
        #expect(context.insertedObjects == inserted, sourceLocation: sourceLocation)
        #expect(context.updatedObjects == updated, sourceLocation: sourceLocation)
        #expect(context.deletedObjects == deleted, sourceLocation: sourceLocation)
        #expect(inserted.allSatisfy { $0.objectID.isTemporary }, sourceLocation: sourceLocation)
    }

    package func attributeRules(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.validation)
        let context = fixture.context()
        let maker = try context.make("Maker", ["name": "acme"])
        let stored = try context.make("Gadget", ["name": "ok", "large": 15])
        stored.setObject(maker, forKey: "maker")
        try context.save()

        func gadget(_ values: [String: Any]) throws -> ManagedObject {
            let object = try context.make("Gadget", values)
            object.setObject(maker, forKey: "maker")
            return object
        }
        let missing = try context.make("Gadget")
        let short = try gadget(["name": "a", "small": 40_000, "medium": Int64(Int32.max) + 1, "large": 9])
        let long = try gadget(["name": "abcdef", "large": 21, "ratio": 1.5, "price": Decimal(0), "made": date("1999-12-31T23:59:59.999Z")])
        let pattern = try gadget(["name": "ab1", "small": -32_769, "medium": Int64(Int32.min) - 1, "ratio": -0.1,
                                  "price": Decimal(string: "100.01")!, "made": date("2030-01-01T00:00:00.001Z")])
        let lowest = try gadget(["name": "ab", "small": Int16.min, "medium": Int32.max, "large": 10, "ratio": 0.0,
                                 "price": Decimal(string: "0.01")!, "made": date("2000-01-01T00:00:00.000Z")])
        let highest = try gadget(["name": "abcde", "small": Int16.max, "medium": Int32.min, "large": 20, "ratio": 1.0,
                                  "price": Decimal(100), "made": date("2030-01-01T00:00:00.000Z")])
        stored["large"] = 25
        try Self.expectRefused(context, fixture, [
            Failure(.missingValue, missing.objectID, "name"),
            Failure(.missingValue, missing.objectID, "maker"),
            Failure(.tooShort, short.objectID, "name"),
            Failure(.outOfRange, short.objectID, "small"),
            Failure(.outOfRange, short.objectID, "medium"),
            Failure(.belowMinimum, short.objectID, "large"),
            Failure(.tooLong, long.objectID, "name"),
            Failure(.aboveMaximum, long.objectID, "large"),
            Failure(.aboveMaximum, long.objectID, "ratio"),
            Failure(.belowMinimum, long.objectID, "price"),
            Failure(.belowMinimum, long.objectID, "made"),
            Failure(.patternMismatch, pattern.objectID, "name"),
            Failure(.outOfRange, pattern.objectID, "small"),
            Failure(.outOfRange, pattern.objectID, "medium"),
            Failure(.belowMinimum, pattern.objectID, "ratio"),
            Failure(.aboveMaximum, pattern.objectID, "price"),
            Failure(.aboveMaximum, pattern.objectID, "made"),
            Failure(.aboveMaximum, stored.objectID, "large"),
        ])
        #expect(short["small"] as? Int64 == 40_000)

        // Fixed, the same context saves; the boundary values were valid all along.
        context.delete(missing)
        for object in [short, long, pattern] { context.delete(object) }
        stored["large"] = 20
        try context.save()
        try fixture.verifyStored { context throws in
            let gadgets = try context.all("Gadget")
            #expect(gadgets.map(\.objectID) == [lowest.objectID, highest.objectID, stored.objectID])
            #expect(gadgets.map { $0.attribute("small") } == [.integer(-32_768), .integer(32_767), nil])
            #expect(gadgets.map { $0.attribute("large") } == [.integer(10), .integer(20), .integer(20)])
        }
    }

    package func relationshipCounts(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.validation)
        let context = fixture.context()
        func kit(_ name: String, parts: Int) throws -> ManagedObject {
            let kit = try context.make("Kit", ["name": name])
            for index in 0..<parts { try context.make("Part", ["name": "\(name)\(index)"]).setObject(kit, forKey: "kit") }
            return kit
        }
        let stored = try kit("stored", parts: 2)
        try context.save()

        let none = try kit("none", parts: 0)
        let one = try kit("one", parts: 1)
        let four = try kit("four", parts: 4)
        let three = try kit("three", parts: 3)
        context.delete(stored.objects(forKey: "parts")[0])
        try Self.expectRefused(context, fixture, [
            Failure(.tooFewObjects, none.objectID, "parts"),
            Failure(.tooFewObjects, one.objectID, "parts"),
            Failure(.tooManyObjects, four.objectID, "parts"),
            Failure(.tooFewObjects, stored.objectID, "parts"),
        ])

        context.delete(none)
        try context.make("Part", ["name": "one1"]).setObject(one, forKey: "kit")
        four.removeObject(four.objects(forKey: "parts")[0], forKey: "parts")
        try context.make("Part", ["name": "stored9"]).setObject(stored, forKey: "kit")
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Kit").map { $0.objects(forKey: "parts").count } == [3, 2, 2, 3])
            #expect(try context.all("Kit").map(\.objectID) == [four.objectID, one.objectID, stored.objectID, three.objectID])
        }
    }

    package func uniquenessAgainstStoredDataAndWithinOneSave(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.validation)
        let context = fixture.context()
        let maker = try context.make("Maker", ["name": "acme"])
        func gadget(_ serial: String?) throws -> ManagedObject {
            let object = try context.make("Gadget", ["name": "gg"])
            if let serial { object["serial"] = serial }
            object.setObject(maker, forKey: "maker")
            return object
        }
        let x = try gadget("X"), y = try gadget("Y")
        _ = try gadget(nil)
        _ = try gadget(nil)
        try context.save()

        // Against stored data: the new object is the one reported.
        let duplicate = try gadget("X")
        try Self.expectRefused(context, fixture, [Failure(.notUnique, duplicate.objectID, "serial")])
        context.delete(duplicate)

        // Within one save: two new objects with the same value; one of them is reported.
        let first = try gadget("Z"), second = try gadget("Z")
        let before = try fixture.snapshot()
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.failures.map(\.code) == [.notUnique])
        #expect(error?.failures.map(\.key) == ["serial"])
        #expect(error.map { [first.objectID, second.objectID].contains($0.failures[0].objectID) } == true)
        #expect(try fixture.snapshot() == before)
        #expect(context.insertedObjects == [first, second])
        second["serial"] = "W"

        // Swapping values in one save and re-using the value of a deleted object are fine.
        x["serial"] = "Y"
        y["serial"] = "X"
        let reused = try gadget("V")
        try context.save()
        let stale = try gadget("V2")
        context.delete(reused)
        stale["serial"] = "V"
        try context.save()
        try fixture.verifyStored { context throws in
            let serials = try context.fetch(FetchRequest(entityName: "Gadget", sortDescriptors: [FetchSortDescriptor("serial")]))
                .map { $0["serial"] as? String }
            #expect(serials == [nil, nil, "V", "W", "X", "Y", "Z"])
            #expect(try context.existingObject(with: x.objectID)["serial"] as? String == "Y")
        }
    }
}
