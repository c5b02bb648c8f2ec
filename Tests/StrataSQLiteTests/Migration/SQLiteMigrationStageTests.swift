import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Custom stages run in the migration's transaction, checks run after didMigrate, and every
/// refusal or failure leaves the file as it was.
@Suite struct SQLiteMigrationStageTests {
    typealias T = MigrationTesting

    static let v1 = try! T.model("1", """
        { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ] }
        """)
    /// Adds a required `first` without default, and a uniqueness constraint on `text`.
    static let v2 = try! T.model("2", """
        { "name": "Mood", "attributes": [ { "name": "text", "type": "string" }, { "name": "first", "type": "string" } ],
          "uniquenessConstraints": [ ["text"] ] }
        """)

    static func fill(_ texts: [String]) -> (ManagedObjectContext) throws -> Void {
        { context in
            for text in texts { try context.insertObject(entityName: "Mood")["text"] = text }
        }
    }

    struct Boom: Error {}

    @Test func aUniquenessConstraintTheDataBreaksIsRefusedNamingTheDuplicates() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let to = try T.model("2", """
            { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ], "uniquenessConstraints": [ ["text"] ] }
            """)
        try T.makeStore(url, Self.v1, Self.fill(["Cafe\u{301}", "b", "Caf\u{E9}", "b", "c"]))
        let before = try T.settledBytes(url)
        let error = #expect(throws: StrataError.self) { try T.migrate(url, from: Self.v1, to: to) }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("the uniqueness constraint on Mood(text) is violated by 4 objects in 2 group(s) with equal values: Mood 1 and Mood 3; Mood 2 and Mood 4.") == true)
        #expect(try T.settledBytes(url) == before)
    }

    @Test func didMigrateFillsWhatTheNewModelRequiresAndWillMigrateRemovesDuplicates() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        try T.makeStore(url, Self.v1, Self.fill(["happy day", "sad day", "sad day"]))
        let stage = MigrationStage.custom(from: Self.v1, to: Self.v2, willMigrate: { context in
            // On the old model: the duplicate goes before the constraint is made.
            let moods = try context.fetch(FetchRequest(entityName: "Mood")).sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            context.delete(moods[2])
        }, didMigrate: { context in
            // On the new model: `first` is required and has no default.
            for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                mood["first"] = String((mood["text"] as? String ?? "").split(separator: " ")[0])
            }
        })
        let report = try T.migrate(url, from: Self.v1, to: Self.v2, stage: stage)
        #expect(report.steps.map(\.isCustom) == [true])
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "text", "first" FROM "Mood" ORDER BY 1"#) == ["1|happy day|happy", "2|sad day|sad"])
        #expect(try RawSQLite(url).rows(#"SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name"#).contains("unique.Mood.text"))
        #expect(try T.problems(url) == [])
    }

    @Test(arguments: ["willMigrate", "didMigrate", "nothing"])
    func aThrowingOrUnfinishedStageLeavesTheFileAsItWas(failing: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        try T.makeStore(url, Self.v1, Self.fill(["happy day", "sad day"]))
        let before = try T.settledBytes(url)
        let stage = MigrationStage.custom(from: Self.v1, to: Self.v2, willMigrate: { context in
            // Saved inside the migration's transaction, then rolled back with it.
            try context.insertObject(entityName: "Mood")["text"] = "extra"
            try context.save()
            if failing == "willMigrate" { throw Boom() }
        }, didMigrate: { context in
            let moods = try context.fetch(FetchRequest(entityName: "Mood"))
            // Leaves mood 2 without its required `first` unless "nothing" fails.
            for mood in moods where mood.objectID.primaryKey != 2 || failing != "nothing" { mood["first"] = "x" }
            try context.save()
            if failing == "didMigrate" { throw Boom() }
            if failing == "nothing" { moods.first { $0.objectID.primaryKey == 2 }?["first"] = nil }
        })
        let error = #expect(throws: StrataError.self) { try T.migrate(url, from: Self.v1, to: Self.v2, stage: stage) }
        if failing == "nothing" {
            #expect(error?.code == .migrationRefused)
            #expect(error?.message.contains("Mood.first is required in Moody 2") == true)
            #expect(error?.message.contains("1 object(s) have no value: Mood 2;") == true)
        } else {
            #expect(error?.code == .migrationFailed)
            #expect(error?.message.contains("the custom stage Moody 1") == true)
        }
        #expect(try T.settledBytes(url) == before)
        #expect(try RawSQLite(url).rows(#"SELECT count(*) FROM "Mood""#) == ["2"])
    }

    @Test func aLayout1StoreIsUpgradedAndMigratedInOneTransaction() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("shop.sqlite")
        let v1 = try Fixtures.schema(json: StoreLayoutUpgradeTests.shopJSON)
        let v2 = try Fixtures.schema(json: StoreLayoutUpgradeTests.shopJSON
            .replacingOccurrences(of: #""version": "1""#, with: #""version": "2""#)
            .replacingOccurrences(of: #"{ "name": "page", "type": "uri", "optional": true }"#, with: #"{ "name": "link", "type": "uri", "optional": true, "renamingIdentifier": "page" }, { "name": "stock", "type": "int32", "default": 0 }"#))
        try StoreLayoutUpgradeTests.writeLayout1Store(at: url, schema: v1)
        let plan = try MigrationPlan(storeSchema: v1, versions: SchemaVersions([v1, v2]))
        _ = try SQLiteStoreFactory().migrateStore(at: url, plan: plan, options: [:], progress: nil)
        let raw = try RawSQLite(url)
        #expect(try raw.rows(#"SELECT "value" FROM "strata_metadata" WHERE "key" = 'layoutVersion'"#) == ["2"])
        #expect(try raw.rows(#"SELECT "_pk", "link", "_link_nfc", "stock" FROM "Product" ORDER BY 1"#) == ["1|https://example.com/a|NULL|0", "2|NULL|NULL|0", "3|NULL|NULL|0"])
        #expect(try raw.rows(#"SELECT "source", "destination" FROM "Product.tags" ORDER BY 1"#) == ["1|1", "2|1", "3|2"])
        #expect(try T.problems(url) == [])
    }

    @Test func aTypeChangeInACustomStepDropsAndAddsTheColumn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let from = try T.model("1", #"{ "name": "Mood", "attributes": [ { "name": "text", "type": "string" }, { "name": "score", "type": "int16", "optional": true } ] }"#)
        let to = try T.model("2", #"{ "name": "Mood", "attributes": [ { "name": "text", "type": "string" }, { "name": "score", "type": "string", "optional": true } ] }"#)
        try T.makeStore(url, from) { context in
            for text in ["a", "b"] {
                let mood = try context.insertObject(entityName: "Mood")
                mood["text"] = text
                mood["score"] = Int16(7)
            }
        }
        let stage = MigrationStage.custom(from: from, to: to, didMigrate: { context in
            try context.fetch(FetchRequest(entityName: "Mood")).first { $0.objectID.primaryKey == 1 }?["score"] = "seven"
        })
        try T.migrate(url, from: from, to: to, stage: stage)
        #expect(try RawSQLite(url).rows(#"SELECT "type" FROM pragma_table_info('Mood') WHERE name = 'score'"#) == ["TEXT"])
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "score" FROM "Mood" ORDER BY 1"#) == ["1|seven", "2|NULL"])
        #expect(try T.problems(url) == [])
    }
}
