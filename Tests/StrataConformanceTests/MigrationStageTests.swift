import Foundation
import Strata
import StrataTestKit
import Synchronization
import Testing

@Suite("Migration stages")
struct MigrationStageTests {
    @Test(arguments: StoreKind.all)
    func aThreeVersionChainWithRenamesMigratesStagedAndInOneStepAlike(kind: StoreKind) throws {
        try MigrationStageChecks().aThreeVersionChainWithRenamesMigratesStagedAndInOneStepAlike(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aStoreAtAMiddleVersionMigratesTheRestOfTheChain(kind: StoreKind) throws {
        try MigrationStageChecks().aStoreAtAMiddleVersionMigratesTheRestOfTheChain(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aCustomStageSplitsAStringIntoTwoAttributes(kind: StoreKind) throws {
        try MigrationStageChecks().aCustomStageSplitsAStringIntoTwoAttributes(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aCustomStageCreatesObjectsFromAValue(kind: StoreKind) throws {
        try MigrationStageChecks().aCustomStageCreatesObjectsFromAValue(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aCustomStageCarriesATypeChange(kind: StoreKind) throws {
        try MigrationStageChecks().aCustomStageCarriesATypeChange(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aCustomStageThatThrowsLeavesTheStoreAsItWas(kind: StoreKind) throws {
        try MigrationStageChecks().aCustomStageThatThrowsLeavesTheStoreAsItWas(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aCustomStageThatLeavesARequiredValueUnsetIsRefused(kind: StoreKind) throws {
        try MigrationStageChecks().aCustomStageThatLeavesARequiredValueUnsetIsRefused(kind: kind)
    }
}
