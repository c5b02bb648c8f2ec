import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct DictionaryFetchTests {
    @Test(arguments: StoreKind.all)
    func aggregatesPerGroup(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().aggregatesPerGroup(kind)
    }

    @Test(arguments: StoreKind.all)
    func medianAndStandardDeviationPerGroup(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().medianAndStandardDeviationPerGroup(kind)
    }

    @Test(arguments: StoreKind.all)
    func havingSortAndWindowOfGroups(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().havingSortAndWindowOfGroups(kind)
    }

    @Test(arguments: StoreKind.all)
    func aggregatesWithoutGroupsMakeOneRow(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().aggregatesWithoutGroupsMakeOneRow(kind)
    }

    @Test(arguments: StoreKind.all)
    func distinctKeepsTheFirstOfEqualRows(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().distinctKeepsTheFirstOfEqualRows(kind)
    }

    @Test(arguments: StoreKind.all)
    func columnsOfObjectsAndRelationships(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().columnsOfObjectsAndRelationships(kind)
    }

    @Test(arguments: StoreKind.all)
    func computedColumns(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().computedColumns(kind)
    }

    @Test(arguments: StoreKind.all)
    func unsavedChangesTakePart(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().unsavedChangesTakePart(kind)
    }

    @Test(arguments: StoreKind.all)
    func unknownKeysAreNamedWithTheClosestOne(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().unknownKeysAreNamedWithTheClosestOne(kind)
    }

    @Test(arguments: StoreKind.all)
    func sortingByAggregatesThroughToMany(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().sortingByAggregatesThroughToMany(kind)
    }

    @Test(arguments: StoreKind.all)
    func objectsAsFaultsAndInBatches(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().objectsAsFaultsAndInBatches(kind)
    }

    @Test(arguments: StoreKind.all)
    func prefetchingThroughToMany(_ kind: StoreKind) throws {
        try DictionaryFetchChecks().prefetchingThroughToMany(kind)
    }
}
