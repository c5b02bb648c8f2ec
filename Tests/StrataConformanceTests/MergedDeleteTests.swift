import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BatchDeletePendingTests {
    @Test(arguments: StoreKind.all)
    func anUnsavedObjectDoesNotKeepAReferenceToADeletedOne(_ kind: StoreKind) throws {
        try BatchDeletePendingChecks().anUnsavedObjectDoesNotKeepAReferenceToADeletedOne(kind)
    }
}
@Suite struct MergedDeletePendingTests {
    @Test(arguments: StoreKind.all)
    func anUnsavedObjectAfterAnotherContextsDelete(_ kind: StoreKind) throws {
        try MergedDeletePendingChecks().anUnsavedObjectAfterAnotherContextsDelete(kind)
    }

    @Test(arguments: StoreKind.all)
    func aReferenceWithoutAnInverseToAnObjectAnotherSaveDeleted(_ kind: StoreKind) throws {
        try MergedDeletePendingChecks().aReferenceWithoutAnInverseToAnObjectAnotherSaveDeleted(kind)
    }
}
