import Foundation
@testable import Strata
import Testing

/// Relationships across a step: cardinality, order, inverses, both sides consistent.
@Suite("RecordMigration relationships")
struct RecordMigrationRelationshipTests {
    typealias M = Migrating

    /// People in clubs (to-many both ways), a playlist of tracks (unordered), a mentor (no inverse).
    static func model(_ version: String, person: String, club: String, playlist: String = "", track: String = "") -> Schema {
        M.model(version, """
            { "name": "Person", "attributes": [ { "name": "name", "type": "string" } ], "relationships": [ \(person) ] },
            { "name": "Club", "attributes": [ { "name": "name", "type": "string" } ], "relationships": [ \(club) ] },
            { "name": "Playlist", "attributes": [ { "name": "name", "type": "string" } ], "relationships": [ \(playlist) ] },
            { "name": "Track", "attributes": [ { "name": "name", "type": "string" } ], "relationships": [ \(track) ] }
            """)
    }

    static let manyToMany = model(
        "1",
        person: #"{ "name": "clubs", "destination": "Club", "inverse": "members", "toMany": true }"#,
        club: #"{ "name": "members", "destination": "Person", "inverse": "clubs", "toMany": true }"#)

    static func people(clubs: [Int64: [Int64]]) -> [StoreRecord] {
        var records: [StoreRecord] = []
        var members: [Int64: [ObjectID]] = [:]
        for person in clubs.keys.sorted() {
            let ids = clubs[person]!.map { M.id("Club", $0) }
            records.append(M.record("Person", person, ["name": .string("p\(person)")], toMany: ids.isEmpty ? [:] : ["clubs": ids]))
            for club in clubs[person]! { members[club, default: []].append(M.id("Person", person)) }
        }
        for club in Int64(1)...3 {
            records.append(M.record("Club", club, ["name": .string("c\(club)")], toMany: members[club].map { ["members": $0] } ?? [:]))
        }
        return records
    }

    @Test func toManyToToOneKeepsTheOnlyMemberOnBothSides() throws {
        let v2 = Self.model(
            "2",
            person: #"{ "name": "clubs", "destination": "Club", "inverse": "members", "optional": true }"#,
            club: #"{ "name": "members", "destination": "Person", "inverse": "clubs", "toMany": true }"#)
        let store = M.contents(Self.manyToMany, Self.people(clubs: [1: [2], 2: [], 3: [2]]))
        let migrated = try M.migrate(store, from: Self.manyToMany, to: v2)
        #expect(migrated.record(M.id("Person", 1))?.toOne == ["clubs": M.id("Club", 2)])
        #expect(migrated.record(M.id("Person", 1))?.toMany == [:])
        #expect(migrated.record(M.id("Person", 2))?.toOne == [:])
        #expect(migrated.record(M.id("Club", 2))?.toMany == ["members": [M.id("Person", 1), M.id("Person", 3)]])
    }

    @Test func toManyToToOneWithMoreThanOneMemberIsRefusedNamingTheObjects() {
        let v2 = Self.model(
            "2",
            person: #"{ "name": "clubs", "destination": "Club", "inverse": "members", "optional": true }"#,
            club: #"{ "name": "members", "destination": "Person", "inverse": "clubs", "toMany": true }"#)
        let store = M.contents(Self.manyToMany, Self.people(clubs: [1: [1, 2], 2: [3], 3: [1, 2, 3]]))
        let message = M.refusal { _ = try M.migrate(store, from: Self.manyToMany, to: v2) }
        #expect(message.contains("Person.clubs becomes to-one, but 2 objects have more than one member: Person 1, Person 3"), "\(message)")
    }

    @Test func toOneToToManyKeepsTheMember() throws {
        let v1 = Self.model(
            "1",
            person: #"{ "name": "club", "destination": "Club", "inverse": "members", "optional": true }"#,
            club: #"{ "name": "members", "destination": "Person", "inverse": "club", "toMany": true }"#)
        let v2 = Self.model(
            "2",
            person: #"{ "name": "club", "destination": "Club", "inverse": "members", "toMany": true }"#,
            club: #"{ "name": "members", "destination": "Person", "inverse": "club", "toMany": true }"#)
        let store = M.contents(v1, [
            M.record("Person", 1, ["name": .string("a")], toOne: ["club": M.id("Club", 1)]),
            M.record("Person", 2, ["name": .string("b")]),
            M.record("Club", 1, ["name": .string("c")], toMany: ["members": [M.id("Person", 1)]]),
        ])
        let migrated = try M.migrate(store, from: v1, to: v2)
        #expect(migrated.orderedRecords == [
            M.record("Club", 1, ["name": .string("c")], toMany: ["members": [M.id("Person", 1)]]),
            M.record("Person", 1, ["name": .string("a")], toMany: ["club": [M.id("Club", 1)]]),
            M.record("Person", 2, ["name": .string("b")]),
        ])
    }

    @Test func unorderedToOrderedOrdersByPrimaryKeyAndOrderedToUnorderedKeepsMembers() throws {
        let v1 = Self.model(
            "1", person: "", club: "",
            playlist: #"{ "name": "tracks", "destination": "Track", "inverse": "playlists", "toMany": true }"#,
            track: #"{ "name": "playlists", "destination": "Playlist", "inverse": "tracks", "toMany": true, "ordered": true }"#)
        let v2 = Self.model(
            "2", person: "", club: "",
            playlist: #"{ "name": "tracks", "destination": "Track", "inverse": "playlists", "toMany": true, "ordered": true }"#,
            track: #"{ "name": "playlists", "destination": "Playlist", "inverse": "tracks", "toMany": true }"#)
        let store = M.contents(v1, [
            M.record("Playlist", 1, ["name": .string("p")], toMany: ["tracks": [M.id("Track", 3), M.id("Track", 1), M.id("Track", 2)]]),
            M.record("Playlist", 2, ["name": .string("q")], toMany: ["tracks": [M.id("Track", 1)]]),
            M.record("Track", 1, ["name": .string("a")], toMany: ["playlists": [M.id("Playlist", 2), M.id("Playlist", 1)]]),
            M.record("Track", 2, ["name": .string("b")], toMany: ["playlists": [M.id("Playlist", 1)]]),
            M.record("Track", 3, ["name": .string("c")], toMany: ["playlists": [M.id("Playlist", 1)]]),
        ])
        let migrated = try M.migrate(store, from: v1, to: v2)
        #expect(migrated.record(M.id("Playlist", 1))?.toMany == ["tracks": [M.id("Track", 1), M.id("Track", 2), M.id("Track", 3)]])
        #expect(migrated.record(M.id("Track", 1))?.toMany == ["playlists": [M.id("Playlist", 2), M.id("Playlist", 1)]])
    }

    @Test func anAddedInverseIsFilledFromTheSideThatExists() throws {
        // Track.album had no inverse; v2 adds Playlist.songs (ordered) as its inverse.
        let v1 = Self.model(
            "1", person: "", club: "", playlist: "",
            track: #"{ "name": "album", "destination": "Playlist", "optional": true }"#)
        let v2 = Self.model(
            "2", person: "", club: "",
            playlist: #"{ "name": "songs", "destination": "Track", "inverse": "album", "toMany": true, "ordered": true }"#,
            track: #"{ "name": "album", "destination": "Playlist", "inverse": "songs", "optional": true }"#)
        let store = M.contents(v1, [
            M.record("Playlist", 1, ["name": .string("p")]),
            M.record("Playlist", 2, ["name": .string("q")]),
            M.record("Track", 5, ["name": .string("e")], toOne: ["album": M.id("Playlist", 1)]),
            M.record("Track", 2, ["name": .string("b")], toOne: ["album": M.id("Playlist", 1)]),
            M.record("Track", 3, ["name": .string("c")]),
        ])
        let migrated = try M.migrate(store, from: v1, to: v2)
        #expect(migrated.record(M.id("Playlist", 1))?.toMany == ["songs": [M.id("Track", 2), M.id("Track", 5)]])
        #expect(migrated.record(M.id("Playlist", 2))?.toMany == [:])
        #expect(migrated.record(M.id("Track", 5))?.toOne == ["album": M.id("Playlist", 1)])
    }

    @Test func anAddedToOneInverseOfAToManyIsRefusedWhenAnObjectWouldHaveTwo() {
        // Playlist.tracks had no inverse; v2 adds Track.playlist (to-one) as its inverse, but
        // Track 1 is in two playlists.
        let v1 = Self.model(
            "1", person: "", club: "",
            playlist: #"{ "name": "tracks", "destination": "Track", "toMany": true }"#, track: "")
        let v2 = Self.model(
            "2", person: "", club: "",
            playlist: #"{ "name": "tracks", "destination": "Track", "inverse": "playlist", "toMany": true }"#,
            track: #"{ "name": "playlist", "destination": "Playlist", "inverse": "tracks", "optional": true }"#)
        let store = M.contents(v1, [
            M.record("Playlist", 1, ["name": .string("p")], toMany: ["tracks": [M.id("Track", 1), M.id("Track", 2)]]),
            M.record("Playlist", 2, ["name": .string("q")], toMany: ["tracks": [M.id("Track", 1)]]),
            M.record("Track", 1, ["name": .string("a")]),
            M.record("Track", 2, ["name": .string("b")]),
        ])
        let message = M.refusal { _ = try M.migrate(store, from: v1, to: v2) }
        #expect(message.contains("Track.playlist is to-one, but its inverse names more than one object for 1 object: Track 1"), "\(message)")
    }

    @Test func aRemovedInverseLeavesTheOtherSideAsItWas() throws {
        let v2 = Self.model(
            "2",
            person: #"{ "name": "clubs", "destination": "Club", "toMany": true }"#, club: "")
        let store = M.contents(Self.manyToMany, Self.people(clubs: [1: [1, 2], 2: [], 3: [3]]))
        let migrated = try M.migrate(store, from: Self.manyToMany, to: v2)
        #expect(migrated.record(M.id("Person", 1))?.toMany == ["clubs": [M.id("Club", 1), M.id("Club", 2)]])
        #expect(migrated.record(M.id("Club", 1))?.toMany == [:])
    }

    @Test func renamedRelationshipsKeepBothSides() throws {
        let v2 = Self.model(
            "2",
            person: #"{ "name": "teams", "renamingIdentifier": "clubs", "destination": "Club", "inverse": "players", "toMany": true }"#,
            club: #"{ "name": "players", "renamingIdentifier": "members", "destination": "Person", "inverse": "teams", "toMany": true }"#)
        let store = M.contents(Self.manyToMany, Self.people(clubs: [1: [1, 2], 2: [], 3: [2]]))
        let migrated = try M.migrate(store, from: Self.manyToMany, to: v2)
        #expect(migrated.record(M.id("Person", 1))?.toMany == ["teams": [M.id("Club", 1), M.id("Club", 2)]])
        #expect(migrated.record(M.id("Club", 2))?.toMany == ["players": [M.id("Person", 1), M.id("Person", 3)]])
        #expect(migrated.record(M.id("Club", 3))?.toMany == [:])
    }

    @Test func twoRelationshipsBecomingInversesHoldTheUnionOfTheirLinks() throws {
        let v1 = Self.model(
            "1",
            person: #"{ "name": "clubs", "destination": "Club", "toMany": true }"#,
            club: #"{ "name": "members", "destination": "Person", "toMany": true }"#)
        let store = M.contents(v1, [
            M.record("Person", 1, ["name": .string("a")], toMany: ["clubs": [M.id("Club", 1)]]),
            M.record("Person", 2, ["name": .string("b")]),
            M.record("Club", 1, ["name": .string("c")], toMany: ["members": [M.id("Person", 2)]]),
            M.record("Club", 2, ["name": .string("d")], toMany: ["members": [M.id("Person", 1)]]),
        ])
        let migrated = try M.migrate(store, from: v1, to: Self.manyToMany)
        #expect(migrated.orderedRecords == [
            M.record("Club", 1, ["name": .string("c")], toMany: ["members": [M.id("Person", 2), M.id("Person", 1)]]),
            M.record("Club", 2, ["name": .string("d")], toMany: ["members": [M.id("Person", 1)]]),
            M.record("Person", 1, ["name": .string("a")], toMany: ["clubs": [M.id("Club", 1), M.id("Club", 2)]]),
            M.record("Person", 2, ["name": .string("b")], toMany: ["clubs": [M.id("Club", 1)]]),
        ])
    }

    @Test func aRelationshipBecomingItsOwnInverseIsMadeSymmetric() throws {
        let v1 = Self.model("1", person: #"{ "name": "friends", "destination": "Person", "toMany": true }"#, club: "")
        let v2 = Self.model("2", person: #"{ "name": "friends", "destination": "Person", "inverse": "friends", "toMany": true }"#, club: "")
        let store = M.contents(v1, [
            M.record("Person", 1, ["name": .string("a")], toMany: ["friends": [M.id("Person", 2)]]),
            M.record("Person", 2, ["name": .string("b")], toMany: ["friends": [M.id("Person", 3)]]),
            M.record("Person", 3, ["name": .string("c")]),
        ])
        let migrated = try M.migrate(store, from: v1, to: v2)
        #expect(migrated.record(M.id("Person", 1))?.toMany == ["friends": [M.id("Person", 2)]])
        #expect(migrated.record(M.id("Person", 2))?.toMany == ["friends": [M.id("Person", 3), M.id("Person", 1)]])
        #expect(migrated.record(M.id("Person", 3))?.toMany == ["friends": [M.id("Person", 2)]])
    }

    @Test func aNewRequiredToOneIsRefusedNamingTheObjectsWithoutOne() {
        let v1 = Self.model("1", person: "", club: "")
        let v2 = Self.model("2", person: #"{ "name": "club", "destination": "Club" }"#, club: "")
        let store = M.contents(v1, [M.record("Person", 1, ["name": .string("a")]), M.record("Person", 4, ["name": .string("b")])])
        let message = M.refusal { _ = try M.migrate(store, from: v1, to: v2) }
        #expect(message.contains("Person.club is required, but 2 objects have no Club: Person 1, Person 4"), "\(message)")
    }

    @Test func aChangedDestinationInACustomStepStartsEmpty() throws {
        let v1 = Self.model("1", person: #"{ "name": "place", "destination": "Club", "optional": true }"#, club: "")
        let v2 = Self.model("2", person: #"{ "name": "place", "destination": "Playlist", "optional": true }"#, club: "")
        let store = M.contents(v1, [M.record("Person", 1, ["name": .string("a")], toOne: ["place": M.id("Club", 1)]), M.record("Club", 1, ["name": .string("c")])])
        let migrated = try M.migrate(store, from: v1, to: v2, custom: true)
        #expect(migrated.record(M.id("Person", 1))?.toOne == [:])
        let message = M.refusal { _ = try M.migrate(store, from: v1, to: v2) }
        #expect(message.contains("Person.place: destination 'Club' → 'Playlist' cannot be inferred"), "\(message)")
    }
}
