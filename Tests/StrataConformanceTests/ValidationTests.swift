import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct ValidationTests {
    @Test(arguments: StoreKind.all)
    func attributeRules(_ kind: StoreKind) throws {
        try ValidationChecks().attributeRules(kind)
    }

    @Test(arguments: StoreKind.all)
    func relationshipCounts(_ kind: StoreKind) throws {
        try ValidationChecks().relationshipCounts(kind)
    }

    @Test(arguments: StoreKind.all)
    func uniquenessAgainstStoredDataAndWithinOneSave(_ kind: StoreKind) throws {
        try ValidationChecks().uniquenessAgainstStoredDataAndWithinOneSave(kind)
    }
}
