import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// A store of 100,000 objects of ten attributes each, plus a to-one relationship, loads whole.
/// (Speed is measured in `Benchmarks/`, never here.)
@Suite struct XMLStoreLargeTests {
    static let schemaJSON = """
        {
          "name": "Usage",
          "entities": [
            {
              "name": "Event",
              "attributes": [
                { "name": "name",     "type": "string" },
                { "name": "detail",   "type": "string", "optional": true },
                { "name": "count",    "type": "int32" },
                { "name": "serial",   "type": "int64" },
                { "name": "value",    "type": "double" },
                { "name": "ratio",    "type": "float" },
                { "name": "flag",     "type": "bool" },
                { "name": "at",       "type": "date" },
                { "name": "token",    "type": "uuid" },
                { "name": "price",    "type": "decimal" }
              ],
              "relationships": [
                { "name": "device", "destination": "Device", "inverse": "events", "optional": true }
              ]
            },
            {
              "name": "Device",
              "attributes": [ { "name": "name", "type": "string" } ],
              "relationships": [
                { "name": "events", "destination": "Event", "inverse": "device", "toMany": true }
              ]
            }
          ]
        }
        """

    @Test func hundredThousandObjectsLoad() throws {
        let schema = try Schema(data: Data(Self.schemaJSON.utf8))
        let eventCount = 100_000
        let deviceCount = 100
        var store = contents(schema, [], keySequences: ["Event": Int64(eventCount), "Device": Int64(deviceCount)])
        var members = Array(repeating: [ObjectID](), count: deviceCount)
        var events: [ObjectID: StoreRecord] = [:]
        events.reserveCapacity(eventCount)
        for key in 1...Int64(eventCount) {
            let id = objectID("Event", key)
            let device = Int(key) % deviceCount
            members[device].append(id)
            events[id] = StoreRecord(objectID: id, attributes: [
                "name": .string("event \(key)"),
                "detail": .string(key % 7 == 0 ? "needs <escaping> & more" : "plain"),
                "count": .integer(key % 1000),
                "serial": .integer(key * 1_000_003),
                "value": .double(Double(key) / 7),
                "ratio": .float(Float(key) / 3),
                "flag": .bool(key % 2 == 0),
                "at": .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(key) * 0.001)),
                "token": .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llX", key))!),
                "price": .decimal(Decimal(key) / 100),
            ], toOne: ["device": objectID("Device", Int64(device + 1))])
        }
        store.records["Event"] = events
        store.records["Device"] = Dictionary(uniqueKeysWithValues: (0..<deviceCount).map { index in
            let id = objectID("Device", Int64(index + 1))
            return (id, StoreRecord(objectID: id, attributes: ["name": .string("device \(index)")], toMany: ["events": members[index]]))
        })
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("usage.xml")
            try XMLStoreFormat().write(store, to: url)

            // Opened through a coordinator: the store loads every record, exactly.
            let coordinator = xmlCoordinator(schema)
            let opened = try coordinator.addStore(StoreDescription(type: .xml, url: url))
            let snapshot = (opened as! AtomicStore).snapshot
            #expect(snapshot.recordCount == eventCount + deviceCount)
            #expect(snapshot.records == store.records)
            #expect(snapshot.keySequences == ["Event": Int64(eventCount), "Device": Int64(deviceCount)])

            let context = ManagedObjectContext(coordinator: coordinator)
            #expect(try context.count(for: FetchRequest(entityName: "Event")) == eventCount)
            let first = try context.fetch(FetchRequest(entityName: "Event", fetchLimit: 1))
            #expect(first.first?["name"] as? String == "event 1")
            #expect((first.first?["device"] as? ManagedObject)?["name"] as? String == "device 1")
        }
    }
}
