import Foundation
import Strata
import StrataTestKit
import Testing

@Suite("Migration")
struct MigrationTests {
    @Test(arguments: StoreKind.all)
    func renamedEntityAttributeAndRelationshipsKeepTheirValuesAndKeys(kind: StoreKind) throws {
        try MigrationChecks().renamedEntityAttributeAndRelationshipsKeepTheirValuesAndKeys(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func addedAttributesTakeTheirDefaultAndRemovedOnesGo(kind: StoreKind) throws {
        try MigrationChecks().addedAttributesTakeTheirDefaultAndRemovedOnesGo(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aRemovedEntityTakesItsObjectsAndReferencesAndAnAddedOneStartsEmpty(kind: StoreKind) throws {
        try MigrationChecks().aRemovedEntityTakesItsObjectsAndReferencesAndAnAddedOneStartsEmpty(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aRemovedRelationshipLeavesBothEntities(kind: StoreKind) throws {
        try MigrationChecks().aRemovedRelationshipLeavesBothEntities(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func optionalToRequiredWithADefaultFillsNil(kind: StoreKind) throws {
        try MigrationChecks().optionalToRequiredWithADefaultFillsNil(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func optionalToRequiredWithoutADefaultIsRefusedNamingTheObjects(kind: StoreKind) throws {
        try MigrationChecks().optionalToRequiredWithoutADefaultIsRefusedNamingTheObjects(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func requiredToOptionalKeepsEveryValue(kind: StoreKind) throws {
        try MigrationChecks().requiredToOptionalKeepsEveryValue(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aRequiredToOneIsCheckedInEveryObject(kind: StoreKind) throws {
        try MigrationChecks().aRequiredToOneIsCheckedInEveryObject(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func toOneToToManyKeepsTheMember(kind: StoreKind) throws {
        try MigrationChecks().toOneToToManyKeepsTheMember(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func toManyToToOneWhenEveryObjectHasAtMostOne(kind: StoreKind) throws {
        try MigrationChecks().toManyToToOneWhenEveryObjectHasAtMostOne(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func toManyToToOneIsRefusedNamingTheObjectsWithMore(kind: StoreKind) throws {
        try MigrationChecks().toManyToToOneIsRefusedNamingTheObjectsWithMore(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func unorderedToOrderedOrdersMembersByPrimaryKey(kind: StoreKind) throws {
        try MigrationChecks().unorderedToOrderedOrdersMembersByPrimaryKey(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aParentAddedKeepsKeysThatDoNotCollide(kind: StoreKind) throws {
        try MigrationChecks().aParentAddedKeepsKeysThatDoNotCollide(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aParentAddedGivesTheMovedObjectsWhoseKeysCollideNewKeys(kind: StoreKind) throws {
        try MigrationChecks().aParentAddedGivesTheMovedObjectsWhoseKeysCollideNewKeys(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aParentRemovedKeepsEveryKey(kind: StoreKind) throws {
        try MigrationChecks().aParentRemovedKeepsEveryKey(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func anIndexChangeAloneLeavesTheStoreAsItIs(kind: StoreKind) throws {
        try MigrationChecks().anIndexChangeAloneLeavesTheStoreAsItIs(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func anIndexChangeWithOtherChangesMigrates(kind: StoreKind) throws {
        try MigrationChecks().anIndexChangeWithOtherChangesMigrates(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aUniquenessConstraintTheDataMeetsIsAdded(kind: StoreKind) throws {
        try MigrationChecks().aUniquenessConstraintTheDataMeetsIsAdded(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aUniquenessConstraintTheDataBreaksIsRefusedNamingTheDuplicates(kind: StoreKind) throws {
        try MigrationChecks().aUniquenessConstraintTheDataBreaksIsRefusedNamingTheDuplicates(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func numbersWidenThroughStagedVersions(kind: StoreKind) throws {
        try MigrationChecks().numbersWidenThroughStagedVersions(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func anInt16ToStringChangeIsRefusedNamingTheProperty(kind: StoreKind) throws {
        try MigrationChecks().anInt16ToStringChangeIsRefusedNamingTheProperty(kind: kind)
    }
}
