import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

extension StoreKind {
    /// A PostgreSQL store in a new schema of its own on the test server for every store a
    /// check makes (dropped after the check by ``conformance(_:)``).
    static let postgres = StoreKind(
        name: "postgres", type: .postgres, storeTypes: StoreTypeRegistry([PostgresStoreFactory()]), persists: true,
        makeDescription: {
            let url = try TestSchema().url
            ConformanceSchemas.created?.withLock { $0.append(url) }
            return StoreDescription(type: .postgres, url: url)
        })
}

/// The schemas the running check made, to drop when it is done.
enum ConformanceSchemas {
    @TaskLocal static var created: Locked<[URL]>?

    /// Checks of the kit that read or write the store as a file (its bytes, to show it is
    /// unchanged; a `strata.json` naming it by a relative path): they cannot apply to a store on
    /// a server until the kit tells such stores apart. The behaviour they check is covered here
    /// by PostgresMigrationTests.
    static let fileOnly: Set<String> = [
        "ContainerMigration.aContainerGivenTheVersionsMigratesAtOpen",
        "ContainerMigration.aCustomStageRunsAtOpenThroughEveryVersion",
        "ContainerMigration.withoutVersionsAStoreOfAnotherModelIsRefusedAndUntouched",
        "ContainerMigration.aFailingCustomStageLeavesTheStoreAsItWas",
        "ContainerMigration.aStoreOfAnUnlistedModelThatWouldLoseDataIsRefused",
        "ContainerMigration.eraseStoreStartsAnEmptyStore",
        "ContainerMigration.theConfigurationFileNamesEarlierVersions",
        "MigrationHierarchy.aDestinationNarrowedToASubentityIsRefusedNamingTheObjectsThatReferToOthers",
        "MigrationHierarchy.anEntityThatBecomesAbstractWhileItHasObjectsIsRefused",
        "MigrationHierarchy.aRequiredToOneWhoseObjectGoesWithARemovedSubentityIsRefused",
        "MigrationHierarchy.aParentAddedBringsARequiredAttributeTheMovedObjectsLack",
        "MigrationStage.aCustomStageThatThrowsLeavesTheStoreAsItWas",
        "MigrationStage.aCustomStageThatLeavesARequiredValueUnsetIsRefused",
        "Migration.optionalToRequiredWithoutADefaultIsRefusedNamingTheObjects",
        "Migration.aRequiredToOneIsCheckedInEveryObject",
        "Migration.toManyToToOneIsRefusedNamingTheObjectsWithMore",
        "Migration.anIndexChangeAloneLeavesTheStoreAsItIs",
        "Migration.aUniquenessConstraintTheDataBreaksIsRefusedNamingTheDuplicates",
        "Migration.anInt16ToStringChangeIsRefusedNamingTheProperty",
        "MoodyCustomStage.aFailingStageLeavesTheStoreAsItWas",
    ]
}

/// The conformance suite (StrataTestKit): every check that applies to a store on a server,
/// against PostgreSQL.
@Test(arguments: ConformanceCheck.all(for: .postgres).filter { !ConformanceSchemas.fileOnly.contains($0.name) })
func conformance(_ check: ConformanceCheck) async throws {
    let created = Locked<[URL]>([])
    defer { for url in created.withLock({ $0 }) { try? PostgresStoreFactory().destroyStore(at: url) } }
    try await ConformanceSchemas.$created.withValue(created) { try await check.run(on: .postgres) }
}
