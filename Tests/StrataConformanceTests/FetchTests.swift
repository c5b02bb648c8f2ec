import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct FetchTests {
    @Test(arguments: StoreKind.all)
    func predicatesOnAttributesAndRelationships(_ kind: StoreKind) throws {
        try FetchChecks().predicatesOnAttributesAndRelationships(kind)
    }

    @Test(arguments: StoreKind.all)
    func aggregatesOverToMany(_ kind: StoreKind) throws {
        try FetchChecks().aggregatesOverToMany(kind)
    }

    @Test(arguments: StoreKind.all)
    func sortDescriptors(_ kind: StoreKind) throws {
        try FetchChecks().sortDescriptors(kind)
    }

    @Test(arguments: StoreKind.all)
    func limitOffsetCountAndIDs(_ kind: StoreKind) throws {
        try FetchChecks().limitOffsetCountAndIDs(kind)
    }

    @Test(arguments: StoreKind.all)
    func dictionaries(_ kind: StoreKind) throws {
        try FetchChecks().dictionaries(kind)
    }

    @Test(arguments: StoreKind.all)
    func invalidRequestsAreRefused(_ kind: StoreKind) throws {
        try FetchChecks().invalidRequestsAreRefused(kind)
    }
}
