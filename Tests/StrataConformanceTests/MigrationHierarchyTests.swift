import Foundation
import Strata
import StrataTestKit
import Testing

@Suite("Migration: data the new hierarchy refuses")
struct MigrationHierarchyTests {
    @Test(arguments: StoreKind.all)
    func aDestinationNarrowedToASubentityIsRefusedNamingTheObjectsThatReferToOthers(kind: StoreKind) throws {
        try MigrationHierarchyChecks().aDestinationNarrowedToASubentityIsRefusedNamingTheObjectsThatReferToOthers(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aDestinationNarrowedToASubentityMigratesWhenEveryObjectFits(kind: StoreKind) throws {
        try MigrationHierarchyChecks().aDestinationNarrowedToASubentityMigratesWhenEveryObjectFits(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func anEntityThatBecomesAbstractWhileItHasObjectsIsRefused(kind: StoreKind) throws {
        try MigrationHierarchyChecks().anEntityThatBecomesAbstractWhileItHasObjectsIsRefused(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aRequiredToOneWhoseObjectGoesWithARemovedSubentityIsRefused(kind: StoreKind) throws {
        try MigrationHierarchyChecks().aRequiredToOneWhoseObjectGoesWithARemovedSubentityIsRefused(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func aParentAddedBringsARequiredAttributeTheMovedObjectsLack(kind: StoreKind) throws {
        try MigrationHierarchyChecks().aParentAddedBringsARequiredAttributeTheMovedObjectsLack(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func anAttributeMovedUpToTheParentGivesTheEntitiesThatGainItTheDefault(kind: StoreKind) throws {
        try MigrationHierarchyChecks().anAttributeMovedUpToTheParentGivesTheEntitiesThatGainItTheDefault(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func siblingsWhosePropertiesGetOneNameKeepTheirOwnValues(kind: StoreKind) throws {
        try MigrationHierarchyChecks().siblingsWhosePropertiesGetOneNameKeepTheirOwnValues(kind: kind)
    }
}
@Suite("Migration: keys of merged hierarchies")
struct MigrationMergedKeyTests {
    @Test(arguments: StoreKind.all)
    func aNewRootKeepsTheKeysOfTheHierarchyFirstInTheModel(kind: StoreKind) throws {
        try MigrationMergedKeyChecks().aNewRootKeepsTheKeysOfTheHierarchyFirstInTheModel(kind: kind)
    }
}
