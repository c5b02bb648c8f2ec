import Testing
@testable import Strata

@Suite struct RequestDependenciesTests {
    private static func entities(_ request: FetchRequest, section: String? = nil) -> Set<String> {
        RequestDependencies(request, sectionKeyPath: section, schema: TestModel.schema).entityNames
    }

    @Test func theEntityAndTheRelationshipsItsKeyPathsFollow() throws {
        #expect(Self.entities(FetchRequest(entityName: "Book", predicate: .key("pages") > 30)) == ["Book"])
        #expect(Self.entities(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "author.pet.name == 'Rex'"))) == ["Book", "Person", "Pet"])
        #expect(Self.entities(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "ANY tags.name == 'sf'"))) == ["Book", "Tag"])
        #expect(Self.entities(FetchRequest(entityName: "Book", sortDescriptors: [FetchSortDescriptor("author.lastName")])) == ["Book", "Person"])
        #expect(Self.entities(FetchRequest(entityName: "Book"), section: "author.lastName") == ["Book", "Person"])
        // Subentities, unless left out.
        #expect(Self.entities(FetchRequest(entityName: "Shape")) == ["Shape", "Circle", "Square"])
        var only = FetchRequest(entityName: "Shape")
        only.includesSubentities = false
        #expect(Self.entities(only) == ["Shape"])
        // A subquery counts everything reachable through relationships: never Settings.
        let subquery = try FetchPredicate(format: "SUBQUERY(tags, $t, $t.name == 'sf').@count > 0")
        #expect(Self.entities(FetchRequest(entityName: "Book", predicate: subquery)) == ["Book", "Person", "Tag", "Pet"])
    }

    @Test func aSaveIsRelevantWhenItNamesOneOfThem() {
        let dependencies = RequestDependencies(FetchRequest(entityName: "Book"), schema: TestModel.schema)
        let book = ObjectID(entityName: "Book", storeIdentifier: "S", primaryKey: 1)
        let settings = ObjectID(entityName: "Settings", storeIdentifier: "S", primaryKey: 1)
        #expect(dependencies.isAffected(by: [book]))
        #expect(!dependencies.isAffected(by: [settings]))
        var notification = SaveNotification(inserted: [settings], updated: [], deleted: [], changedKeys: [:], records: [:], sourceContext: nil)
        #expect(!dependencies.isAffected(by: notification))
        notification.unlistedEntities = ["Book"]
        #expect(dependencies.isAffected(by: notification))
    }
}
