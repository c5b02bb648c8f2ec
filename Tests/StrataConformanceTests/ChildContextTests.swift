import Foundation
import Strata
import StrataTestKit
import Testing

/// Child contexts on every store (``ChildContextChecks``).
@Suite struct ChildContextTests {
    @Test(arguments: StoreKind.all)
    func aChildReadsTheParentsUnsavedStateAndSavesIntoItOnly(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildReadsTheParentsUnsavedStateAndSavesIntoItOnly(kind)
    }

    @Test(arguments: StoreKind.all)
    func droppingAChildLeavesTheParentAsItWas(_ kind: StoreKind) throws {
        try ChildContextChecks().droppingAChildLeavesTheParentAsItWas(kind)
    }

    @Test(arguments: StoreKind.all)
    func changesClimbEveryLevelToTheStore(_ kind: StoreKind) throws {
        try ChildContextChecks().changesClimbEveryLevelToTheStore(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildSeesTheParentsDeletionsAndItsRefusedSaveChangesNothing(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildSeesTheParentsDeletionsAndItsRefusedSaveChangesNothing(kind)
    }

    @Test(arguments: StoreKind.all)
    func siblingsTakeInEachOthersSavesWhenTheyMergeAutomatically(_ kind: StoreKind) throws {
        try ChildContextChecks().siblingsTakeInEachOthersSavesWhenTheyMergeAutomatically(kind)
    }
}
