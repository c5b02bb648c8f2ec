import Foundation
import Strata
import Testing

/// A store describes itself (identity, model name and hashes, the whole schema, app keys), can
/// be inspected without a stack, and refuses a model other than the one it was written with.
package struct MetadataChecks {
    package init() {}

    package func storesDescribeThemselves(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let metadata = fixture.store.metadata
        #expect(metadata.storeType == kind.type)
        #expect(UUID(uuidString: metadata.storeIdentifier) != nil)
        #expect(metadata.modelName == "Catalog")
        #expect(metadata.modelVersionHash == Models.catalog.versionHash)
        #expect(metadata.entityVersionHashes == Models.catalog.entityVersionHashes)
        #expect(metadata.schemaJSON == Models.catalog.jsonString)
        #expect(try metadata.schema() == Models.catalog)
        #expect(metadata.custom == [:])

        try fixture.coordinator.setMetadata("42", forKey: "lastSync", in: fixture.store)
        try fixture.coordinator.setMetadata("x", forKey: "other", in: fixture.store)
        try fixture.coordinator.setMetadata(nil, forKey: "other", in: fixture.store)
        #expect(fixture.store.metadata.custom == ["lastSync": "42"])
        var expected = metadata
        expected.custom = ["lastSync": "42"]
        #expect(fixture.store.metadata == expected)

        guard let url = fixture.description.url else {
            #expect(!kind.persists)
            expectError(.noStore) { _ = try kind.storeTypes.factory(for: kind.type).metadata(at: URL(fileURLWithPath: "/nonexistent")) }
            return
        }
        // Readable without a coordinator, with the type found from the file itself.
        #expect(try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: kind.storeTypes) == expected)
        #expect(try PersistentStoreCoordinator.metadataForStore(at: url, type: kind.type, storeTypes: kind.storeTypes) == expected)
        #expect(try kind.storeTypes.type(of: url) == kind.type)
        #expect(try fixture.reopen().stores[0].metadata == expected)
        expectError(.storeIO) {
            _ = try PersistentStoreCoordinator.metadataForStore(at: url.deletingLastPathComponent().appendingPathComponent("missing"), storeTypes: kind.storeTypes)
        }
    }

    package func aChangedModelIsRefusedNamingTheEntity(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let context = fixture.context()
        try context.make("Tag", ["name": "kept"])
        try context.save()
        let changedBook = Models.load(Models.catalogJSON.replacingOccurrences(
            of: #"{ "name": "title", "type": "string" },"#, with: #"{ "name": "title", "type": "string" }, { "name": "isbn", "type": "string", "optional": true },"#))
        let addedEntity = Models.load(Models.catalogJSON.replacingOccurrences(
            of: #"{ "name": "Tag","#, with: #"{ "name": "Publisher", "attributes": [ { "name": "name", "type": "string" } ] }, { "name": "Tag","#))
        #expect(changedBook.versionHash != Models.catalog.versionHash)
        #expect(changedBook.entityVersionHashes.filter { Models.catalog.entityVersionHashes[$0.key] != $0.value }.keys.sorted() == ["Book"])

        for (model, naming) in [(changedBook, "changed: Book"), (addedEntity, "only in the model: Publisher")] {
            // The check itself, on the metadata of any store...
            let problem = fixture.store.metadata.incompatibility(with: model)
            #expect(problem?.code == .incompatibleModel)
            #expect(problem?.message.contains(naming) == true, "\(problem?.message ?? "")")
            #expect(problem?.message.contains("Author") == false)
            // ...and on opening, for stores that can be opened again.
            if kind.persists {
                let error = expectError(.incompatibleModel) { _ = try fixture.reopen(with: model) }
                #expect(error?.message.contains(naming) == true, "\(error?.message ?? "")")
            }
        }
        #expect(fixture.store.metadata.incompatibility(with: Models.catalog) == nil)
        try fixture.verifyStored { context throws in
            #expect(try context.all("Tag").map { $0["name"] as? String } == ["kept"])
        }
    }
}
