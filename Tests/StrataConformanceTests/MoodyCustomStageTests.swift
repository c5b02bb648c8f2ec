import Foundation
import Strata
import StrataTestKit
import Synchronization
import Testing

@Suite struct MoodyCustomStageTests {
    @Test(arguments: StoreKind.all.filter(\.persists))
    func aCustomStageReadsTransformableValuesWithTheStagesTransformers(_ kind: StoreKind) throws {
        try MoodyCustomStageChecks().aCustomStageReadsTransformableValuesWithTheStagesTransformers(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func aCustomStageFillsTheNewRelationship(_ kind: StoreKind) throws {
        try MoodyCustomStageChecks().aCustomStageFillsTheNewRelationship(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func threeVersionsStagedWithACustomLastStep(_ kind: StoreKind) throws {
        try MoodyCustomStageChecks().threeVersionsStagedWithACustomLastStep(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func aFailingStageLeavesTheStoreAsItWas(_ kind: StoreKind) throws {
        try MoodyCustomStageChecks().aFailingStageLeavesTheStoreAsItWas(kind)
    }
}
