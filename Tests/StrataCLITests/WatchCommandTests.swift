import Foundation
import Testing

/// `strata watch`, spawned, while other `strata` processes change the store.
@Suite struct WatchCommandTests {
    static let model = """
    { "name": "Notes", "version": "1", "entities": [
      { "name": "Note", "attributes": [
          { "name": "text", "type": "string" },
          { "name": "done", "type": "bool", "default": false } ] },
      { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ] } ] }
    """

    static let data = """
    { "objects": { "Note": [ { "@id": 1, "text": "a" }, { "@id": 2, "text": "b" } ], "Tag": [ { "@id": 1, "name": "t" } ] } }
    """

    static let more = """
    { "objects": { "Note": [ { "@id": 3, "text": "c" }, { "@id": 4, "text": "d", "done": true } ] } }
    """

    @Test(arguments: [("sqlite", SIGINT), ("xml", SIGTERM), ("bplist", SIGTERM)])
    func printsALinePerSaveThatChangesTheResults(_ ext: String, _ signal: Int32) throws {
        let workspace = try Workspace(["notes.json": Self.model, "data.json": Self.data, "more.json": Self.more])
        let store = "notes.\(ext)"
        try workspace.load(store, schema: "notes.json", data: [("data.json", Self.data)])
        let watch = try SpawnedStrata(["watch", store, "Note", "--where", "done == NO"], in: workspace.url)
        watch.wait { $0.standardError.contains("watching") }
        #expect(watch.standardError == "strata: watching Note in '\(store)' (2 objects match); stop with Ctrl-C\n")

        func expectLine(_ index: Int, _ expected: String, after arguments: String...) throws {
            let run = try workspace.run(arguments)
            try #require(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(watch.line(index) == expected, "\(arguments)")
        }
        // A note leaves the results; another changes in them.
        try expectLine(0, #"{"inserted": [], "updated": [], "deleted": [1]}"#, after: "update", store, "Note", "--where", "text == 'a'", "--set", "done=true")
        try expectLine(1, #"{"inserted": [], "updated": [2], "deleted": []}"#, after: "update", store, "Note", "--where", "text == 'b'", "--set", "text=bb")
        // A load of one note that matches and one that does not.
        try expectLine(2, #"{"inserted": [3], "updated": [], "deleted": []}"#, after: "load", "--schema", "notes.json", store, "more.json")
        // Saves that change no result print nothing: the next line is the delete's.
        var run = try workspace.run("update", store, "Note", "--where", "text == 'a'", "--set", "text=aa")
        try #require(run.status == 0, "\(run.stderr)")
        run = try workspace.run("update", store, "Tag", "--where", "TRUEPREDICATE", "--set", "name=u")
        try #require(run.status == 0, "\(run.stderr)")
        try expectLine(3, #"{"inserted": [], "updated": [], "deleted": [2]}"#, after: "delete", store, "Note", "--where", "text == 'bb'")

        #expect(watch.stop(with: signal) == 0)
        #expect(watch.lines.count == 4)
    }

    @Test func refusesAnUnknownEntity() throws {
        let workspace = try Workspace(["notes.json": Self.model, "data.json": Self.data])
        try workspace.load("notes.sqlite", schema: "notes.json", data: [("data.json", Self.data)])
        let run = try workspace.run(["watch", "notes.sqlite", "Note2"], timeout: 30)
        #expect(run.status == 1)
        #expect(run.stderr == "strata: error: the model 'Notes' has no entity 'Note2'; did you mean 'Note'?\n")
        #expect(run.stdout == "")
    }
}
