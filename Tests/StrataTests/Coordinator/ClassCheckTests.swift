import Foundation
@testable import Strata
import Testing

/// Classes checked against their model when a container or coordinator is given them: each
/// mismatch is named with the class, the property as declared and the model's definition.
@Suite struct ClassCheckTests {
    static let schema = try! Schema(data: Data("""
        {
          "name": "Shelf",
          "entities": [
            { "name": "Work", "abstract": true,
              "attributes": [ { "name": "title", "type": "string" } ] },
            { "name": "Novel", "parent": "Work",
              "attributes": [
                { "name": "year",  "type": "int16", "optional": true },
                { "name": "pages", "type": "int32", "optional": true, "default": 0 },
                { "name": "price", "type": "decimal", "optional": true },
                { "name": "cover", "type": "transformable", "transformer": "Cover", "optional": true }
              ],
              "relationships": [
                { "name": "writer",   "destination": "Writer",  "inverse": "novels", "optional": true },
                { "name": "chapters", "destination": "Part",    "inverse": "novel",  "toMany": true, "ordered": true }
              ] },
            { "name": "Writer",
              "attributes": [ { "name": "name", "type": "string" } ],
              "relationships": [ { "name": "novels", "destination": "Novel", "inverse": "writer", "toMany": true } ] },
            { "name": "Part",
              "attributes": [ { "name": "number", "type": "int64" } ],
              "relationships": [ { "name": "novel", "destination": "Novel", "inverse": "chapters", "optional": true } ] }
          ]
        }
        """.utf8))

    final class Work: ManagedObject {
        override class var entityName: String { "Work" }
        @Attribute("title") var title: String
    }

    /// Every property fits: wider integers, optionals for required attributes, a non-optional
    /// for an optional attribute with a default, any type for a transformable, a parent class
    /// as a destination.
    class Novel: ManagedObject {
        override class var entityName: String { "Novel" }
        @Attribute("title") var title: String?
        @Attribute("year") var year: Int?
        @Attribute("pages") var pages: Int32
        @Attribute("price") var price: Decimal?
        @Attribute("cover") var cover: [String]?
        @Relationship("writer") var writer: Writer?
        @ToMany("chapters") var chapters: [ManagedObject]
    }

    final class Writer: ManagedObject {
        override class var entityName: String { "Writer" }
        @Attribute("name") var name: String
        @ToMany("novels") var novels: Set<Novel>
    }

    final class Misspelt: ManagedObject {
        override class var entityName: String { "Writer" }
        @Attribute("nmae") var name: String
    }

    final class WrongTypes: ManagedObject {
        override class var entityName: String { "Novel" }
        @Attribute("year") var year: String?
        @Attribute("price") var price: Int?
        @Attribute("title") var title: Int16?
    }

    final class NotOptional: ManagedObject {
        override class var entityName: String { "Novel" }
        @Attribute("year") var year: Int16
    }

    final class WrongShapes: ManagedObject {
        override class var entityName: String { "Novel" }
        @ToMany("chapters") var chapters: Set<ManagedObject>
        @Relationship("title") var title: Writer?
        @Attribute("writer") var writer: String?
    }

    final class WrongDestination: ManagedObject {
        override class var entityName: String { "Part" }
        @Relationship("novel") var novel: Writer?
    }

    final class Unknown: ManagedObject {
        override class var entityName: String { "Noval" }
    }

    final class Part: Novel {
        override class var entityName: String { "Part" }
    }

    @Test func classesThatFitPass() throws {
        try PersistentStoreCoordinator.checkClasses([Work.self, Novel.self, Writer.self], against: Self.schema)
        let container = try PersistentContainer(schema: Self.schema, classes: [Novel.self, Writer.self])
        #expect(container.coordinator.objectClass(for: "Novel") == Novel.self)
    }

    static func problems(_ type: ManagedObject.Type) -> [String] {
        ClassCheck.problems(of: type, in: schema)
    }

    @Test func aMisspeltKeyIsNamedWithTheClosestProperty() {
        #expect(Self.problems(Misspelt.self) == [
            "Misspelt.name (@Attribute(\"nmae\") String): the entity 'Writer' of the model 'Shelf' has no property 'nmae'; did you mean 'name'?",
        ])
    }

    @Test func aTypeThatCannotHoldTheValuesIsNamedWithTheModelsDefinition() {
        #expect(Self.problems(WrongTypes.self) == [
            "WrongTypes.year (@Attribute(\"year\") String?): String cannot hold its values; the model 'Shelf' defines Novel.year as an int16 attribute, optional",
            "WrongTypes.price (@Attribute(\"price\") Int?): Int cannot hold its values; the model 'Shelf' defines Novel.price as a decimal attribute, optional",
            "WrongTypes.title (@Attribute(\"title\") Int16?): Int16 cannot hold its values; the model 'Shelf' defines Novel.title as a string attribute, required",
        ])
    }

    @Test func aNonOptionalPropertyForAnOptionalAttributeWithoutADefault() {
        #expect(Self.problems(NotOptional.self) == [
            "NotOptional.year (@Attribute(\"year\") Int16): a non-optional Int16 cannot hold the nil of an optional attribute without a default; declare it Int16? (the model 'Shelf' defines Novel.year as an int16 attribute, optional)",
        ])
    }

    @Test func wrappersOfTheWrongKindOfProperty() {
        #expect(Self.problems(WrongShapes.self) == [
            "WrongShapes.chapters (@ToMany(\"chapters\") Set<ManagedObject>): a Set for an ordered relationship; declare it [ManagedObject] (the model 'Shelf' defines Novel.chapters as a to-many relationship to Part, ordered)",
            "WrongShapes.title (@Relationship(\"title\") Writer?): @Relationship is for to-one relationships; the model 'Shelf' defines Novel.title as a string attribute, required, for @Attribute",
            "WrongShapes.writer (@Attribute(\"writer\") String?): @Attribute is for attributes; the model 'Shelf' defines Novel.writer as a to-one relationship to Writer, for @Relationship",
        ])
    }

    @Test func aDestinationClassOfAnotherEntity() {
        #expect(Self.problems(WrongDestination.self) == [
            "WrongDestination.novel (@Relationship(\"novel\") Writer?): Writer is bound to the entity 'Writer', which is not 'Novel' or one of its ancestors; the model 'Shelf' defines Part.novel as a to-one relationship to Novel",
        ])
    }

    @Test func anUnknownEntityAndASuperclassThatIsNoAncestor() {
        #expect(Self.problems(Unknown.self) == ["Unknown.entityName is 'Noval', which the model 'Shelf' does not have; did you mean 'Novel'?"])
        let part = Self.problems(Part.self)
        #expect(part.first == "Part (entity 'Part') is a subclass of Novel (entity 'Novel'), which is not an ancestor of 'Part' in the model 'Shelf' ('Part' has no parent)")
    }

    @Test func aContainerRefusesClassesThatDoNotFitWithEveryProblem() {
        #expect {
            _ = try PersistentContainer(schema: Self.schema, classes: [Writer.self, Misspelt.self, NotOptional.self])
        } throws: { error in
            guard let error = error as? StrataError, error.code == .classMismatch else { return false }
            let lines = error.message.components(separatedBy: "\n")
            return lines.count == 3 && lines[0] == "classes do not fit the model 'Shelf':"
                && lines[1].hasPrefix("  Misspelt.name (@Attribute(\"nmae\") String): ")
                && lines[2].hasPrefix("  NotOptional.year (@Attribute(\"year\") Int16): ")
        }
    }
}
