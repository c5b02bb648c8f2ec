import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BatchUpdateTests {
    @Test(arguments: StoreKind.all)
    func updatesOnlyTheMatchingObjectsAndBumpsTheirVersions(_ kind: StoreKind) throws {
        try BatchUpdateChecks().updatesOnlyTheMatchingObjectsAndBumpsTheirVersions(kind)
    }

    @Test(arguments: StoreKind.all)
    func cachedRowsAreNotServedStale(_ kind: StoreKind) throws {
        try BatchUpdateChecks().cachedRowsAreNotServedStale(kind)
    }

    @Test(arguments: StoreKind.all)
    func contextsLearnTheNewValues(_ kind: StoreKind) throws {
        try BatchUpdateChecks().contextsLearnTheNewValues(kind)
    }

    @Test(arguments: StoreKind.all)
    func aValueThatBreaksARuleIsRefusedForEveryMatchingObject(_ kind: StoreKind) throws {
        try BatchUpdateChecks().aValueThatBreaksARuleIsRefusedForEveryMatchingObject(kind)
    }

    @Test(arguments: StoreKind.all)
    func subentitiesAndBadRequests(_ kind: StoreKind) throws {
        try BatchUpdateChecks().subentitiesAndBadRequests(kind)
    }

    @Test(arguments: StoreKind.all)
    func expressionsOfTheObjectsOwnValues(_ kind: StoreKind) throws {
        try BatchUpdateChecks().expressionsOfTheObjectsOwnValues(kind)
    }

    @Test(arguments: StoreKind.all)
    func expressionsBreakingARuleChangeNothing(_ kind: StoreKind) throws {
        try BatchUpdateChecks().expressionsBreakingARuleChangeNothing(kind)
    }

    @Test(arguments: StoreKind.all)
    func expressionsBreakingUniquenessChangeNothing(_ kind: StoreKind) throws {
        try BatchUpdateChecks().expressionsBreakingUniquenessChangeNothing(kind)
    }

    @Test(arguments: StoreKind.all)
    func expressionsMovingUniqueValuesBetweenObjects(_ kind: StoreKind) throws {
        try BatchUpdateChecks().expressionsMovingUniqueValuesBetweenObjects(kind)
    }

    @Test(arguments: StoreKind.all)
    func expressionsGivingObjectsAreRefused(_ kind: StoreKind) throws {
        try BatchUpdateChecks().expressionsGivingObjectsAreRefused(kind)
    }
}
