import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct RelationshipTests {
    @Test(arguments: StoreKind.all)
    func oneToOne(_ kind: StoreKind) throws {
        try RelationshipChecks().oneToOne(kind)
    }

    @Test(arguments: StoreKind.all)
    func oneToMany(_ kind: StoreKind) throws {
        try RelationshipChecks().oneToMany(kind)
    }

    @Test(arguments: StoreKind.all)
    func manyToMany(_ kind: StoreKind) throws {
        try RelationshipChecks().manyToMany(kind)
    }

    @Test(arguments: StoreKind.all)
    func orderedToManyKeepsAndReordersItsMembers(_ kind: StoreKind) throws {
        try RelationshipChecks().orderedToManyKeepsAndReordersItsMembers(kind)
    }

    @Test(arguments: StoreKind.all)
    func selfInverseToMany(_ kind: StoreKind) throws {
        try RelationshipChecks().selfInverseToMany(kind)
    }

    @Test(arguments: StoreKind.all)
    func toOneWithoutInverse(_ kind: StoreKind) throws {
        try RelationshipChecks().toOneWithoutInverse(kind)
    }

    @Test(arguments: StoreKind.all)
    func committedValuesOfAReadObjectHoldItsSavedMembers(_ kind: StoreKind) throws {
        try RelationshipChecks().committedValuesOfAReadObjectHoldItsSavedMembers(kind)
    }
}
