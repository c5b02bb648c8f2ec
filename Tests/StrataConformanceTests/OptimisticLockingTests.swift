import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct OptimisticLockingTests {
    @Test(arguments: StoreKind.all)
    func errorPolicyRefusesTheSecondSave(_ kind: StoreKind) throws {
        try OptimisticLockingChecks().errorPolicyRefusesTheSecondSave(kind)
    }

    @Test(arguments: StoreKind.all)
    func aDeleteOfManyWithOneChangedElsewhereDeletesNothing(_ kind: StoreKind) throws {
        try OptimisticLockingChecks().aDeleteOfManyWithOneChangedElsewhereDeletesNothing(kind)
    }

    @Test(arguments: StoreKind.all)
    func deletedElsewhereIsAConflict(_ kind: StoreKind) throws {
        try OptimisticLockingChecks().deletedElsewhereIsAConflict(kind)
    }

    @Test(arguments: StoreKind.all)
    func objectTrumpOverwritesTheStoredValues(_ kind: StoreKind) throws {
        try OptimisticLockingChecks().objectTrumpOverwritesTheStoredValues(kind)
    }

    @Test(arguments: StoreKind.all)
    func storeTrumpKeepsTheStoredValuesAndSavesTheRest(_ kind: StoreKind) throws {
        try OptimisticLockingChecks().storeTrumpKeepsTheStoredValuesAndSavesTheRest(kind)
    }

    @Test(arguments: StoreKind.all)
    func aToManyRemovalSurvivesARefreshThatKeepsChanges(_ kind: StoreKind) throws {
        try OptimisticLockingChecks().aToManyRemovalSurvivesARefreshThatKeepsChanges(kind)
    }
}
