import Foundation
import Strata
import StrataSQLite
import StrataTestKit
import Testing

/// Inputs where the streamed load and `add`+`save()` might part ways.
@Suite struct StreamedLoadConflictTests {
    private func outcome(_ body: () throws -> Void) -> String {
        do { try body(); return "ok" } catch let error as StrataError { return "\(error.code) \(error.message) \(error.diagnostics.map(\.description)) \(error.failures.map(\.message))" } catch { return "\(error)" }
    }

    private func compare(_ schema: Schema, _ data: String) throws -> (streamed: String, saved: String, wasStreamed: Bool) {
        let file = try StreamedLoadTests.DataFile(data)
        let fixture = try StoreFixture(.sqlite, schema)
        let importer = DataImporter(context: fixture.context())
        let first = outcome { try importer.load(contentsOf: [(file.url, "data.json")]) }
        let reference = try StoreFixture(.sqlite, schema)
        let other = DataImporter(context: reference.context())
        let second = outcome { try other.add(contentsOf: file.url, file: "data.json"); try other.save() }
        return (first + "\n" + (try DataExporter.dump(fixture.coordinator)), second + "\n" + (try DataExporter.dump(reference.coordinator)), importer.wasStreamed)
    }

    @Test(arguments: [
        // Two people give themselves the same passport (one-to-one).
        #"{"objects": {"Person": [{"@id": 1, "name": "a", "passport": 1}, {"@id": 2, "name": "b", "passport": 1}], "Passport": [{"@id": 1, "number": "P"}]}}"#,
        // A track in the ordered songs of two albums (its inverse is a to-one).
        #"{"objects": {"Album": [{"@id": 1, "title": "x", "songs": [1, 2]}, {"@id": 2, "title": "y", "songs": [2, 3]}], "Track": [{"@id": 1, "title": "t1"}, {"@id": 2, "title": "t2"}, {"@id": 3, "title": "t3"}]}}"#,
        // A person in the staff of two departments.
        #"{"objects": {"Department": [{"@id": 1, "name": "x", "staff": [1]}, {"@id": 2, "name": "y", "staff": [1]}], "Person": [{"@id": 1, "name": "a"}]}}"#,
        // A passport held by two people (from the passport's side).
        #"{"objects": {"Passport": [{"@id": 1, "number": "P", "holder": 1}, {"@id": 2, "number": "Q", "holder": 1}], "Person": [{"@id": 1, "name": "a"}]}}"#,
        // A person that is their own friend, mentor, listed twice across.
        #"{"objects": {"Person": [{"@id": 1, "name": "a", "friends": [1, 2], "mentor": 1}, {"@id": 2, "name": "b", "friends": [1]}]}}"#,
        // Songs given from both sides, agreeing, in another order.
        #"{"objects": {"Album": [{"@id": 1, "title": "x", "songs": [2, 1]}], "Track": [{"@id": 1, "title": "t1", "album": 1}, {"@id": 2, "title": "t2", "album": 1}]}}"#,
        // Tracks given before their album; playlists from the track side only.
        #"{"objects": {"Track": [{"@id": 1, "title": "t1", "playlists": [1]}, {"@id": 2, "title": "t2", "playlists": [1]}], "Playlist": [{"@id": 1, "name": "l"}]}}"#,
        // Tracks give themselves playlists, the playlist gives its ordered tracks too.
        #"{"objects": {"Track": [{"@id": 1, "title": "t1", "playlists": [1]}, {"@id": 2, "title": "t2", "playlists": [1]}], "Playlist": [{"@id": 1, "name": "l", "tracks": [2, 1]}]}}"#,
        // A null to-one and an empty list.
        #"{"objects": {"Person": [{"@id": 1, "name": "a", "passport": null, "clubs": [], "department": null}]}}"#,
    ])
    func graphInputsStoreAlike(_ data: String) throws {
        let (streamed, saved, wasStreamed) = try compare(Models.graph, data)
        #expect(streamed == saved, "streamed: \(wasStreamed)")
    }
}
