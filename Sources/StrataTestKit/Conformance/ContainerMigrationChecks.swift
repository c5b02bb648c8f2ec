import Foundation
import Strata
import Synchronization
import Testing

/// A container given the model's versions migrates a store written with an earlier one when it
/// opens it; without versions it refuses; the development option erases it.
package struct ContainerMigrationChecks {
    package init() {}

    static let v1 = Models.load("""
    { "name": "Notes", "version": "1", "entities": [
      { "name": "Note", "attributes": [
          { "name": "title", "type": "string" },
          { "name": "words", "type": "int16", "optional": true } ] } ] }
    """)
    /// Renames `title` (keeping its identifier), widens `words`, adds `pinned` with a default.
    static let v2 = Models.load("""
    { "name": "Notes", "version": "2", "entities": [
      { "name": "Note", "attributes": [
          { "name": "headline", "type": "string", "renamingIdentifier": "title" },
          { "name": "words", "type": "int32", "optional": true },
          { "name": "pinned", "type": "bool", "default": false } ] } ] }
    """)
    /// Adds `Tag`, filled by a custom stage from each note's first word.
    static let v3 = Models.load("""
    { "name": "Notes", "version": "3", "entities": [
      { "name": "Note",
        "attributes": [
          { "name": "headline", "type": "string", "renamingIdentifier": "title" },
          { "name": "words", "type": "int32", "optional": true },
          { "name": "pinned", "type": "bool", "default": false } ],
        "relationships": [ { "name": "tag", "destination": "Tag", "inverse": "notes", "optional": true } ] },
      { "name": "Tag",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "notes", "destination": "Note", "inverse": "tag", "toMany": true } ] } ] }
    """)


    /// A v1 store holding three notes, in the new directory of its own that the kind makes for
    /// it (which the caller removes), closed; returns its description and primary keys by title.
    func makeVersion1Store(_ kind: StoreKind) throws -> (StoreDescription, [String: Int64]) {
        let description = try kind.makeDescription()
        var keys: [String: Int64] = [:]
        // The coordinator is released at the end of the scope, closing the store (a SQLite
        // store's log is folded into the file).
        do {
            let coordinator = PersistentStoreCoordinator(schema: Self.v1, storeTypes: kind.storeTypes)
            let store = try coordinator.addStore(description)
            let context = ManagedObjectContext(coordinator: coordinator)
            for (title, words) in [("Buy milk", 2), ("Call Ada about the book", 5), ("Plan trip", nil) as (String, Int?)] {
                try context.make("Note", ["title": title, "words": words as Any])
            }
            try context.save()
            try coordinator.setMetadata("kept", forKey: "app.flag", in: store)
            for note in try context.all("Note", by: "title") {
                keys[note["title"] as! String] = note.objectID.primaryKey!
            }
        }
        return (description, keys)
    }

    package func aContainerGivenTheVersionsMigratesAtOpen(_ kind: StoreKind) throws {
        let (description, keys) = try makeVersion1Store(kind)
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        let identifier = try kind.storeTypes.factory(for: kind.type).metadata(at: description.url!).storeIdentifier

        let container = try PersistentContainer(
            versions: SchemaVersions([Self.v1, Self.v2]), stores: [description], storeTypes: kind.storeTypes)
        let store = container.coordinator.stores[0]
        #expect(store.metadata.modelVersionHash == Self.v2.versionHash)
        #expect(store.metadata.storeIdentifier == identifier)
        #expect(store.metadata.custom == ["app.flag": "kept"])
        let notes = try container.newBackgroundContext().all("Note", by: "headline")
        #expect(notes.map { $0["headline"] as? String } == ["Buy milk", "Call Ada about the book", "Plan trip"])
        #expect(notes.map { $0.attribute("words") } == [.integer(2), .integer(5), nil])
        #expect(notes.map { $0.attribute("pinned") } == [.bool(false), .bool(false), .bool(false)])
        #expect(notes.map { $0.objectID.primaryKey! } == ["Buy milk", "Call Ada about the book", "Plan trip"].map { keys[$0]! })

        // Opened again, it is current: nothing to migrate.
        let again = try PersistentContainer(
            versions: SchemaVersions([Self.v1, Self.v2]), stores: [description], storeTypes: kind.storeTypes)
        #expect(try again.newBackgroundContext().count(for: FetchRequest(entityName: "Note")) == 3)
    }

    package func aCustomStageRunsAtOpenThroughEveryVersion(_ kind: StoreKind) throws {
        let (description, _) = try makeVersion1Store(kind)
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        let tagging = MigrationStage.custom(from: Self.v2, to: Self.v3, didMigrate: { context in
            var tags: [String: ManagedObject] = [:]
            for note in try context.fetch(FetchRequest(entityName: "Note")) {
                let word = String((note["headline"] as! String).split(separator: " ")[0]).lowercased()
                let tag = try tags[word] ?? context.make("Tag", ["name": word])
                tags[word] = tag
                note.setObject(tag, forKey: "tag")
            }
        })
        let container = try PersistentContainer(
            versions: SchemaVersions([Self.v1, Self.v2, Self.v3]), stages: [tagging], stores: [description], storeTypes: kind.storeTypes)
        let context = container.newBackgroundContext()
        let tags = try context.all("Tag")
        #expect(tags.map { $0["name"] as? String } == ["buy", "call", "plan"])
        #expect(tags.map { $0.names("notes", by: "headline") } == [["Buy milk"], ["Call Ada about the book"], ["Plan trip"]])
        #expect(container.coordinator.stores[0].metadata.modelVersionHash == Self.v3.versionHash)
    }

    package func withoutVersionsAStoreOfAnotherModelIsRefusedAndUntouched(_ kind: StoreKind) throws {
        let (description, _) = try makeVersion1Store(kind)
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        let before = try Data(contentsOf: description.url!)
        let error = expectError(.incompatibleModel) {
            _ = try PersistentContainer(schema: Self.v2, stores: [description], storeTypes: kind.storeTypes)
        }
        #expect(error?.message.contains("changed: Note") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(try Data(contentsOf: description.url!) == before)
    }

    package func aFailingCustomStageLeavesTheStoreAsItWas(_ kind: StoreKind) throws {
        let (description, _) = try makeVersion1Store(kind)
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        let before = try Data(contentsOf: description.url!)
        struct Unreachable: Error {}
        let failing = MigrationStage.custom(from: Self.v2, to: Self.v3, didMigrate: { context in
            try context.make("Tag", ["name": "half done"])
            try context.save()
            throw Unreachable()
        })
        let error = expectError(.migrationFailed) {
            _ = try PersistentContainer(
                versions: SchemaVersions([Self.v1, Self.v2, Self.v3]), stages: [failing], stores: [description], storeTypes: kind.storeTypes)
        }
        #expect(error?.message.contains("Notes 2") == true, "\(error.map { "\($0)" } ?? "")")
        let metadata = try kind.storeTypes.factory(for: kind.type).metadata(at: description.url!)
        #expect(metadata.modelVersionHash == Self.v1.versionHash)
        if kind.type != .sqlite { #expect(try Data(contentsOf: description.url!) == before) }
        let reopened = try PersistentContainer(schema: Self.v1, stores: [description], storeTypes: kind.storeTypes)
        #expect(try reopened.newBackgroundContext().all("Note", by: "title").map { $0["title"] as? String } == ["Buy milk", "Call Ada about the book", "Plan trip"])
    }

    package func aStoreOfAnUnlistedModelThatWouldLoseDataIsRefused(_ kind: StoreKind) throws {
        // Written with v2, opened by an app that knows only v1 (an older app): migrating v2 → v1
        // would remove `pinned`.
        let (description, _) = try makeVersion1Store(kind)
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        _ = try PersistentContainer(versions: SchemaVersions([Self.v1, Self.v2]), stores: [description], storeTypes: kind.storeTypes)
        let olderApp = Models.load(Self.v1.jsonString.replacingOccurrences(of: "\"Notes\"", with: "\"NotesOld\""))
        let error = expectError(.migrationRefused) {
            _ = try PersistentContainer(versions: SchemaVersions([olderApp]), stores: [description], storeTypes: kind.storeTypes)
        }
        #expect(error?.message.contains("Note.pinned") == true, "\(error.map { "\($0)" } ?? "")")
        let metadata = try kind.storeTypes.factory(for: kind.type).metadata(at: description.url!)
        #expect(metadata.modelVersionHash == Self.v2.versionHash)
    }

    package func eraseStoreStartsAnEmptyStore(_ kind: StoreKind) throws {
        let (description, _) = try makeVersion1Store(kind)
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        let old = try kind.storeTypes.factory(for: kind.type).metadata(at: description.url!).storeIdentifier
        let container = try PersistentContainer(schema: Self.v2, stores: [description], storeTypes: kind.storeTypes, onModelMismatch: .eraseStore)
        #expect(try container.newBackgroundContext().count(for: FetchRequest(entityName: "Note")) == 0)
        #expect(container.coordinator.stores[0].metadata.storeIdentifier != old)
        #expect(container.coordinator.stores[0].metadata.modelVersionHash == Self.v2.versionHash)
    }

    package func theConfigurationFileNamesEarlierVersions(_ kind: StoreKind) throws {
        let (description, _) = try makeVersion1Store(kind)
        let directory = description.url!.deletingLastPathComponent()
        defer { StoreKind.removeStoreDirectory(of: description.url) }
        try Self.v1.jsonString.write(to: directory.appendingPathComponent("v1.json"), atomically: true, encoding: .utf8)
        try Self.v2.jsonString.write(to: directory.appendingPathComponent("v2.json"), atomically: true, encoding: .utf8)
        let configuration = directory.appendingPathComponent("strata.json")
        try """
        { "schema": "v2.json", "versions": ["v1.json"],
          "stores": [ { "type": "\(kind.type.rawValue)", "path": "\(description.url!.lastPathComponent)" } ] }
        """.write(to: configuration, atomically: true, encoding: .utf8)
        let container = try PersistentContainer(configurationFile: configuration, storeTypes: kind.storeTypes, environment: [:])
        #expect(container.schema.versionHash == Self.v2.versionHash)
        #expect(try container.newBackgroundContext().all("Note", by: "headline").count == 3)
        #expect(container.coordinator.stores[0].metadata.modelVersionHash == Self.v2.versionHash)
    }
}
