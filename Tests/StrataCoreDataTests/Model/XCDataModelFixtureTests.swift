import Foundation
import Strata
import StrataCoreData
import Testing

/// Every model of `../shared/fixtures/coredata/models`, written by Xcode, imported and checked.
@Suite("Importing the shared Xcode model fixtures")
struct XCDataModelFixtureTests {
    static let modelFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: CoreDataFixtures.root.appendingPathComponent("models").path)) ?? []
        return names.filter { $0.hasSuffix(".xml") }.sorted()
    }()

    static func importFixture(_ name: String) throws -> ImportedModel {
        try XCDataModelImporter.importModel(at: CoreDataFixtures.model(name)).current
    }

    @Test("the fixtures are there: 19 model files")
    func fixturesArePresent() {
        #expect(Self.modelFiles.count == 19)
    }

    @Test("every fixture imports into a valid model whose JSON loads back equal", arguments: modelFiles)
    func everyFixtureImports(_ name: String) throws {
        let imported = try XCDataModelImporter.importModel(at: CoreDataFixtures.model(name))
        #expect(imported.versions.count == 1)
        #expect(!imported.isVersioned)
        let model = imported.current
        #expect(model.versionName == String(name.dropLast(4)))
        // The JSON is a model file like any other: it loads without errors, into an equal model.
        let reloaded = Schema.load(data: Data(model.jsonString.utf8), file: name)
        #expect(reloaded.diagnostics.errors.isEmpty)
        #expect(reloaded.schema == model.schema)
        // Every entity of the file is there, with its name exactly.
        let text = try String(contentsOf: CoreDataFixtures.model(name), encoding: .utf8)
        let entityNames = text.components(separatedBy: "<entity name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(model.schema.entities.map(\.name) == entityNames)
        // Every warning names the file and a line in it.
        for warning in model.warnings {
            #expect(warning.severity == .warning)
            #expect(warning.file == CoreDataFixtures.model(name).relativePath)
            #expect((warning.line ?? 0) > 0)
        }
    }

    // MARK: - Representative elements

    @Test("momcom: every scalar type with defaults, bounds, renaming id, version hash modifier, compound indexes, a configuration")
    func momcomModel() throws {
        let model = try Self.importFixture("atomicbird__momcom__momcTests_1.xml")
        #expect(model.schema.name == "Atomicbird__momcom__momcTests_1")
        #expect(model.schema.version == nil)

        let abstract = try model.entity("AbstractEntity")
        #expect(abstract.isAbstract)
        let entity = try model.entity("Entity")
        #expect(entity.parentName == "AbstractEntity")
        #expect(!entity.isAbstract)
        #expect(entity.renamingIdentifier == "myRenamingIdentifier")
        #expect(entity.versionHashModifier == "myVersionHashModifier")

        let date = try model.attribute("Entity.dateAttribute")
        #expect(date.type == .date)
        #expect(date.isOptional)
        #expect(date.defaultValue == .date(referenceDate(388_411_200)))
        #expect(date.minimum == .date(referenceDate(284_000_400)))
        #expect(date.maximum == .date(referenceDate(602_395_200)))
        #expect(ISO8601.string(from: referenceDate(388_411_200)) == "2013-04-23T12:00:00.000Z")

        let decimal = try model.attribute("Entity.decimalAttribute")
        #expect(decimal.type == .decimal)
        #expect(decimal.defaultValue == .decimal(0))
        #expect(decimal.minimum == .decimal(Decimal(string: "-4.5")!))
        #expect(decimal.maximum == .decimal(Decimal(string: "4.5")!))

        let double = try model.attribute("Entity.doubleAttribute")
        #expect(double.type == .double)
        #expect(double.defaultValue == .double(0))
        #expect(double.minimum == .double(-3.5))
        #expect(double.maximum == .double(3.5))

        let float = try model.attribute("Entity.floatAttribute")
        #expect(float.type == .float)
        #expect(float.minimum == .float(-2.5))
        #expect(float.maximum == .float(2.5))

        for (name, type, bound) in [("int16Attribute", AttributeType.int16, 3), ("int32Attribute", .int32, 11), ("int64Attribute", .int64, 12)] {
            let attribute = try model.attribute("Entity.\(name)")
            #expect(attribute.type == type)
            #expect(attribute.defaultValue == .integer(0))
            #expect(attribute.minimum == .integer(name == "int16Attribute" ? -3 : Int64(-bound)))
            #expect(attribute.maximum == .integer(name == "int16Attribute" ? 9 : Int64(bound)))
        }

        let binary = try model.attribute("Entity.binaryAttribute")
        #expect(binary.type == .binary)
        #expect(binary.isTransient)
        #expect(try model.attribute("Entity.booleanAttribute").type == .bool)
        #expect(try model.attribute("Entity.stringAttribute").type == .string)
        let transformable = try model.attribute("Entity.transformableAttribute")
        #expect(transformable.type == .transformable)
        #expect(transformable.transformerName == "myValueTransformer")

        // An optional to-many with minCount 1 (Core Data: empty, or at least 1): no lower bound.
        let others = try model.relationship("Entity.otherEntities")
        #expect(others.isToMany)
        #expect(others.destination == "OtherEntity")
        #expect(others.inverse == "mainEntity")
        #expect(others.minCount == 0)
        #expect(others.maxCount == 9)
        #expect(others.deleteRule == .nullify)
        let main = try model.relationship("OtherEntity.mainEntity")
        #expect(!main.isToMany)
        #expect(main.isOptional)
        #expect(main.inverse == "otherEntities")

        #expect(entity.indexes == [
            IndexDescription(name: "Entity_booleanAttribute_dateAttribute", elements: [.init(property: "booleanAttribute"), .init(property: "dateAttribute")]),
            IndexDescription(name: "Entity_decimalAttribute_doubleAttribute", elements: [.init(property: "decimalAttribute"), .init(property: "doubleAttribute")]),
        ])
        #expect(model.schema.configurations == [ConfigurationDescription(name: "UnrelatedConfiguration", entityNames: ["UnrelatedEntity"])])

        #expect(model.warningCodes == [
            "modelRenamed", "unsupportedSetting", "unsupportedSetting", "userInfo", "fetchedProperty", "userInfo", "fetchRequestTemplate",
        ])
        let fetched = try #require(model.warnings.first { $0.code == "fetchedProperty" })
        #expect(fetched.message == "fetched property 'Entity.yesBooleans' (a fetch of Entity where booleanAttribute = YES) is not imported: Strata has no fetched properties; run the fetch in code")
        #expect(fetched.line == 23)
        #expect(fetched.path == "entities[1]")
        let request = try #require(model.warnings.first { $0.code == "fetchRequestTemplate" })
        #expect(request.message.hasPrefix("fetch request template 'FetchRequest' of entity 'Entity' where booleanAttribute == 1 AND floatAttribute > 5 is not imported"))
        #expect(request.line == 46)
        let userInfo = model.warnings.filter { $0.code == "userInfo" }.map(\.message)
        #expect(userInfo == [
            "the user info of attribute 'Entity.binaryAttribute' (\"binaryBar\", \"binaryBaz\", \"binaryFoo\") is not imported: Strata models hold no user info",
            "the user info of entity 'Entity' (\"someKey\") is not imported: Strata models hold no user info",
        ])
    }

    @Test("CoreDataPlus v1: Transformable with its transformer, UUID, transient, uniqueness constraints, inheritance, version")
    func sampleModelVersion1() throws {
        let model = try Self.importFixture("alemar11__CoreDataPlus__SampleModel_v1.xml")
        #expect(model.schema.version == "1")
        let color = try model.attribute("Car.color")
        #expect(color.type == .transformable)
        #expect(color.transformerName == "ColorTransformer")
        #expect(color.isOptional)
        let speed = try model.attribute("Car.currentDrivingSpeed")
        #expect(speed.type == .int64)
        #expect(speed.isTransient)
        #expect(speed.defaultValue == .integer(0))
        let plate = try model.attribute("Car.numberPlate")
        #expect(plate.type == .string)
        #expect(!plate.isOptional)
        #expect(try model.entity("Car").uniquenessConstraints == [["numberPlate"]])
        #expect(try model.entity("Person").uniquenessConstraints == [["firstName", "lastName"]])
        let id = try model.attribute("Person.id")
        #expect(id.type == .uuid)
        #expect(!id.isOptional)
        let driving = try model.attribute("Person.isDriving")
        #expect(driving.isTransient)
        #expect(driving.defaultValue == .bool(false))
        #expect(try model.entity("SportCar").parentName == "Car")
        let expensive = try model.entity("ExpensiveSportCar")
        #expect(expensive.parentName == "SportCar")
        #expect(expensive.ancestorNames == ["SportCar", "Car"])
        #expect(expensive.attribute(named: "numberPlate") != nil)
        let owner = try model.relationship("Car.owner")
        #expect(owner.destination == "Person")
        #expect(owner.inverse == "cars")
        #expect(owner.isOptional)
        #expect(try model.relationship("Person.cars").isToMany)
        #expect(model.warningCodes == ["modelRenamed", "unsupportedSetting"])
        #expect(model.warnings[1].message == "attribute 'Person.id': preserving the value in persistent history after deletion (preserveAfterDeletion=\"YES\") is not imported: Strata has no such setting")
    }

    @Test("CoreDataPlus v2 and v3: a fetch index keeps its name; elementID becomes the renaming identifier")
    func sampleModelVersions2And3() throws {
        let v2 = try Self.importFixture("alemar11__CoreDataPlus__SampleModel_v2.xml")
        #expect(v2.schema.version == "2")
        #expect(try v2.entity("Car").indexes == [
            IndexDescription(name: "byMakerAndNumberPlate", elements: [.init(property: "maker"), .init(property: "numberPlate")]),
        ])
        let luxury = try v2.entity("LuxuryCar")
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(luxury.parentName == "SportCar")
        let v3 = try Self.importFixture("alemar11__CoreDataPlus__SampleModel_v3.xml")
        #expect(v3.schema.version == "3")
        #expect(try v3.relationship("Person.previousCars").inverse == "previousOwners")
        #expect(try v3.entity("Maker").uniquenessConstraints == [["name"]])
    }

    @Test("Moody (deny): delete rules, a required to-many needs one object, an abstract parent, an indexed date")
    func moodyDeny() throws {
        let model = try Self.importFixture("objcio__core-data__Chapter-1.2-Moody-deny.xml")
        let countries = try model.relationship("Continent.countries")
        #expect(countries.deleteRule == .deny)
        #expect(countries.isToMany)
        #expect(countries.minCount == 1)
        #expect(countries.maxCount == 0)
        let moods = try model.relationship("Country.moods")
        #expect(moods.deleteRule == .deny)
        #expect(moods.minCount == 1)
        let country = try model.relationship("Mood.country")
        #expect(!country.isOptional)
        #expect(country.deleteRule == .nullify)
        let region = try model.entity("Region")
        #expect(region.isAbstract)
        #expect(region.subentityNames == ["Continent", "Country"])
        #expect(try model.attribute("Country.numericISO3166Code").type == .int16)
        let date = try model.attribute("Mood.date")
        #expect(date.isIndexed)
        #expect(!date.isOptional)
        #expect(try model.attribute("Mood.colors").transformerName == "ColorsTransformer")
        #expect(try model.attribute("Mood.latitude").defaultValue == .double(0))
        #expect(model.warningCodes == ["modelRenamed"])
    }

    @Test("Moody app: a three-property compound index and a two-property uniqueness constraint")
    func moodyApp() throws {
        let model = try Self.importFixture("objcio__core-data__MoodyApp_MoodyModel.xml")
        #expect(try model.entity("Mood").indexes == [
            IndexDescription(name: "Mood_markedForRemoteDeletion_markedForDeletionDate_date", elements: [
                .init(property: "markedForRemoteDeletion"), .init(property: "markedForDeletionDate"), .init(property: "date"),
            ]),
        ])
        let region = try model.entity("Region")
        #expect(region.indexes.map(\.name) == ["Region_markedForDeletionDate_updatedAt"])
        #expect(region.uniquenessConstraints == [["numericISO3166Code", "uniquenessDummy"]])
        #expect(try model.attribute("Mood.markedForRemoteDeletion").defaultValue == .bool(false))
        #expect(try model.attribute("Continent.numberOfCountries").defaultValue == .integer(0))
        #expect(try model.relationship("Continent.countries").deleteRule == .nullify)
    }

    @Test("Sync: ordered many-to-many on both sides")
    func orderedManyToMany() throws {
        let model = try Self.importFixture("3lvis__Sync__151-ordered-many-to-many.xml")
        let tags = try model.relationship("Note.tags")
        #expect(tags.isToMany && tags.isOrdered)
        #expect(tags.inverse == "notes")
        let notes = try model.relationship("Tag.notes")
        #expect(notes.isToMany && notes.isOrdered)
        #expect(try model.attribute("Note.id").type == .int32)
        #expect(try !model.attribute("Note.id").isOptional)
    }

    @Test("Sync PropertyMapper: every attribute type, a cascade, the default transformer, user info")
    func allTypes() throws {
        let model = try Self.importFixture("3lvis__Sync__PropertyMapper-Model-alltypes.xml")
        let types = try model.entity("Attribute").attributes.map { "\($0.name):\($0.type.rawValue)" }
        #expect(types == [
            "attributeType:string", "binaryData:binary", "boolean:bool", "customTransformerString:string", "decimal:decimal",
            "decimalString:decimal", "doubleValue:double", "doubleValueString:double", "floatValue:float", "floatValueString:float",
            "integer16:int16", "integer32:int32", "integer64:int64", "integerString:int16", "string:string",
            "transformable:transformable", "uri:uri", "uuid:uuid",
        ])
        #expect(try model.attribute("Attribute.transformable").transformerName == "NSKeyedUnarchiveFromData")
        #expect(try model.relationship("Apartment.rooms").deleteRule == .cascade)
        #expect(try model.relationship("Recursive.recursives").inverse == "recursive")
        let transformerWarning = try #require(model.warnings.first { $0.code == "defaultTransformer" })
        #expect(transformerWarning.message == "transformable attribute 'Attribute.transformable' names no value transformer; imported with 'NSKeyedUnarchiveFromData', the one Core Data uses then: register a transformer of that name")
        #expect(transformerWarning.path == "entities[1].attributes[15]")
        #expect(model.warningCodes.filter { $0 == "userInfo" }.count == 11)
    }

    @Test("mogenerator: relationships without inverse warn, an indexed to-one becomes an index, five fetch request templates")
    func mogenerator() throws {
        let model = try Self.importFixture("rentzsch__mogenerator__test.xml")
        #expect(try model.entity("Child").indexes == [IndexDescription(name: "Child_parent", elements: [.init(property: "parent")])])
        #expect(try model.attribute("Human.age").minimum == .integer(0))
        let ordered = try model.relationship("Parent.orderedChildren")
        #expect(ordered.isOrdered && ordered.deleteRule == .cascade && ordered.inverse == "parent")
        #expect(try model.relationship("Parent.children").inverse == nil)
        #expect(model.warningCodes.filter { $0 == "fetchRequestTemplate" }.count == 5)
        let missing = model.warnings.filter { $0.code == "missingInverse" }
        #expect(missing.map(\.path) == ["entities[6].relationships[0]", "entities[7].relationships[0]"])
        #expect(missing.map(\.line) == [35, 55])
        #expect(missing[0].message.hasPrefix("relationship 'Human.meaninglessRelationship' has no inverse"))
    }

    @Test("CoreDataMigrationSample: userDefinedModelVersionIdentifier becomes the version; an empty one none")
    func versionIdentifiers() throws {
        #expect(try Self.importFixture("objective-audio__CoreDataMigrationSample__Model.xml").schema.version == nil)
        #expect(try Self.importFixture("objective-audio__CoreDataMigrationSample__Model_1.xml").schema.version == "v1")
        #expect(try Self.importFixture("objective-audio__CoreDataMigrationSample__Model_2.xml").schema.version == "v2")
    }

    @Test("Sync notes: user info on a relationship is reported on its line")
    func relationshipUserInfo() throws {
        let model = try Self.importFixture("3lvis__Sync__Notes-many-to-many.xml")
        let warning = try #require(model.warnings.first { $0.code == "userInfo" })
        #expect(warning.description.hasSuffix("3lvis__Sync__Notes-many-to-many.xml:21:13: warning: the user info of relationship 'SuperUser.superNotes' (\"sync.remoteKey\") is not imported: Strata models hold no user info [entities[2].relationships[0]]"))
        #expect(try model.relationship("SuperNote.superUser").inverse == "superNotes")
    }
}
