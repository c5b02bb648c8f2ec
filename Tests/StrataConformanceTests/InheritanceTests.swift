import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct InheritanceTests {
    @Test(arguments: StoreKind.all)
    func fetchesThroughTheHierarchy(_ kind: StoreKind) throws {
        try InheritanceChecks().fetchesThroughTheHierarchy(kind)
    }

    @Test(arguments: StoreKind.all)
    func primaryKeysAreUniqueAcrossTheHierarchy(_ kind: StoreKind) throws {
        try InheritanceChecks().primaryKeysAreUniqueAcrossTheHierarchy(kind)
    }

    @Test(arguments: StoreKind.all)
    func uniquenessConstraintsSpanTheHierarchy(_ kind: StoreKind) throws {
        try InheritanceChecks().uniquenessConstraintsSpanTheHierarchy(kind)
    }
}
