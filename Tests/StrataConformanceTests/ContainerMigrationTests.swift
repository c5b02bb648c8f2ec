import Foundation
import Strata
import StrataTestKit
import Synchronization
import Testing

@Suite struct ContainerMigrationTests {
    @Test(arguments: StoreKind.all.filter(\.persists))
    func aContainerGivenTheVersionsMigratesAtOpen(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().aContainerGivenTheVersionsMigratesAtOpen(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func aCustomStageRunsAtOpenThroughEveryVersion(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().aCustomStageRunsAtOpenThroughEveryVersion(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func withoutVersionsAStoreOfAnotherModelIsRefusedAndUntouched(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().withoutVersionsAStoreOfAnotherModelIsRefusedAndUntouched(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func aFailingCustomStageLeavesTheStoreAsItWas(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().aFailingCustomStageLeavesTheStoreAsItWas(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func aStoreOfAnUnlistedModelThatWouldLoseDataIsRefused(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().aStoreOfAnUnlistedModelThatWouldLoseDataIsRefused(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func eraseStoreStartsAnEmptyStore(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().eraseStoreStartsAnEmptyStore(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func theConfigurationFileNamesEarlierVersions(_ kind: StoreKind) throws {
        try ContainerMigrationChecks().theConfigurationFileNamesEarlierVersions(kind)
    }
}
