import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Testing

/// Two stores (as two processes would) on one binary file, saving changesets: a save that finds
/// the file replaced rebases onto it. The binary layout keeps versions, so conflicts are checked
/// against them and against the records this store loaded.
@Suite struct BinaryPlistStoreConcurrencyTests {
    /// The small store written to a file, and two stores opened on it.
    static func twoStores() throws -> (directory: TemporaryDirectory, url: URL, first: any PersistentStore, second: any PersistentStore) {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try Fixtures.format.write(Fixtures.smallStore(), to: url)
        let first = try #require(try Fixtures.coordinator(at: url).stores.first)
        let second = try #require(try Fixtures.coordinator(at: url).stores.first)
        return (directory, url, first, second)
    }

    @Test func aConflictingUpdateIsAMergeConflictUnlessItOverwrites() throws {
        let (directory, url, first, second) = try Self.twoStores()
        _ = directory
        let owner = Fixtures.id("Owner", 2)
        let stored = try #require(try first.records(for: [owner])[owner])
        #expect(stored.version == 3)

        var theirs = stored
        theirs.attributes["name"] = .string("Grace")
        #expect(try second.saveChanges(StoreChangeset(updated: [theirs])).versions == [owner: 4])

        var mine = stored
        mine.attributes["name"] = .string("Linus")
        let error = #expect(throws: StrataError.self) { try first.saveChanges(StoreChangeset(updated: [mine])) }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.objectID) == [owner])
        #expect(try Fixtures.format.read(from: url).record(owner)?.attributes["name"] == .string("Grace"))

        #expect(try first.saveChanges(StoreChangeset(updated: [mine], overwritesConflicts: true)).versions == [owner: 5])
        #expect(try Fixtures.format.read(from: url).record(owner)?.attributes["name"] == .string("Linus"))
    }

    /// Keys both stores handed out (Tag 2): the second save's tag gets Tag 3, and its item's
    /// reference follows; a key the caller chose is never changed.
    @Test func aTakenStoreKeyIsReassignedAndReferencesFollow() throws {
        let (directory, url, first, second) = try Self.twoStores()
        _ = directory
        #expect(try first.allocatePrimaryKeys(rootEntity: "Tag", count: 1) == [2])
        #expect(try second.allocatePrimaryKeys(rootEntity: "Tag", count: 1) == [2])

        let theirTag = Fixtures.record("Tag", 2, ["name": .string("work")])
        _ = try second.saveChanges(StoreChangeset(inserted: [theirTag], reassignableIDs: [theirTag.objectID]))

        let myTag = Fixtures.record("Tag", 2, ["name": .string("garden")], toMany: ["items": [Fixtures.id("Item", 20)]])
        let myItem = Fixtures.record("Item", 20, ["text": .string("Weed")], toMany: ["tags": [myTag.objectID]])
        let result = try first.saveChanges(StoreChangeset(inserted: [myTag, myItem], reassignableIDs: [myTag.objectID]))
        #expect(result.reassignedIDs == [Fixtures.id("Tag", 2): Fixtures.id("Tag", 3)])
        #expect(result.versions == [Fixtures.id("Tag", 3): 1, Fixtures.id("Item", 20): 1])

        let file = try Fixtures.format.read(from: url)
        #expect(file.record(Fixtures.id("Tag", 2))?.attributes["name"] == .string("work"))
        #expect(file.record(Fixtures.id("Tag", 3))?.attributes["name"] == .string("garden"))
        #expect(file.record(Fixtures.id("Item", 20))?.toMany["tags"] == [Fixtures.id("Tag", 3)])
        #expect(file.keySequences["Tag"] == 3)
        // This store now holds the other's tag too.
        #expect(try first.records(for: [Fixtures.id("Tag", 2)]).count == 1)
    }
}
