import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Relationships whose storage changes, hierarchies that change, renamed entities.
@Suite struct SQLiteMigrationRelationshipTests {
    typealias T = MigrationTesting

    static func keys(_ objects: [ManagedObject]) -> [Int64] { objects.compactMap { $0.objectID.primaryKey }.sorted() }

    static let oneToMany = """
        { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ],
          "relationships": [ { "name": "tag", "destination": "Tag", "inverse": "moods", "optional": true } ] },
        { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "tag", "toMany": true } ] }
        """
    static let manyToMany = """
        { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ],
          "relationships": [ { "name": "tags", "destination": "Tag", "inverse": "moods", "toMany": true, "renamingIdentifier": "tag" } ] },
        { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "tags", "toMany": true } ] }
        """

    /// Moods 1, 2 → tag 1; mood 3 → tag 2; mood 4 → none.
    static func fillOneToMany(_ context: ManagedObjectContext) throws {
        let tags = try ["a", "b"].map { name in
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = name
            return tag
        }
        for (text, tag) in [("one", 0), ("two", 0), ("three", 1), ("four", nil)] as [(String, Int?)] {
            let mood = try context.insertObject(entityName: "Mood")
            mood["text"] = text
            if let tag { mood.setObject(tags[tag], forKey: "tag") }
        }
    }

    @Test func toOneBecomesToManyMovingAForeignKeyIntoAJoinTableAndBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let v1 = try T.model("1", Self.oneToMany), v2 = try T.model("2", Self.manyToMany)
        try T.makeStore(url, v1, Self.fillOneToMany)
        try T.migrate(url, from: v1, to: v2)
        #expect(try RawSQLite(url).rows(#"SELECT "source", "destination" FROM "Mood.tags" ORDER BY 1, 2"#) == ["1|1", "2|1", "3|2"])
        #expect(try RawSQLite(url).rows(#"SELECT count(*) FROM pragma_table_info('Mood') WHERE name = 'tag'"#) == ["0"])
        do {
            let context = try T.context(url, v2)
            let moods = try T.objects(context, "Mood")
            #expect(moods.map { Self.keys($0.objects(forKey: "tags")) } == [[1], [1], [2], []])
            #expect(try T.objects(context, "Tag").map { Self.keys($0.objects(forKey: "moods")) } == [[1, 2], [3]])
        }
        #expect(try T.problems(url) == [])

        // Back: every mood has at most one tag.
        let v3 = try T.model("3", Self.oneToMany.replacingOccurrences(of: #""inverse": "moods", "optional": true"#, with: #""inverse": "moods", "optional": true, "renamingIdentifier": "tags""#))
        try T.migrate(url, from: v2, to: v3)
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "tag" FROM "Mood" ORDER BY 1"#) == ["1|1", "2|1", "3|2", "4|NULL"])
        #expect(try RawSQLite(url).rows(#"SELECT count(*) FROM sqlite_master WHERE name = 'Mood.tags'"#) == ["0"])
        #expect(try T.problems(url) == [])
    }

    @Test func toManyBecomesToOneOnlyWhenEveryObjectHasAtMostOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let v1 = try T.model("1", Self.manyToMany)
        let v2 = try T.model("2", Self.oneToMany.replacingOccurrences(of: #""inverse": "moods", "optional": true"#, with: #""inverse": "moods", "optional": true, "renamingIdentifier": "tags""#))
        try T.makeStore(url, v1) { context in
            let tags = try ["a", "b"].map { name in
                let tag = try context.insertObject(entityName: "Tag")
                tag["name"] = name
                return tag
            }
            for index in 0..<3 {
                let mood = try context.insertObject(entityName: "Mood")
                mood["text"] = "m\(index)"
                if index != 1 { mood.setObjects(tags, forKey: "tags") }
            }
        }
        let before = try T.settledBytes(url)
        let error = #expect(throws: StrataError.self) { try T.migrate(url, from: v1, to: v2) }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("Mood.tag becomes a to-one relationship, but 2 object(s) have more than one: Mood 1, Mood 3.") == true)
        #expect(try T.settledBytes(url) == before)
    }

    /// Mood with an optional to-one `relationship` to Tag, without inverse.
    static func moodToTag(_ relationship: String) -> String {
        """
        { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ],
          "relationships": [ { "name": "\(relationship)", "destination": "Tag", "optional": true } ] },
        { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ] }
        """
    }

    @Test func toManyWithoutInverseMovesBetweenAJoinTableAndAForeignKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let single = Self.moodToTag("best")
        let v1 = try T.model("1", single)
        let v2 = try T.model("2", single.replacingOccurrences(of: #""destination": "Tag", "optional": true"#, with: #""destination": "Tag", "toMany": true"#))
        try T.makeStore(url, v1) { context in
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = "a"
            for index in 0..<2 {
                let mood = try context.insertObject(entityName: "Mood")
                mood["text"] = "m\(index)"
                if index == 1 { mood.setObject(tag, forKey: "best") }
            }
        }
        try T.migrate(url, from: v1, to: v2)
        #expect(try RawSQLite(url).rows(#"SELECT "source", "destination" FROM "Mood.best""#) == ["2|1"])
        #expect(try T.problems(url) == [])
        let v3 = try T.model("3", single)
        try T.migrate(url, from: v2, to: v3)
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "best" FROM "Mood" ORDER BY 1"#) == ["1|NULL", "2|1"])
        #expect(try T.problems(url) == [])
    }

    @Test func unorderedBecomesOrderedByPrimaryKeyInForeignKeysAndJoinTables() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let unordered = """
            { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ],
              "relationships": [ { "name": "tags", "destination": "Tag", "inverse": "moods", "toMany": true },
                                 { "name": "day", "destination": "Day", "inverse": "moods", "optional": true } ] },
            { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
              "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "tags", "toMany": true } ] },
            { "name": "Day", "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "day", "toMany": true } ] }
            """
        let v1 = try T.model("1", unordered)
        let v2 = try T.model("2", unordered.replacingOccurrences(of: #""destination": "Mood", "inverse": "tags", "toMany": true"#, with: #""destination": "Mood", "inverse": "tags", "toMany": true, "ordered": true"#)
            .replacingOccurrences(of: #""destination": "Mood", "inverse": "day", "toMany": true"#, with: #""destination": "Mood", "inverse": "day", "toMany": true, "ordered": true"#))
        try T.makeStore(url, v1) { context in
            let day = try context.insertObject(entityName: "Day")
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = "a"
            for index in 0..<3 {
                let mood = try context.insertObject(entityName: "Mood")
                mood["text"] = "m\(index)"
                mood.setObject(day, forKey: "day")
                mood.addObject(tag, forKey: "tags")
            }
        }
        try T.migrate(url, from: v1, to: v2)
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "_day_order" FROM "Mood" ORDER BY 1"#) == ["1|0", "2|1", "3|2"])
        #expect(try RawSQLite(url).rows(#"SELECT "source", "destination", "destination_order" FROM "Mood.tags" ORDER BY 1"#) == ["1|1|0", "2|1|1", "3|1|2"])
        let context = try T.context(url, v2)
        #expect(try T.objects(context, "Day")[0].objects(forKey: "moods").map { $0.objectID.primaryKey } == [1, 2, 3])
        #expect(try T.objects(context, "Tag")[0].objects(forKey: "moods").map { $0.objectID.primaryKey } == [1, 2, 3])
        #expect(try T.problems(url) == [])
    }

    static let separate = """
        { "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ] },
        { "name": "Note", "attributes": [ { "name": "body", "type": "string" } ] },
        { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "note", "destination": "Note", "optional": true },
                             { "name": "notes", "destination": "Note", "toMany": true } ] }
        """
    static let merged = """
        { "name": "Entry", "abstract": true },
        { "name": "Mood", "parent": "Entry", "attributes": [ { "name": "text", "type": "string" } ] },
        { "name": "Note", "parent": "Entry", "attributes": [ { "name": "body", "type": "string" } ] },
        { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "note", "destination": "Note", "optional": true },
                             { "name": "notes", "destination": "Note", "toMany": true } ] }
        """

    @Test func aParentAddedMergesHierarchiesRenumberingCollidingKeysAndRemovedSplitsThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let v1 = try T.model("1", Self.separate), v2 = try T.model("2", Self.merged)
        try T.makeStore(url, v1) { context in
            for text in ["happy", "sad"] { try context.insertObject(entityName: "Mood")["text"] = text }
            let notes = try ["first", "second"].map { body in
                let note = try context.insertObject(entityName: "Note")
                note["body"] = body
                return note
            }
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = "t"
            tag.setObject(notes[1], forKey: "note")
            tag.setObjects(notes, forKey: "notes")
        }
        try T.migrate(url, from: v1, to: v2)
        let raw = try RawSQLite(url)
        #expect(try raw.rows(#"SELECT "_pk", "_entity", "text", "body" FROM "Entry" ORDER BY 1"#) == [
            "1|Mood|happy|NULL", "2|Mood|sad|NULL", "3|Note|NULL|first", "4|Note|NULL|second",
        ])
        #expect(try raw.rows(#"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('Mood', 'Note')"#) == [])
        #expect(try raw.rows(#"SELECT "entity", "last" FROM "strata_keys" ORDER BY 1"#) == ["Entry|4", "Tag|1"])
        #expect(try raw.rows(#"SELECT "note" FROM "Tag""#) == ["4"])
        #expect(try raw.rows(#"SELECT "destination" FROM "Tag.notes" ORDER BY 1"#) == ["3", "4"])
        do {
            let context = try T.context(url, v2)
            let tag = try T.objects(context, "Tag")[0]
            #expect(tag.object(forKey: "note")?["body"] as? String == "second")
            #expect(try T.objects(context, "Entry").map { $0.objectID.entityName } == ["Mood", "Mood", "Note", "Note"])
        }
        #expect(try T.problems(url) == [])

        // The parent removed: each entity gets its own table back, keys kept.
        try T.migrate(url, from: v2, to: v1)
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "body" FROM "Note" ORDER BY 1"#) == ["3|first", "4|second"])
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "text" FROM "Mood" ORDER BY 1"#) == ["1|happy", "2|sad"])
        #expect(try RawSQLite(url).rows(#"SELECT "entity", "last" FROM "strata_keys" ORDER BY 1"#) == ["Mood|4", "Note|4", "Tag|1"])
        #expect(try T.problems(url) == [])
    }

    @Test func aDestinationThatGainsASubentityGetsEntityColumnsAndLosesThemAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let plain = Self.moodToTag("tag")
        let v1 = try T.model("1", plain)
        let v2 = try T.model("2", plain + #", { "name": "SpecialTag", "parent": "Tag", "attributes": [ { "name": "shine", "type": "int16", "default": 1 } ] }"#)
        try T.makeStore(url, v1) { context in
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = "a"
            try context.insertObject(entityName: "Mood").setObject(tag, forKey: "tag")
            try context.insertObject(entityName: "Mood")
            for mood in try T.objects(context, "Mood") { mood["text"] = "m" }
        }
        try T.migrate(url, from: v1, to: v2)
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "tag", "_tag_entity" FROM "Mood" ORDER BY 1"#) == ["1|1|Tag", "2|NULL|NULL"])
        // The table's new column holds the default in every row, as ADD COLUMN … DEFAULT would
        // give it; only SpecialTag rows read it.
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "_entity", "name", "shine" FROM "Tag""#) == ["1|Tag|a|1"])
        #expect(try T.problems(url) == [])
        try T.migrate(url, from: v2, to: v1)
        #expect(try RawSQLite(url).rows(#"SELECT name FROM pragma_table_info('Mood') ORDER BY cid"#) == ["_pk", "_version", "text", "tag", "_text_nfc"])
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "name" FROM "Tag""#) == ["1|a"])
        #expect(try T.problems(url) == [])
    }

    @Test func referencesToTheObjectsOfARemovedSubentityAreCleared() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let json = Self.moodToTag("tag").replacingOccurrences(of: #""optional": true } ]"#, with: #""optional": true }, { "name": "tags", "destination": "Tag", "toMany": true } ]"#)
        let v1 = try T.model("1", json + #", { "name": "SpecialTag", "parent": "Tag" }"#)
        let v2 = try T.model("2", json)
        try T.makeStore(url, v1) { context in
            let tags = try ["Tag", "SpecialTag"].map { entity in
                let tag = try context.insertObject(entityName: entity)
                tag["name"] = entity
                return tag
            }
            for (tag, members) in [(1, [0, 1]), (0, [1])] {
                let mood = try context.insertObject(entityName: "Mood")
                mood["text"] = "m"
                mood.setObject(tags[tag], forKey: "tag")
                mood.setObjects(members.map { tags[$0] }, forKey: "tags")
            }
        }
        try T.migrate(url, from: v1, to: v2)
        let raw = try RawSQLite(url)
        #expect(try raw.rows(#"SELECT * FROM "Tag""#) == ["1|1|Tag|NULL"])
        #expect(try raw.rows(#"SELECT "_pk", "tag" FROM "Mood" ORDER BY 1"#) == ["1|NULL", "2|1"])
        #expect(try raw.rows(#"SELECT "source", "destination" FROM "Mood.tags""#) == ["1|1"])
        #expect(try T.problems(url) == [])
    }

    @Test(arguments: ["Feeling", "Zest"])
    func aRenamedEntityKeepsItsRowsKeysAndJoinTables(newName: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("moody.sqlite")
        let v1 = try T.model("1", Self.manyToMany)
        let v2 = try T.model("2", Self.manyToMany
            .replacingOccurrences(of: #"{ "name": "Mood","#, with: #"{ "name": "\#(newName)", "renamingIdentifier": "Mood","#)
            .replacingOccurrences(of: #""destination": "Mood""#, with: #""destination": "\#(newName)""#))
        try T.makeStore(url, v1, SQLiteMigrationRelationshipTests.fillManyToMany)
        try T.migrate(url, from: v1, to: v2)
        let raw = try RawSQLite(url)
        // "Feeling" sorts before "Tag" and owns the join table as Mood did: renamed in place.
        // "Zest" sorts after: the table is Tag's now, and its pairs are turned around.
        let join = newName == "Feeling" ? #"SELECT "source", "destination" FROM "Feeling.tags" ORDER BY 1, 2"# : #"SELECT "destination", "source" FROM "Tag.moods" ORDER BY 1, 2"#
        #expect(try raw.rows(join) == ["1|1", "1|2", "2|2"])
        #expect(try raw.rows(#"SELECT "entity", "last" FROM "strata_keys" ORDER BY 1"#) == ["\(newName)|2", "Tag|2"].sorted())
        #expect(try raw.rows(#"SELECT name FROM sqlite_master WHERE name LIKE 'Mood%'"#) == [])
        let context = try T.context(url, v2)
        #expect(try T.objects(context, newName).map { Self.keys($0.objects(forKey: "tags")) } == [[1, 2], [2]])
        #expect(try T.problems(url) == [])
    }

    /// Mood 1 → tags 1, 2; mood 2 → tag 2.
    static func fillManyToMany(_ context: ManagedObjectContext) throws {
        let tags = try ["a", "b"].map { name in
            let tag = try context.insertObject(entityName: "Tag")
            tag["name"] = name
            return tag
        }
        for (text, members) in [("one", [0, 1]), ("two", [1])] {
            let mood = try context.insertObject(entityName: "Mood")
            mood["text"] = text
            mood.setObjects(members.map { tags[$0] }, forKey: "tags")
        }
    }
}
