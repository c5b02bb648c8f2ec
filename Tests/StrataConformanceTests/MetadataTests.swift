import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct MetadataTests {
    @Test(arguments: StoreKind.all)
    func storesDescribeThemselves(_ kind: StoreKind) throws {
        try MetadataChecks().storesDescribeThemselves(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChangedModelIsRefusedNamingTheEntity(_ kind: StoreKind) throws {
        try MetadataChecks().aChangedModelIsRefusedNamingTheEntity(kind)
    }
}
