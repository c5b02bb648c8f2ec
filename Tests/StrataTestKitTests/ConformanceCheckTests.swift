import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Testing

@Suite struct ConformanceCheckTests {
    /// The list is what a third-party store runs: every check once, each with its own name.
    @Test func everyCheckIsListedOnceByName() {
        let names = ConformanceCheck.all.map(\.name)
        #expect(names.count == 186)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.split(separator: ".").count == 2 })
        #expect(names.first == "AttributeType.everyTypeRoundTripsExactly")
    }

    /// A store in memory runs every check but those that need a file (and, unless it is the
    /// built-in in-memory store, those that migrate); a file store runs all.
    @Test func checksThatNeedAFileAreLeftOutForAStoreInMemory() {
        let needsFile = ConformanceCheck.all.filter { $0.requirements.contains(.persistent) }.map(\.name)
        let migrates = ConformanceCheck.all.filter { $0.requirements == [.migratable] }.map(\.name)
        #expect(needsFile.count == 20)
        #expect(needsFile.contains("CrossProcessReference.storeTrumpTakesTheDeletion"))
        #expect(migrates.count == 36)
        #expect(migrates.contains("Migration.renamedEntityAttributeAndRelationshipsKeepTheirValuesAndKeys"))
        #expect(ConformanceCheck.all(for: .wrappedMemory).count == 186 - 20 - 36)
        #expect(ConformanceCheck.all(for: .memory).count == 186 - 20)
        let file = StoreKind.file("file", factory: WrappedMemoryStoreFactory(), fileExtension: "wrapped")
        #expect(ConformanceCheck.all(for: file).count == 186)
    }

    /// A store that breaks a promise fails the check, and the failure is recorded against the
    /// test that ran the check (here, as the known issue this test expects): a kind that says
    /// it persists, whose store does not.
    @Test func aCheckFailsForAStoreThatBreaksAPromise() async throws {
        let liar = StoreKind(
            name: "liar", type: .inMemory, storeTypes: StoreTypeRegistry(), persists: true, makeDescription: { .inMemory() })
        let check = try #require(ConformanceCheck.all.first { $0.name == "CRUD.emptyStoreAndFailedLookups" })
        await withKnownIssue {
            try await check.run(on: liar)
        }
        try await check.run(on: .memory)
    }

    /// The checks that need a file or migrate, run through the public list against a file
    /// store (the binary one), as a third-party file store runs them: the list's entries call
    /// the checks with the arguments their own tests give them. Each store the check makes is
    /// in a directory of its own under one of this test's: the check removes every one.
    @Test(arguments: ConformanceCheck.all.filter { !$0.requirements.isEmpty })
    func checksForFileStoresRunFromTheList(_ check: ConformanceCheck) async throws {
        let parent = try TemporaryDirectory(prefix: "kit-checks")
        defer { parent.cleanup() }
        let factory = BinaryPlistStoreFactory()
        let binary = StoreKind(
            name: "binary", type: factory.type, storeTypes: StoreTypeRegistry([factory]), persists: true,
            makeDescription: { [url = parent.url] in
                let directory = url.appendingPathComponent(UUID().uuidString, isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
                return StoreDescription(type: factory.type, url: directory.appendingPathComponent("store.bplist"))
            })
        #expect(check.applies(to: binary))
        try await check.run(on: binary)
        #expect(parent.names == [], "\(check.name) left store directories behind")
    }
}
