import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct DeleteRuleTests {
    @Test(arguments: StoreKind.all)
    func cascadeFollowsChainsThroughToManyAndToOne(_ kind: StoreKind) throws {
        try DeleteRuleChecks().cascadeFollowsChainsThroughToManyAndToOne(kind)
    }

    @Test(arguments: StoreKind.all)
    func nullifyRemovesTheDeletedObjectFromTheInverse(_ kind: StoreKind) throws {
        try DeleteRuleChecks().nullifyRemovesTheDeletedObjectFromTheInverse(kind)
    }

    @Test(arguments: StoreKind.all)
    func denyFailsTheSaveAndChangesNothing(_ kind: StoreKind) throws {
        try DeleteRuleChecks().denyFailsTheSaveAndChangesNothing(kind)
    }

    @Test(arguments: StoreKind.all)
    func noActionLeavesTheInverseAsItWas(_ kind: StoreKind) throws {
        try DeleteRuleChecks().noActionLeavesTheInverseAsItWas(kind)
    }
}
