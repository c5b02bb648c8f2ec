import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct CRUDTests {
    @Test(arguments: StoreKind.all)
    func insertFetchUpdateDelete(_ kind: StoreKind) throws {
        try CRUDChecks().insertFetchUpdateDelete(kind)
    }

    @Test(arguments: StoreKind.all)
    func primaryKeysAreNotReusedAndRequestedKeysAreKept(_ kind: StoreKind) throws {
        try CRUDChecks().primaryKeysAreNotReusedAndRequestedKeysAreKept(kind)
    }

    @Test(arguments: StoreKind.all)
    func emptyStoreAndFailedLookups(_ kind: StoreKind) throws {
        try CRUDChecks().emptyStoreAndFailedLookups(kind)
    }
}
