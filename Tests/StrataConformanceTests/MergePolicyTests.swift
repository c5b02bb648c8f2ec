import Foundation
import Strata
import StrataTestKit
import Testing

/// Core Data's merge policies, property by property, and upserts (``MergePolicyChecks``).
@Suite struct MergePolicyTests {
    @Test(arguments: StoreKind.all)
    func editsOfDifferentProperties(_ kind: StoreKind) throws {
        try MergePolicyChecks().editsOfDifferentProperties(kind)
    }

    @Test(arguments: StoreKind.all)
    func editsOfTheSameProperty(_ kind: StoreKind) throws {
        try MergePolicyChecks().editsOfTheSameProperty(kind)
    }

    @Test(arguments: StoreKind.all)
    func aToOneBothChange(_ kind: StoreKind) throws {
        try MergePolicyChecks().aToOneBothChange(kind)
    }

    @Test(arguments: StoreKind.all)
    func aToManyBothChange(_ kind: StoreKind) throws {
        try MergePolicyChecks().aToManyBothChange(kind)
    }

    @Test(arguments: StoreKind.all)
    func changedHereDeletedThere(_ kind: StoreKind) throws {
        try MergePolicyChecks().changedHereDeletedThere(kind)
    }

    @Test(arguments: StoreKind.all)
    func deletedHereChangedThere(_ kind: StoreKind) throws {
        try MergePolicyChecks().deletedHereChangedThere(kind)
    }

    @Test(arguments: StoreKind.all)
    func aNewObjectWithAStoredObjectsUniqueValuesUpdatesIt(_ kind: StoreKind) throws {
        try MergePolicyChecks().aNewObjectWithAStoredObjectsUniqueValuesUpdatesIt(kind)
    }

    @Test(arguments: StoreKind.all)
    func twoNewObjectsWithTheSameUniqueValuesBecomeOne(_ kind: StoreKind) throws {
        try MergePolicyChecks().twoNewObjectsWithTheSameUniqueValuesBecomeOne(kind)
    }

    @Test(arguments: StoreKind.all)
    func aReorderingSurvivesAConflictOnAnotherProperty(_ kind: StoreKind) throws {
        try MergePolicyChecks().aReorderingSurvivesAConflictOnAnotherProperty(kind)
    }

    @Test(arguments: StoreKind.all)
    func aWriteRightAfterAMergedSaveKeepsTheObjectsOtherValues(_ kind: StoreKind) throws {
        try MergePolicyChecks().aWriteRightAfterAMergedSaveKeepsTheObjectsOtherValues(kind)
    }
}
