import Foundation
import Strata
import StrataCoreData
import Testing

/// Small model files written here for what the fixtures lack.
@Suite("Translating Xcode model elements")
struct XCDataModelTranslatorTests {
    // MARK: - Attributes

    @Test("UUID and URI attributes with defaults; a string's lengths and regular expression; external storage")
    func uuidURIAndStrings() throws {
        let model = try importText(modelXML("""
            <entity name="Item" representedClassName="Item" syncable="YES" codeGenerationType="class">
                <attribute name="identifier" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F" usesScalarValueType="NO"/>
                <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.com/a"/>
                <attribute name="code" attributeType="String" minValueString="2" maxValueString="8" regularExpressionString="[A-Z]+" defaultValueString="AB"/>
                <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="blob" optional="YES" attributeType="Transformable" valueTransformerName="BlobTransformer" allowsExternalBinaryDataStorage="YES" customClassName="Blob"/>
            </entity>
            """, version: "7"))
        #expect(model.schema.version == "7")
        let identifier = try model.attribute("Item.identifier")
        #expect(identifier.type == .uuid)
        #expect(identifier.defaultValue == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        let link = try model.attribute("Item.link")
        #expect(link.type == .uri)
        #expect(link.defaultValue == .uri(URL(string: "https://example.com/a")!))
        let code = try model.attribute("Item.code")
        #expect(code.minLength == 2)
        #expect(code.maxLength == 8)
        #expect(code.regex == "[A-Z]+")
        #expect(code.defaultValue == .string("AB"))
        #expect(try model.attribute("Item.photo").allowsExternalStorage)
        let blob = try model.attribute("Item.blob")
        #expect(blob.transformerName == "BlobTransformer")
        #expect(blob.allowsExternalStorage)
        // Code generation settings are ignored silently.
        #expect(model.warnings.isEmpty)
    }

    @Test("defaults without defaultDateTimeInterval, Booleans, integer bounds, renaming ids and hash modifiers on properties")
    func valuesAndIdentifiers() throws {
        let model = try importText(modelXML("""
            <entity name="Event">
                <attribute name="startsAt" attributeType="Date" defaultValueString="2024-05-01 10:00:00 +0000" minValueString="2000-01-01 00:00"/>
                <attribute name="active" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="ratio" attributeType="Float" defaultValueString=".5"/>
                <attribute name="level" attributeType="Integer 16" minValueString="1" maxValueString="5" defaultValueString="3" elementID="grade" versionHashModifier="2"/>
                <relationship name="host" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Host" inverseName="events" inverseEntity="Host" elementID="owner"/>
            </entity>
            <entity name="Host">
                <relationship name="events" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Event" inverseName="host" inverseEntity="Event"/>
            </entity>
            """))
        #expect(try model.attribute("Event.startsAt").defaultValue == .date(ISO8601.date(from: "2024-05-01T10:00:00Z")!))
        #expect(try model.attribute("Event.startsAt").minimum == .date(ISO8601.date(from: "2000-01-01T00:00:00Z")!))
        #expect(try model.attribute("Event.active").defaultValue == .bool(true))
        #expect(try model.attribute("Event.ratio").defaultValue == .float(0.5))
        let level = try model.attribute("Event.level")
        #expect(level.minimum == .integer(1) && level.maximum == .integer(5) && level.defaultValue == .integer(3))
        #expect(level.renamingIdentifier == "grade")
        #expect(level.versionHashModifier == "2")
        let host = try model.relationship("Event.host")
        #expect(host.deleteRule == .noAction)
        #expect(host.renamingIdentifier == "owner")
        #expect(try model.relationship("Host.events").deleteRule == .cascade)
        #expect(model.warnings.isEmpty)
    }

    @Test("derived and composite attributes, Transformable without a transformer, Undefined transients: warnings naming each")
    func attributesWithoutAPlace() throws {
        let model = try importText(modelXML("""
            <entity name="Person">
                <attribute name="firstName" attributeType="String"/>
                <attribute name="fullName" optional="YES" attributeType="String" derived="YES" derivationExpression="firstName"/>
                <attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>
                <attribute name="photo" optional="YES" attributeType="Transformable"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
            </entity>
            <composite name="Address">
                <attribute name="city" optional="YES" attributeType="String"/>
            </composite>
            """))
        #expect(try model.entity("Person").attributes.map(\.name) == ["firstName", "fullName", "photo"])
        #expect(try model.attribute("Person.fullName").type == .string)
        #expect(try model.attribute("Person.photo").transformerName == "NSKeyedUnarchiveFromData")
        #expect(model.warningCodes == ["derivedAttribute", "compositeAttribute", "defaultTransformer", "transientType", "compositeAttribute"])
        #expect(model.warnings.map(\.message) == [
            "attribute 'Person.fullName' is derived in Core Data (firstName); Strata imports it as an ordinary stored attribute, which nothing computes",
            "attribute 'Person.home' is not imported: it is a composite attribute, and Strata has no composite attributes; model its fields as attributes",
            "transformable attribute 'Person.photo' names no value transformer; imported with 'NSKeyedUnarchiveFromData', the one Core Data uses then: register a transformer of that name",
            "transient attribute 'Person.scratch' is not imported: Strata has no Undefined type (it held values in memory only)",
            "composite attribute type 'Address' is not imported: Strata has no composite attributes; model its fields as attributes of the entities that use it",
        ])
        #expect(model.warnings.map(\.line) == [5, 6, 7, 8, 10])
        #expect(model.warnings.map(\.path) == ["entities[0].attributes[1]", "entities[0]", "entities[0].attributes[2]", "entities[0]", ""])
    }

    @Test("a default that breaks the attribute's own rule is left out with a warning")
    func defaultBreakingItsRule() throws {
        let model = try importText(modelXML("""
            <entity name="Box"><attribute name="size" attributeType="Integer 32" minValueString="1" defaultValueString="0"/></entity>
            """))
        let size = try model.attribute("Box.size")
        #expect(size.defaultValue == nil)
        #expect(size.minimum == .integer(1))
        #expect(model.warningCodes == ["defaultDropped"])
        #expect(model.warnings[0].message == "attribute 'Box.size': the default 0 is not imported: it breaks the attribute's own rule (0 is below the minimum 1), which a Strata model does not allow")
    }

    // MARK: - Indexes

    @Test("fetch indexes: compound, descending, an expression element left out, R-tree as ordinary, names unique in the model")
    func fetchIndexes() throws {
        let model = try importText(modelXML("""
            <entity name="Place">
                <attribute name="latitude" attributeType="Double" defaultValueString="0.0"/>
                <attribute name="longitude" attributeType="Double" defaultValueString="0.0"/>
                <attribute name="name" attributeType="String"/>
                <fetchIndex name="byName">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                    <fetchIndexElement property="latitude" type="Binary" order="descending"/>
                    <fetchIndexElement expression="name.length" expressionType="Integer 64" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byLocation">
                    <fetchIndexElement property="latitude" type="RTree"/>
                    <fetchIndexElement property="longitude" type="RTree"/>
                </fetchIndex>
            </entity>
            <entity name="Person">
                <attribute name="name" attributeType="String"/>
                <fetchIndex name="byName">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byExpression">
                    <fetchIndexElement expression="name.length" expressionType="Integer 64" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """))
        #expect(try model.entity("Place").indexes == [
            IndexDescription(name: "byName", elements: [.init(property: "name"), .init(property: "latitude", order: .descending)]),
            IndexDescription(name: "byLocation", elements: [.init(property: "latitude"), .init(property: "longitude")]),
        ])
        #expect(try model.entity("Person").indexes == [IndexDescription(name: "Person_name", elements: [.init(property: "name")])])
        #expect(model.warningCodes == ["expressionIndex", "indexType", "indexType", "indexRenamed", "expressionIndex", "emptyIndex"])
        #expect(model.warnings[3].message == "fetch index 'byName' of entity 'Person' is named 'Person_name': Strata index names are unique in a model and use only ASCII letters, digits and '_'")
        #expect(model.warnings[5].message == "fetch index 'byExpression' of entity 'Person' is not imported: no element of it names a property")
    }

    // MARK: - Relationships

    @Test("to-many counts: a required to-many needs one; an optional one with a minimum above 1 loses it, with a warning")
    func toManyCounts() throws {
        let model = try importText(modelXML("""
            <entity name="Team">
                <relationship name="members" toMany="YES" maxCount="11" deletionRule="Deny" destinationEntity="Player" inverseName="team" inverseEntity="Player"/>
                <relationship name="coaches" optional="YES" toMany="YES" minCount="2" deletionRule="Nullify" destinationEntity="Coach" inverseName="team" inverseEntity="Coach"/>
            </entity>
            <entity name="Player">
                <relationship name="team" maxCount="1" deletionRule="Nullify" destinationEntity="Team" inverseName="members" inverseEntity="Team"/>
            </entity>
            <entity name="Coach">
                <relationship name="team" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Team" inverseName="coaches" inverseEntity="Team"/>
            </entity>
            """))
        let members = try model.relationship("Team.members")
        #expect(members.minCount == 1 && members.maxCount == 11 && members.deleteRule == .deny)
        let coaches = try model.relationship("Team.coaches")
        #expect(coaches.minCount == 0 && coaches.maxCount == 0)
        #expect(try !model.relationship("Player.team").isOptional)
        #expect(try model.relationship("Coach.team").isOptional)
        #expect(model.warningCodes == ["minCountDropped"])
    }

    @Test("a transient relationship is left out, and the inverse that names it")
    func transientRelationship() throws {
        let model = try importText(modelXML("""
            <entity name="Doc">
                <relationship name="viewers" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="User" inverseName="viewing" inverseEntity="User"/>
            </entity>
            <entity name="User">
                <relationship name="viewing" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Doc" inverseName="viewers" inverseEntity="Doc"/>
            </entity>
            """))
        #expect(try model.entity("Doc").relationships.isEmpty)
        #expect(try model.relationship("User.viewing").inverse == nil)
        #expect(model.warningCodes == ["transientRelationship", "missingInverse"])
    }

    // MARK: - Other elements

    @Test("unknown elements and settings, user info, CloudKit configurations: warnings, nothing dropped silently")
    func unknownThings() throws {
        let model = try importText(modelXML("""
            <entity name="Note" futureFlag="YES">
                <attribute name="text" attributeType="String" spotlightIndexingEnabled="YES" someNewSetting="1"/>
                <shinyNewThing/>
                <userInfo><entry key="k" value="v"/></userInfo>
            </entity>
            <configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Note"/></configuration>
            <somethingElse/>
            <elements><element name="Note" positionX="0" positionY="0" width="128" height="44"/></elements>
            """))
        #expect(model.schema.configurations == [ConfigurationDescription(name: "Cloud", entityNames: ["Note"])])
        #expect(model.warningCodes == ["unknownSetting", "unsupportedSetting", "unknownSetting", "unknownElement", "userInfo", "cloudKit", "unknownElement"])
        #expect(model.warnings[0].message == "entity 'Note': futureFlag=\"YES\" is not imported: Strata has no such setting")
        #expect(model.warnings[3].message == "<shinyNewThing> in entity 'Note' is not imported: Strata does not know it")
        #expect(model.warnings[6].message == "<somethingElse> in <model> is not imported: Strata does not know it")
    }

    @Test("<model name> names the model; text and XML escapes are read exactly")
    func modelNameAndEscapes() throws {
        let model = try importText("""
            <?xml version="1.0" encoding="UTF-8"?>
            <model name="Shop">
                <entity name="Item">
                    <attribute name="label" attributeType="String" defaultValueString="Tom &amp; Jerry &quot;&lt;3&quot; &#233;"/>
                </entity>
            </model>
            """)
        #expect(model.schema.name == "Shop")
        #expect(try model.attribute("Item.label").defaultValue == .string("Tom & Jerry \"<3\" é"))
    }

    // MARK: - Errors

    @Test("files that are not models, and values a Strata model cannot represent, fail naming the file, line and element", arguments: [
        ("not XML at all", "{\"name\": \"Shop\"}", "notAModel", 1,
         "malformed XML: Start tag expected, '<' not found; an Xcode model file is XML"),
        ("another XML document", "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>", "notAModel", 2,
         "the root element is <plist>, expected <model>: this is not an Xcode data model (the 'contents' file of a .xcdatamodel)"),
        ("a DOCTYPE declaring an entity", "<?xml version=\"1.0\"?>\n<!DOCTYPE model [<!ENTITY a \"aaaa\">]>\n<model/>", "notAModel", 2,
         "the file has a document type declaration (<!DOCTYPE …>); Xcode model files have none, and it is refused because entity declarations could expand without bound or read other files"),
        ("a DOCTYPE naming an external DTD", "<?xml version=\"1.0\"?>\n<!DOCTYPE model SYSTEM \"http://example.com/model.dtd\">\n<model/>", "notAModel", 2,
         "the file has a document type declaration (<!DOCTYPE …>); Xcode model files have none, and it is refused because entity declarations could expand without bound or read other files"),
        ("a relationship to an unknown entity",
         modelXML("<entity name=\"Note\">\n<relationship name=\"author\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Autor\"/>\n</entity>\n<entity name=\"Author\"/>"),
         "unknownEntity", 4, "relationship 'Note.author': destination entity 'Autor' does not exist; did you mean 'Author'?"),
        ("an unknown attribute type", modelXML("<entity name=\"Note\"><attribute name=\"x\" attributeType=\"Integer 128\"/></entity>"), "unknownType", 3,
         "attribute 'Note.x' has attributeType \"Integer 128\", which Strata cannot represent; Strata's types are those of Core Data: Integer 16/32/64, Decimal, Double, Float, String, Boolean, Date, Binary, UUID, URI, Transformable"),
        ("a default out of the type's range", modelXML("<entity name=\"Note\"><attribute name=\"x\" attributeType=\"Integer 16\" defaultValueString=\"70000\"/></entity>"), "invalidValue", 3,
         "attribute 'Note.x': defaultValueString=\"70000\" cannot be represented as a Strata int16: expected an int16 (a whole number from -32768 to 32767), found 70000"),
        ("an unknown delete rule", modelXML("<entity name=\"Note\"><relationship name=\"next\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Explode\" destinationEntity=\"Note\"/></entity>"), "invalidValue", 3,
         "relationship 'Note.next' has deletionRule \"Explode\", which Strata cannot represent; use Nullify, Cascade, Deny or No Action"),
        ("a name Strata reserves", modelXML("<entity name=\"Note\"><attribute name=\"description\" optional=\"YES\" attributeType=\"String\"/></entity>"), "reservedName", 3,
         "attribute 'Note.description': 'description' is reserved: it would clash with the managed-object API; choose another name, like 'descriptionValue' or 'itemDescription'"),
    ])
    func errors(_ what: String, _ text: String, _ code: String, _ line: Int, _ message: String) throws {
        let error = try importError(text)
        #expect(error.code == .invalidSchema, "\(what)")
        let diagnostic = try #require(error.diagnostics.errors.first, "\(what)")
        #expect(diagnostic.code == code, "\(what)")
        #expect(diagnostic.file == "Test.xcdatamodel/contents", "\(what)")
        #expect(diagnostic.line == line, "\(what)")
        #expect(diagnostic.message == message, "\(what)")
    }
}
