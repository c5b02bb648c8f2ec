import Foundation
import Strata
import Testing

/// Which steps a plan takes from a store's model to the current version.
@Suite("MigrationPlan") struct MigrationPlanTests {
    static func model(_ version: String, _ attributes: String) -> Schema {
        try! Schema(data: Data("""
            { "name": "Notes", "version": "\(version)", "entities": [ { "name": "Note", "attributes": [ \(attributes) ] } ] }
            """.utf8))
    }

    static let v1 = model("1", #"{ "name": "title", "type": "string" }"#)
    static let v2 = model("2", #"{ "name": "headline", "type": "string", "renamingIdentifier": "title" }"#)
    static let v3 = model("3", #"{ "name": "headline", "type": "string", "renamingIdentifier": "title" }, { "name": "pinned", "type": "bool", "default": false }"#)
    /// `pinned` becomes a string: not inferable.
    static let v4 = model("4", #"{ "name": "headline", "type": "string", "renamingIdentifier": "title" }, { "name": "pinned", "type": "string", "optional": true }"#)

    func summaries(_ plan: MigrationPlan) -> [String] {
        plan.steps.map { "\($0.source.version ?? "?")→\($0.destination.version ?? "?")" }
    }

    @Test func aListedStoreWalksFromItsVersion() throws {
        let versions = try SchemaVersions([Self.v1, Self.v2, Self.v3])
        #expect(summaries(try MigrationPlan(storeSchema: Self.v1, versions: versions)) == ["1→2", "2→3"])
        #expect(summaries(try MigrationPlan(storeSchema: Self.v2, versions: versions)) == ["2→3"])
        #expect(try MigrationPlan(storeSchema: Self.v3, versions: versions).isEmpty)
    }

    @Test func anUnlistedStoreIsInferredStraightToTheCurrentVersionOrThroughEveryOne() throws {
        let versions = try SchemaVersions([Self.v2, Self.v3])
        #expect(summaries(try MigrationPlan(storeSchema: Self.v1, versions: versions)) == ["1→3"])
        #expect(summaries(try MigrationPlan(storeSchema: Self.v1, versions: versions, unlisted: .throughEveryVersion)) == ["1→2", "2→3"])
    }

    @Test func anUnlistedStoreThatWouldLoseDataIsRefused() throws {
        let error = #expect(throws: StrataError.self) {
            _ = try MigrationPlan(storeSchema: Self.v3, versions: SchemaVersions([Self.v1]))
        }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("would remove Note.pinned") == true, "\(error.map { "\($0)" } ?? "")")
    }

    @Test func aStepThatCannotBeInferredIsRefusedUnlessItHasAStage() throws {
        let versions = try SchemaVersions([Self.v3, Self.v4])
        let error = #expect(throws: StrataError.self) { _ = try MigrationPlan(storeSchema: Self.v3, versions: versions) }
        #expect(error?.code == .migrationRefused)
        #expect(error?.message.contains("Note.pinned: type bool → string") == true, "\(error.map { "\($0)" } ?? "")")
        let stage = MigrationStage.custom(from: Self.v3, to: Self.v4, didMigrate: { _ in })
        let plan = try MigrationPlan(storeSchema: Self.v3, versions: versions, stages: [stage])
        #expect(plan.steps.map(\.isCustom) == [true])
    }

    @Test func aStageBetweenVersionsThatAreNotAdjacentIsRefused() throws {
        let stage = MigrationStage.custom(from: Self.v1, to: Self.v3, didMigrate: { _ in })
        let error = #expect(throws: StrataError.self) {
            _ = try MigrationPlan(storeSchema: Self.v1, versions: SchemaVersions([Self.v1, Self.v2, Self.v3]), stages: [stage])
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func aVersionListedTwiceIsOneVersion() throws {
        let plan = try MigrationPlan(storeSchema: Self.v1, versions: SchemaVersions([Self.v3, Self.v3]), unlisted: .throughEveryVersion)
        #expect(summaries(plan) == ["1→3"])
    }
}
