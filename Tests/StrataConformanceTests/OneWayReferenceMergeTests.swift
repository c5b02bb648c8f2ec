import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct OneWayReferenceMergeTests {
    @Test(arguments: StoreKind.all)
    func aDeletedObjectLeavesEveryShapeOfRelationshipToItsParentEntity(_ kind: StoreKind) throws {
        try OneWayReferenceMergeChecks().aDeletedObjectLeavesEveryShapeOfRelationshipToItsParentEntity(kind)
    }

    @Test(arguments: StoreKind.all)
    func aMergedDeletionLeavesAToManyWhoseMemberTheContextDidNotKeep(_ kind: StoreKind) throws {
        try OneWayReferenceMergeChecks().aMergedDeletionLeavesAToManyWhoseMemberTheContextDidNotKeep(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func storeTrumpTakesADeletionOfAMemberTheContextDidNotKeep(_ kind: StoreKind) throws {
        try OneWayReferenceMergeChecks().storeTrumpTakesADeletionOfAMemberTheContextDidNotKeep(kind)
    }
}
@Suite struct OneWayReferenceStaleReferrerTests {
    @Test(arguments: StoreKind.all)
    func aDeletionClearsAReferenceSetSinceTheContextReadTheReferrer(_ kind: StoreKind) throws {
        try OneWayReferenceStaleReferrerChecks().aDeletionClearsAReferenceSetSinceTheContextReadTheReferrer(kind)
    }
}
@Suite struct OneWayReferenceUndoTests {
    @Test(arguments: StoreKind.all)
    func undoingASavedDeletionBringsBackTheObjectAndTheReferencesToIt(_ kind: StoreKind) throws {
        try OneWayReferenceUndoChecks().undoingASavedDeletionBringsBackTheObjectAndTheReferencesToIt(kind)
    }
}
