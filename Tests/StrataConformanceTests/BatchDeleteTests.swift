import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BatchDeleteTests {
    @Test(arguments: StoreKind.all)
    func cascadeFollowsChainsAndIsCountedApart(_ kind: StoreKind) throws {
        try BatchDeleteChecks().cascadeFollowsChainsAndIsCountedApart(kind)
    }

    @Test(arguments: StoreKind.all)
    func nullifyRemovesTheDeletedObjectsFromTheInverseAndContextsMerge(_ kind: StoreKind) throws {
        try BatchDeleteChecks().nullifyRemovesTheDeletedObjectsFromTheInverseAndContextsMerge(kind)
    }

    @Test(arguments: StoreKind.all)
    func denyAndBrokenRulesOfTheInversesRefuseEverything(_ kind: StoreKind) throws {
        try BatchDeleteChecks().denyAndBrokenRulesOfTheInversesRefuseEverything(kind)
    }

    @Test(arguments: StoreKind.all)
    func anEntityWithoutRelationships(_ kind: StoreKind) throws {
        try BatchDeleteChecks().anEntityWithoutRelationships(kind)
    }

    @Test(arguments: StoreKind.all)
    func throughSubentities(_ kind: StoreKind) throws {
        try BatchDeleteChecks().throughSubentities(kind)
    }
}
