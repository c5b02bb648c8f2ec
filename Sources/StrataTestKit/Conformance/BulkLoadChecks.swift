import Foundation
import Strata
import Testing

/// `DataImporter.save()` writes a load that touches nothing stored straight to the store as
/// records. It must store exactly what the context path (`finish()`, then the context's
/// `save()`) stores, and refuse exactly what it refuses, on every store type.
package struct BulkLoadChecks {
    package init() {}

    /// Loads with problems that both paths must report alike.
    package static let problemLoads = [
        // The two sides disagree: ann's passport is 1, but passport 1 names bob.
        #"{"objects": {"Person": [{"@id": 1, "name": "ann", "passport": 1}, {"@id": 2, "name": "bob"}], "Passport": [{"@id": 1, "number": "P1", "holder": 2}]}}"#,
        // A member named twice, a reference to nothing, a member of the wrong entity.
        #"{"objects": {"Person": [{"@id": 1, "name": "ann", "clubs": [1, 1], "friends": [9], "department": 1}], "Club": [{"@id": 1, "name": "c"}], "Department": []}}"#,
        // An object of a relationship taken by two owners.
        #"{"objects": {"Department": [{"@id": 1, "name": "a", "staff": [1]}, {"@id": 2, "name": "b", "staff": [1]}], "Person": [{"@id": 1, "name": "ann"}]}}"#,
    ]

    /// Every kind of relationship of the graph model, given from one side, from the other, and
    /// from both (agreeing: an ordered relationship given from both sides is in the order the
    /// other side's objects come), with members named before they are read.
    package static let graphData = """
        {"objects": {
          "Track": [{"@id": 1, "title": "one"}, {"@id": 2, "title": "two", "playlists": [1, 2]},
                    {"@id": 3, "title": "three", "playlists": [2, 1]}, {"@id": 4, "title": "four"}],
          "Person": [{"@id": 1, "name": "ann", "passport": 1, "department": 1, "clubs": [1, 2], "friends": [2, 3], "mentor": 3},
                     {"@id": 2, "name": "bob", "department": 1, "friends": [1], "mentor": 2},
                     {"@id": 3, "name": "cy", "friends": [3, 1]}],
          "Passport": [{"@id": 1, "number": "P1", "holder": 1}, {"@id": 2, "number": "P2", "holder": 3}],
          "Department": [{"@id": 1, "name": "ops", "staff": [1, 2]}, {"@id": 2, "name": "empty", "staff": []}],
          "Club": [{"@id": 1, "name": "chess", "members": [1]}, {"@id": 2, "name": "go"}],
          "Playlist": [{"@id": 1, "name": "a", "tracks": [2, 3, 4]}, {"@id": 2, "name": "b", "tracks": [2, 3]}],
          "Album": [{"@id": 1, "title": "x", "songs": [3, 1, 4]}]
        }}
        """

    /// Loads `data` both ways into new stores of `kind`: the record path's dump, whether it
    /// left the context empty, and the context path's dump.
    private func loadBothWays(_ kind: StoreKind, _ schema: Schema, _ data: String) throws -> (records: String, recordsLeftContextEmpty: Bool, context: String) {
        let direct = try StoreFixture(kind, schema)
        let directContext = direct.context()
        let importer = DataImporter(context: directContext)
        importer.add(Data(data.utf8), file: "data.json")
        try importer.save()
        let throughContext = try StoreFixture(kind, schema)
        let context = throughContext.context()
        let other = DataImporter(context: context)
        other.add(Data(data.utf8), file: "data.json")
        try other.finish()
        try context.save()
        return (try DataExporter.dump(direct.coordinator), directContext.registeredObjects.isEmpty, try DataExporter.dump(throughContext.coordinator))
    }

    package func theRecordPathStoresWhatTheContextPathStores(_ kind: StoreKind) throws {
        let (records, leftEmpty, context) = try loadBothWays(kind, Models.graph, Self.graphData)
        #expect(leftEmpty, "the load went through the context")
        #expect(records == context)
        // Spot checks of what both stored: inverses filled, orders kept, symmetric friends.
        let dump = try #require(try JSONSerialization.jsonObject(with: Data(records.utf8)) as? [String: [String: [[String: Any]]]])["objects"]
        #expect(dump?["Album"]?.first?["songs"] as? [Int] == [3, 1, 4])
        #expect(dump?["Track"]?.map { $0["album"] as? Int } == [1, nil, 1, 1])
        #expect(dump?["Playlist"]?.map { $0["tracks"] as? [Int] } == [[2, 3, 4], [2, 3]])
        #expect(dump?["Person"]?.map { $0["friends"] as? [Int] } == [[2, 3], [1], [1, 3]])
        #expect(dump?["Person"]?.map { $0["passport"] as? Int } == [1, nil, 2])
        #expect(dump?["Club"]?.map { $0["members"] as? [Int] } == [[1], [1]])
    }

    /// The record path leaves the store's key counters past the loaded keys, as a save does.
    package func newObjectsAfterALoadGetFreshKeys(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        let importer = DataImporter(context: context)
        importer.add(Data(Self.graphData.utf8), file: "data.json")
        #expect(try importer.save() == ["Track": 4, "Person": 3, "Passport": 2, "Department": 2, "Club": 2, "Playlist": 2, "Album": 1])
        let person = try context.make("Person", ["name": "dee"])
        try context.save()
        #expect(person.objectID.primaryKey == 4)
        #expect(try context.all("Person").map { $0["name"] as? String } == ["ann", "bob", "cy", "dee"])
    }

    /// Problems of the input are reported as the context path reports them (it is the one
    /// that reports them), and nothing is stored.
    package func problemsAreReportedAsTheContextPathReportsThem(_ kind: StoreKind, _ data: String) throws {
        let viaSave = try StoreFixture(kind, Models.graph)
        let importer = DataImporter(context: viaSave.context())
        importer.add(Data(data.utf8), file: "data.json")
        let error = try #require(throws: StrataError.self) { try importer.save() }
        let reference = DataImporter(context: try StoreFixture(.memory, Models.graph).context())
        reference.add(Data(data.utf8), file: "data.json")
        let expected = try #require(throws: StrataError.self) { try reference.finish() }
        #expect(error.code == .invalidData)
        #expect(error.diagnostics.map(\.description) == expected.diagnostics.map(\.description))
        #expect(!error.diagnostics.isEmpty)
        #expect(try viaSave.context().count(for: FetchRequest(entityName: "Person")) == 0)
    }

    /// Broken rules are listed together, each placed in the input, as the context path's save
    /// lists them; nothing is stored.
    package func brokenRulesAreListedTogether(_ kind: StoreKind) throws {
        let data = """
            {"objects": {
              "Maker": [{"@id": 1, "name": "acme"}],
              "Gadget": [{"@id": 1, "name": "ok", "maker": 1, "serial": "S1"},
                         {"@id": 2, "name": "x", "maker": 1, "large": 30},
                         {"@id": 3, "name": "fine", "serial": "S1"}],
              "Kit": [{"@id": 1, "name": "k", "parts": [1]}],
              "Part": [{"@id": 1, "name": "p"}]
            }}
            """
        var reports: [[String]] = []
        for viaRecords in [true, false] {
            let fixture = try StoreFixture(kind, Models.validation)
            let context = fixture.context()
            let importer = DataImporter(context: context)
            importer.add(Data(data.utf8), file: "data.json")
            let error = try #require(throws: StrataError.self) {
                if viaRecords {
                    try importer.save()
                } else {
                    try importer.finish()
                    try context.save()
                }
            }
            #expect(error.code == .validationFailed)
            reports.append(importer.sortedByInput(error.failures).map { "\(importer.describe($0.objectID) ?? "?"): \($0.key ?? "") \($0.code) \($0.message.prefix(30))" })
            #expect(try fixture.context().count(for: FetchRequest(entityName: "Gadget")) == 0)
        }
        #expect(reports[0] == reports[1])
        #expect(reports[0].map { $0.components(separatedBy: ":").first ?? "" } == [
            "Gadget @id 2 (data.json", "Gadget @id 2 (data.json", "Gadget @id 3 (data.json", "Gadget @id 3 (data.json", "Kit @id 1 (data.json",
        ])
        #expect(reports[0].contains { $0.contains("notUnique") })
    }

    /// A load whose objects refer to stored ones goes through the context, which updates the
    /// stored side of each relationship.
    package func aLoadThatTouchesStoredObjectsGoesThroughTheContext(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let first = DataImporter(context: fixture.context())
        first.add(Data(#"{"objects": {"Department": [{"@id": 1, "name": "ops"}]}}"#.utf8), file: "a.json")
        try first.save()
        let context = fixture.context()
        let second = DataImporter(context: context)
        second.add(Data(#"{"objects": {"Person": [{"@id": 1, "name": "ann", "department": 1}]}}"#.utf8), file: "b.json")
        #expect(try second.save() == ["Person": 1])
        #expect(!context.registeredObjects.isEmpty)
        try fixture.verifyStored { context throws in
            let department = try #require(try context.all("Department").first)
            #expect(department.objects(forKey: "staff").map { $0["name"] as? String } == ["ann"])
        }
    }

}
