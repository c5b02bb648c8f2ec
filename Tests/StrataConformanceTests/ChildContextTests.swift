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

    @Test(arguments: StoreKind.all)
    func aChildsToManyChangeKeepsWhatTheParentAddedSinceTheChildReadIt(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsToManyChangeKeepsWhatTheParentAddedSinceTheChildReadIt(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildsToOneChangeMovesTheObjectOutOfTheParentsNewerDestination(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsToOneChangeMovesTheObjectOutOfTheParentsNewerDestination(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildsDeletionReleasesWhatTheParentReferredToItSinceTheChildReadIt(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsDeletionReleasesWhatTheParentReferredToItSinceTheChildReadIt(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildsAdditionOfANewObjectSurvivesTheRootSavingIt(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsAdditionOfANewObjectSurvivesTheRootSavingIt(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildsFetchThroughARelationshipSeesTheParentsUnsavedChange(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsFetchThroughARelationshipSeesTheParentsUnsavedChange(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildsChangeOfAnObjectTheParentDeletedIsAConflict(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsChangeOfAnObjectTheParentDeletedIsAConflict(kind)
    }

    @Test(arguments: StoreKind.all)
    func aChildsReorderingKeepsWhatTheParentAddedSinceTheChildReadIt(_ kind: StoreKind) throws {
        try ChildContextChecks().aChildsReorderingKeepsWhatTheParentAddedSinceTheChildReadIt(kind)
    }
}
