import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct CrossProcessReferenceTests {
    @Test(arguments: StoreKind.all.filter(\.persists))
    func aToOneWithoutInverseToAnObjectAnotherProcessDeleted(_ kind: StoreKind) throws {
        try CrossProcessReferenceChecks().aToOneWithoutInverseToAnObjectAnotherProcessDeleted(kind)
    }

    @Test(arguments: StoreKind.all)
    func aToOneWithoutInverseToAnObjectAnotherContextDeleted(_ kind: StoreKind) throws {
        try CrossProcessReferenceChecks().aToOneWithoutInverseToAnObjectAnotherContextDeleted(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func referencesThroughInversesToObjectsAnotherProcessDeleted(_ kind: StoreKind) throws {
        try CrossProcessReferenceChecks().referencesThroughInversesToObjectsAnotherProcessDeleted(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func anOverwriteDoesNotBringBackAClearedReference(_ kind: StoreKind) throws {
        try CrossProcessReferenceChecks().anOverwriteDoesNotBringBackAClearedReference(kind)
    }

    @Test(arguments: StoreKind.all.filter(\.persists))
    func storeTrumpTakesTheDeletion(_ kind: StoreKind) throws {
        try CrossProcessReferenceChecks().storeTrumpTakesTheDeletion(kind)
    }
}
@Suite struct OneWayReferenceDeletionTests {
    @Test(arguments: StoreKind.all)
    func deletingTheMentorClearsTheStoredReference(_ kind: StoreKind) throws {
        try OneWayReferenceDeletionChecks().deletingTheMentorClearsTheStoredReference(kind)
    }

    @Test(arguments: StoreKind.all)
    func aReferenceSetButNotSavedIsClearedToo(_ kind: StoreKind) throws {
        try OneWayReferenceDeletionChecks().aReferenceSetButNotSavedIsClearedToo(kind)
    }

    @Test(arguments: StoreKind.all)
    func theStoreRefusesADeletionThatLeavesAReference(_ kind: StoreKind) throws {
        try OneWayReferenceDeletionChecks().theStoreRefusesADeletionThatLeavesAReference(kind)
    }

    @Test(arguments: StoreKind.all)
    func aBatchDeleteClearsTheReference(_ kind: StoreKind) throws {
        try OneWayReferenceDeletionChecks().aBatchDeleteClearsTheReference(kind)
    }
}
