import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// SQLite migrates in place with SQL: the paths of ``SQLiteMigration`` one by one.
@Suite struct SQLiteMigrationTests {
    typealias T = MigrationTesting

    static let v1 = """
        { "name": "Mood",
          "attributes": [
            { "name": "text", "type": "string", "indexed": true },
            { "name": "score", "type": "int16", "optional": true },
            { "name": "weight", "type": "float", "optional": true },
            { "name": "old", "type": "string", "optional": true, "indexed": true },
            { "name": "note", "type": "string", "optional": true } ] }
        """

    static let v2 = """
        { "name": "Mood",
          "attributes": [
            { "name": "title", "type": "string", "indexed": true, "renamingIdentifier": "text" },
            { "name": "score", "type": "int32", "optional": true },
            { "name": "weight", "type": "double", "optional": true },
            { "name": "level", "type": "int16", "default": 3 },
            { "name": "label", "type": "string", "default": "Cafe\\u0301" },
            { "name": "price", "type": "decimal", "default": "1.50" },
            { "name": "note", "type": "string", "default": "none" } ] }
        """

    static func fillMoods(_ context: ManagedObjectContext) throws {
        for (text, score, note) in [("Cafe\u{301}", 7, "x"), ("calm", 2, nil), ("glad", 5, nil)] as [(String, Int, String?)] {
            let mood = try context.insertObject(entityName: "Mood")
            mood["text"] = text
            mood["score"] = Int16(score)
            mood["weight"] = Float(1.1)
            mood["old"] = "gone"
            mood["note"] = note
        }
    }

    @Test func addRenameWidenRemoveAndFillDefaultsInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let from = try T.model("1", Self.v1), to = try T.model("2", Self.v2)
        try T.makeStore(url, from, Self.fillMoods)
        let identifier = try SQLiteStoreFactory().metadata(at: url).storeIdentifier
        let events = T.Events()
        let report = try T.migrate(url, from: from, to: to, events: events)
        #expect(report.steps.count == 1 && !report.wasAlreadyCurrent)
        #expect(events.all.first?.activity.hasPrefix("migrating Moody 1") == true)
        #expect(events.all.contains { $0.activity == "Mood: altering the table in place" })

        let raw = try RawSQLite(url)
        // Added columns carry their defaults in the schema; no row was rewritten for them.
        #expect(try raw.rows(#"SELECT name, "dflt_value" FROM pragma_table_info('Mood') ORDER BY cid"#) == [
            "_pk|NULL", "_version|NULL", "title|NULL", "score|NULL", "weight|NULL", "note|NULL", "_title_nfc|NULL", "_note_nfc|NULL",
            "level|3", "label|'Cafe\u{301}'", "price|'1.5'", "_label_nfc|'Caf\u{E9}'", "_price_key|'250015'",
        ])
        #expect(try raw.rows(#"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Mood' ORDER BY name"#) == ["index.Mood.title"])
        #expect(try raw.rows(#"SELECT "_pk", "title", "_title_nfc", "note", "level" FROM "Mood" ORDER BY "_pk""#) == [
            "1|Cafe\u{301}|Caf\u{E9}|x|3", "2|calm|NULL|none|3", "3|glad|NULL|none|3",
        ])

        let context = try T.context(url, to)
        let moods = try T.objects(context, "Mood")
        #expect(moods.map { $0["title"] as? String } == ["Cafe\u{301}", "calm", "glad"])
        #expect(moods.map { $0["weight"] as? Double } == Array(repeating: Double(Float(1.1)), count: 3))
        #expect(moods.map { $0["score"] as? Int64 } == [7, 2, 5])
        #expect(moods.map { $0["price"] as? Decimal } == Array(repeating: Decimal(string: "1.5"), count: 3))
        // Comparisons use the shadow columns: the default's NFC form is found by its NFC spelling.
        let request = FetchRequest(entityName: "Mood", predicate: .comparison(Comparison(.key("label"), .equal, .constant("Caf\u{E9}"))))
        #expect(try context.fetch(request).count == 3)
        let metadata = try SQLiteStoreFactory().metadata(at: url)
        #expect(metadata.modelVersionHash == to.versionHash)
        #expect(metadata.entityVersionHashes == to.entityVersionHashes)
        #expect(metadata.storeIdentifier == identifier)
        #expect(try metadata.schema().versionHash == to.versionHash)
        #expect(try T.problems(url) == [])
    }

    @Test func optionalToRequiredWithoutDefaultIsRefusedNamingTheObjectsAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let from = try T.model("1", Self.v1)
        let to = try T.model("2", Self.v1.replacingOccurrences(of: #"{ "name": "note", "type": "string", "optional": true }"#, with: #"{ "name": "note", "type": "string" }"#))
        try T.makeStore(url, from, Self.fillMoods)
        let before = try T.settledBytes(url)
        let error = #expect(throws: StrataError.self) { try T.migrate(url, from: from, to: to) }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("Mood.note is required in Moody 2") == true)
        #expect(error?.message.contains("but 2 object(s) have no value: Mood 2, Mood 3;") == true)
        let after = try T.settledBytes(url)
        #expect(after.0 == before.0 && after.1 == 0)
        #expect(try SQLiteStoreFactory().metadata(at: url).modelVersionHash == from.versionHash)
    }

    @Test func anAlreadyMigratedStoreIsLeftAloneAndAStoreAtNeitherEndIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let from = try T.model("1", Self.v1), to = try T.model("2", Self.v2)
        try T.makeStore(url, from, Self.fillMoods)
        try T.migrate(url, from: from, to: to)
        #expect(try T.migrate(url, from: from, to: to).wasAlreadyCurrent)
        let other = try T.model("3", Self.v1.replacingOccurrences(of: "\"note\"", with: "\"remark\""))
        let error = #expect(throws: StrataError.self) { try T.migrate(url, from: other, to: from) }
        #expect(error?.code == .incompatibleModel)
    }

    @Test func aStoreOpenedBeforeTheMigrationRefusesToSaveAfterIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let from = try T.model("1", Self.v1), to = try T.model("2", Self.v2)
        try T.makeStore(url, from, Self.fillMoods)
        let early = try T.context(url, from)
        let mood = try T.objects(early, "Mood")[0]
        try T.migrate(url, from: from, to: to)
        mood["note"] = "changed"
        let error = #expect(throws: StrataError.self) { try early.save() }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.message.contains("by another process since it was opened with model 'Moody'") == true)
        #expect(error?.message.contains("Open it again with the new model") == true)
        #expect(try RawSQLite(url).rows(#"SELECT "note" FROM "Mood" WHERE "_pk" = 1"#) == ["x"])
        // Its fetches name columns that are gone ("text"): the error says why.
        let fetch = #expect(throws: StrataError.self) { try early.fetch(FetchRequest(entityName: "Mood", predicate: .comparison(Comparison(.key("text"), .equal, .constant("calm"))))) }
        #expect(fetch?.code == .incompatibleModel)
        #expect(fetch?.message.contains("nothing was read. Open it again with the new model") == true)
    }

    @Test func aModelThatOnlyAddsAnIndexOpensAndGetsIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let from = try T.model("1", Self.v1)
        let indexed = try T.model("1", Self.v1.replacingOccurrences(of: #""name": "score", "type": "int16", "optional": true"#, with: #""name": "score", "type": "int16", "optional": true, "indexed": true"#)
            .replacingOccurrences(of: #""name": "old", "type": "string", "optional": true, "indexed": true"#, with: #""name": "old", "type": "string", "optional": true"#))
        #expect(indexed.versionHash == from.versionHash)
        try T.makeStore(url, from, Self.fillMoods)
        _ = try SQLiteStore(url: url, schema: indexed)
        #expect(try RawSQLite(url).rows(#"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Mood' ORDER BY name"#) == ["index.Mood.score", "index.Mood.text"])
    }

    @Test func aFileOfOneConfigurationHasOnlyItsTablesMigrated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moods.sqlite")
        func model(_ version: String, _ extra: String) throws -> Schema {
            try Fixtures.schema(json: """
                { "name": "Moody", "version": "\(version)", "entities": [
                  { "name": "Mood", "attributes": [ { "name": "text", "type": "string" }\(extra) ] },
                  { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ] } ],
                  "configurations": [ { "name": "Moods", "entities": ["Mood"] }, { "name": "Tags", "entities": ["Tag"] } ] }
                """)
        }
        let v1 = try model("1", ""), v2 = try model("2", #", { "name": "level", "type": "int16", "default": 2 }"#)
        _ = try SQLiteStore(url: url, schema: v1, configurationName: "Moods")
        try T.migrate(url, from: v1, to: v2)
        let raw = try RawSQLite(url)
        #expect(try raw.rows(#"SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1"#) == ["Mood", "strata_keys", "strata_metadata"])
        #expect(try raw.rows(#"SELECT name FROM pragma_table_info('Mood') ORDER BY cid"#) == ["_pk", "_version", "text", "_text_nfc", "level"])
        _ = try SQLiteStore(url: url, schema: v2, configurationName: "Moods")
    }

    @Test func aChainOfStepsRunsInOneTransaction() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let v1 = try T.model("1", Self.v1), v2 = try T.model("2", Self.v2)
        let v3 = try T.model("3", Self.v2.replacingOccurrences(of: #""name": "title""#, with: #""name": "heading""#)
            .replacingOccurrences(of: #"{ "name": "level", "type": "int16", "default": 3 },"#, with: #"{ "name": "level", "type": "int64", "default": 3 }, { "name": "stars", "type": "int16", "default": 0 },"#))
        try T.makeStore(url, v1, Self.fillMoods)
        let events = T.Events()
        let plan = try MigrationPlan(storeSchema: v1, versions: SchemaVersions([v1, v2, v3]))
        let report = try SQLiteStoreFactory().migrateStore(at: url, plan: plan, options: [:], progress: { @Sendable event in events.append(event) })
        #expect(report.steps.count == 2)
        #expect(Set(events.all.map { "\($0.step)/\($0.stepCount)" }) == ["1/2", "2/2"])
        #expect(try RawSQLite(url).rows(#"SELECT "heading", "level", "stars" FROM "Mood" ORDER BY "_pk""#) == ["Cafe\u{301}|3|0", "calm|3|0", "glad|3|0"])
        #expect(try SQLiteStoreFactory().metadata(at: url).modelVersionHash == v3.versionHash)
        #expect(try T.problems(url) == [])
    }

    /// Siblings whose properties of one name are stored two ways cannot share a table: the
    /// migration is refused up front, rather than leaving a file no SQLite store opens.
    @Test func aModelTheLayoutCannotHoldIsRefusedAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("pets.sqlite")
        let siblings = """
            { "name": "Animal", "attributes": [ { "name": "name", "type": "string", "optional": true } ] },
            { "name": "Dog", "parent": "Animal", "attributes": [ { "name": "size", "type": "int16", "optional": true } ] },
            { "name": "Cat", "parent": "Animal", "attributes": [ { "name": "weight", "type": "string", "optional": true } ] }
            """
        let from = try T.model("1", siblings)
        let to = try T.model("2", siblings.replacingOccurrences(of: #"{ "name": "weight","#, with: #"{ "name": "size", "renamingIdentifier": "weight","#))
        try T.makeStore(url, from) { context in try context.insertObject(entityName: "Cat")["weight"] = "heavy" }
        let before = try T.settledBytes(url)
        let error = #expect(throws: StrataError.self) { try T.migrate(url, from: from, to: to) }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("a SQLite store cannot hold model Moody 2") == true)
        #expect(error?.message.contains("'size', stored differently") == true)
        let after = try T.settledBytes(url)
        #expect(after.0 == before.0 && after.1 == 0)
        #expect(try T.problems(url) == [])
    }
}
