import Foundation
import Strata
import StrataBinaryPlist
@testable import StrataCoreData
import StrataSQLite
import StrataXML
import Testing

@Suite("Core Data XML store")
struct CoreDataXMLStoreTests {
    static let fixtures = [
        "alemar11__CoreDataPlus__V2toV3.xcmapping.xml",
        "objective-audio__CoreDataMigrationSample__Model1-2.xcmapping.xml",
    ]

    static let registry = StoreTypeRegistry([SQLiteStoreFactory(), XMLStoreFactory(), BinaryPlistStoreFactory(), CoreDataXMLStoreFactory()])

    /// A model of the objective-audio mapping model written by hand, with the names in their
    /// own case and `entityMappings` ordered.
    static let mappingModel = """
        {"name": "XDDevMapping", "entities": [
          {"name": "XDDevAttributeMapping",
           "attributes": [{"name": "name", "type": "string", "optional": true}],
           "relationships": [{"name": "entityMapping", "destination": "XDDevEntityMapping", "inverse": "attributeMappings", "optional": true}]},
          {"name": "XDDevEntityMapping",
           "attributes": [
             {"name": "sourceName", "type": "string", "optional": true},
             {"name": "mappingTypeName", "type": "string", "optional": true},
             {"name": "mappingNumber", "type": "int16", "optional": true},
             {"name": "destinationName", "type": "string", "optional": true},
             {"name": "autoGenerateExpression", "type": "bool", "optional": true},
             {"name": "migrationPolicyClassName", "type": "string", "optional": true}],
           "relationships": [
             {"name": "mappingModel", "destination": "XDDevMappingModel", "inverse": "entityMappings", "optional": true},
             {"name": "attributeMappings", "destination": "XDDevAttributeMapping", "inverse": "entityMapping", "toMany": true},
             {"name": "relationshipMappings", "destination": "XDDevRelationshipMapping", "inverse": "entityMapping", "toMany": true}]},
          {"name": "XDDevMappingModel",
           "attributes": [
             {"name": "sourceModelPath", "type": "string", "optional": true},
             {"name": "sourceModelData", "type": "binary", "optional": true},
             {"name": "destinationModelPath", "type": "string", "optional": true},
             {"name": "destinationModelData", "type": "binary", "optional": true}],
           "relationships": [{"name": "entityMappings", "destination": "XDDevEntityMapping", "inverse": "mappingModel", "toMany": true, "ordered": true}]},
          {"name": "XDDevRelationshipMapping",
           "attributes": [
             {"name": "name", "type": "string", "optional": true},
             {"name": "autoGenerateExpression", "type": "bool", "optional": true},
             {"name": "valueExpressionData", "type": "binary", "optional": true}],
           "relationships": [{"name": "entityMapping", "destination": "XDDevEntityMapping", "inverse": "relationshipMappings", "optional": true}]}
        ]}
        """

    static func open(_ url: URL, schema: Schema? = nil) throws -> PersistentStoreCoordinator {
        let model = try schema ?? PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: registry).schema()
        let coordinator = PersistentStoreCoordinator(schema: model, storeTypes: registry)
        try coordinator.addStore(StoreDescription(type: .coreDataXML, url: url))
        return coordinator
    }

    static func dump(_ url: URL, schema: Schema? = nil) throws -> String {
        try DataExporter.dump(open(url, schema: schema))
    }

    /// The bytes and modification time of a file, and the names beside it.
    static func state(of url: URL) throws -> (Data, Date?, [String]) {
        let date = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        let listing = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
        return (try Data(contentsOf: url), date, listing)
    }

    // MARK: - The fixtures

    @Test(arguments: fixtures)
    func dumpsAFixtureWithoutAModel(_ name: String) throws {
        let url = CoreDataFixtures.xmlStore(name)
        let before = try Self.state(of: url)
        let registry = Self.registry
        #expect(try registry.type(of: url) == .coreDataXML)
        let dump = try Self.dump(url)
        let plain = try PlainCoreDataXML(contentsOf: url)
        #expect(try plain.differences(from: Data(dump.utf8)) == [])
        let after = try Self.state(of: url)
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        #expect(after.2 == before.2)
    }

    @Test func infersTheFixturesModel() throws {
        let inference = try CoreDataXMLSchemaInference.infer(
            fromStoreAt: CoreDataFixtures.xmlStore("alemar11__CoreDataPlus__V2toV3.xcmapping.xml"))
        let schema = inference.schema
        #expect(schema.name == "Alemar11__CoreDataPlus__V2toV3_xcmapping")
        #expect(schema.entities.map(\.name) == ["XDDevAttributeMapping", "XDDevEntityMapping", "XDDevMappingModel", "XDDevRelationshipMapping"])
        let entityMapping = try #require(schema.entity(named: "XDDevEntityMapping"))
        #expect(entityMapping.attributes.map { "\($0.name):\($0.type.rawValue)" } == [
            "autogenerateexpression:bool", "destinationname:string", "mappingnumber:int16", "mappingtypename:string",
            "migrationpolicyclassname:string", "sourcename:string",
        ])
        #expect(entityMapping.relationships.map { "\($0.name)→\($0.destination) \($0.isToMany ? "many" : "one") inverse \($0.inverse ?? "-")" } == [
            "attributemappings→XDDevAttributeMapping many inverse entitymapping",
            "mappingmodel→XDDevMappingModel one inverse entitymappings",
            "relationshipmappings→XDDevRelationshipMapping many inverse entitymapping",
        ])
        #expect(schema.entity(named: "XDDevRelationshipMapping")?.attributes.map(\.name) == ["autogenerateexpression", "name", "valueexpressiondata"])
        #expect(inference.notes.contains("entity names take their case from the keys of NSStoreModelVersionHashes in the store's metadata (the file writes them upper-cased)"))
        #expect(!inference.notes.contains { $0.hasPrefix("no inverse") })
    }

    @Test func dumpsAFixtureWithItsModel() throws {
        let url = CoreDataFixtures.xmlStore("objective-audio__CoreDataMigrationSample__Model1-2.xcmapping.xml")
        let schema = try Schema(data: Data(Self.mappingModel.utf8))
        let dump = try Self.dump(url, schema: schema)
        let plain = try PlainCoreDataXML(contentsOf: url)
        #expect(try plain.differences(from: Data(dump.utf8), ordered: ["entitymappings"]) == [])

        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])
        let objects = try #require(root["objects"] as? [String: [[String: Any]]])
        let model = try #require(objects["XDDevMappingModel"]?.first)
        #expect(model["@id"] as? Int == 111)
        #expect(model["entityMappings"] as? [Int] == [108, 103])
        #expect(model["sourceModelPath"] as? String == "CoreDataMigrationSample/Model.xcdatamodeld/Model 1.xcdatamodel")
        let data = try #require(Data(base64Encoded: model["sourceModelData"] as? String ?? ""))
        #expect(data.prefix(8) == Data("bplist00".utf8))
        let entity = try #require(objects["XDDevEntityMapping"]?.first { $0["@id"] as? Int == 103 })
        #expect(entity["sourceName"] as? String == "EntityB")
        #expect(entity["mappingNumber"] as? Int == 2)
        #expect(entity["autoGenerateExpression"] as? Bool == true)
        #expect(entity["attributeMappings"] as? [Int] == [102, 107])
        #expect(entity["relationshipMappings"] as? [Int] == [106])
        #expect(entity["mappingModel"] as? Int == 111)
        #expect(entity["migrationPolicyClassName"] is NSNull)
        #expect(objects.keys.sorted() == ["XDDevAttributeMapping", "XDDevEntityMapping", "XDDevMappingModel", "XDDevRelationshipMapping"])
    }

    @Test(arguments: [StoreType.sqlite, .xml, .binaryPlist])
    func convertsAFixtureToEveryStoreType(_ type: StoreType) throws {
        let directory = try CoreDataXMLSamples.file("", named: "unused").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in Self.fixtures {
            let source = CoreDataFixtures.xmlStore(name)
            let before = try Self.state(of: source)
            let copy = directory.appendingPathComponent("\(name).\(type)")
            let summary = try StoreConverter.convert(from: source, type: nil, to: copy, type: type, storeTypes: Self.registry)
            #expect(summary.sourceType == .coreDataXML)
            let copied = PersistentStoreCoordinator(schema: try PersistentStoreCoordinator.metadataForStore(at: copy, type: type, storeTypes: Self.registry).schema(), storeTypes: Self.registry)
            let store = try copied.addStore(StoreDescription(type: type, url: copy))
            #expect(try DataExporter.dump(copied) == (try Self.dump(source)))
            // Core Data's metadata goes with the objects.
            #expect(store.metadata.custom["NSStoreModelVersionHashesVersion"] == "3")
            #expect(try Self.state(of: source).0 == before.0)
        }
        // With the model.
        let source = CoreDataFixtures.xmlStore(Self.fixtures[1])
        let schema = try Schema(data: Data(Self.mappingModel.utf8))
        let copy = directory.appendingPathComponent("modelled.\(type)")
        try StoreConverter.convert(from: source, type: nil, schema: schema, to: copy, type: type, storeTypes: Self.registry)
        let copied = PersistentStoreCoordinator(schema: schema, storeTypes: Self.registry)
        try copied.addStore(StoreDescription(type: type, url: copy))
        #expect(try DataExporter.dump(copied) == (try Self.dump(source, schema: schema)))
    }

    // MARK: - A file of our own

    @Test func readsEveryAttributeTypeAndRelationshipWithTheModel() throws {
        let url = try CoreDataXMLSamples.file(CoreDataXMLSamples.company)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let schema = try Schema(data: Data(CoreDataXMLSamples.companyModel.utf8))
        let before = try Self.state(of: url)
        #expect(try Self.dump(url, schema: schema) == Self.companyDump)
        #expect(try Self.state(of: url) == before)
    }

    @Test func infersEveryAttributeTypeAndTheSubentity() throws {
        let url = try CoreDataXMLSamples.file(CoreDataXMLSamples.company)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let inference = try CoreDataXMLSchemaInference.infer(fromStoreAt: url)
        let schema = inference.schema
        #expect(schema.entities.map { "\($0.name)\($0.parentName.map { "<\($0)" } ?? "")" } == ["Department", "Manager<Person", "Person", "Project"])
        #expect(schema.entity(named: "Person")?.attributes.map { "\($0.name):\($0.type.rawValue)" } == [
            "active:bool", "age:int16", "badge:uuid", "height:double", "hiredat:date", "homepage:uri", "name:string",
            "photo:binary", "salary:decimal", "serial:int64", "settings:binary", "visits:int32", "weight:float",
        ])
        #expect(schema.entity(named: "Manager")?.attributes.map(\.name).last == "level")
        #expect(schema.entity(named: "Manager")?.relationships.map { "\($0.name) inverse \($0.inverse ?? "-")" } == [
            "boss inverse reports", "department inverse members", "projects inverse people", "reports inverse boss",
        ])
        #expect(inference.notes.contains("Manager is taken for a subentity of Person: objects of Manager are members of relationships whose destination is Person"))
        #expect(inference.notes.contains("transformable attributes are read as binary (their value transformer is not in the file): Person.settings"))

        let dump = try Self.dump(url)
        let plain = try PlainCoreDataXML(contentsOf: url)
        // Unordered without the model: members by key.
        #expect(try plain.differences(from: Data(dump.utf8)).filter { !$0.contains("(") } == [])
        #expect(dump.contains("\"hiredat\": \"2024-05-07T00:00:00.250Z\""))
        #expect(dump.contains("\"members\": [\n          103,\n          104,\n          105\n        ]"))
    }

    @Test func savingIsRefusedAndWritesNothing() throws {
        let url = try CoreDataXMLSamples.file(CoreDataXMLSamples.company)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Self.state(of: url)
        let coordinator = try Self.open(url, schema: try Schema(data: Data(CoreDataXMLSamples.companyModel.utf8)))
        let context = ManagedObjectContext(coordinator: coordinator)
        let project = try context.insertObject(entityName: "Project")
        project["code"] = "P3"
        #expect(throws: StrataError.self) { try context.save() }
        #expect(throws: StrataError.self) { try coordinator.setMetadata("x", forKey: "y", in: coordinator.stores[0]) }
        #expect(try Self.state(of: url) == before)
    }

    @Test func aFileThatDoesNotFitTheModelIsRefusedNamingWhere() throws {
        let url = try CoreDataXMLSamples.file(CoreDataXMLSamples.company)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let text = CoreDataXMLSamples.companyModel.replacingOccurrences(of: "{ \"name\": \"visits\", \"type\": \"int32\", \"optional\": true },", with: "")
        let error = #expect(throws: StrataError.self) { try Self.open(url, schema: try Schema(data: Data(text.utf8))) }
        #expect(error?.code == .corruptStore)
        #expect(error?.message == "<attribute name=\"visits\"> of <object type=\"PERSON\" id=\"z103\">: entity 'Person' has no attribute 'visits'")
        #expect(error?.location?.line == 52)
    }

    @Test func idsThatAreNotNumberedAreNumberedInFileOrder() {
        #expect(CoreDataXMLDocument.primaryKeys(ids: ["z102", "z7", "atom3", "b", "a1", "c1"], roots: ["A", "A", "A", "B", "C", "C"]) == [102, 7, 3, 1, 1, 2])
    }

    /// The dump of ``CoreDataXMLSamples/company`` with its model, checked value by value against
    /// the file: ordered members in file order, unordered ones by key, nil values null.
    static let companyDump = """
        {
          "objects": {
            "Department": [
              {
                "@id": 101,
                "members": [
                  105,
                  103,
                  104
                ],
                "title": "R&D"
              }
            ],
            "Manager": [
              {
                "@id": 104,
                "active": false,
                "age": null,
                "badge": null,
                "boss": null,
                "department": 101,
                "height": null,
                "hiredAt": null,
                "homePage": null,
                "level": 3,
                "name": "Grace",
                "photo": null,
                "projects": [
                  102
                ],
                "reports": [
                  105,
                  103
                ],
                "salary": null,
                "serial": null,
                "settings": null,
                "visits": null,
                "weight": null
              }
            ],
            "Person": [
              {
                "@id": 103,
                "active": true,
                "age": 36,
                "badge": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                "boss": 104,
                "department": 101,
                "height": 1.65,
                "hiredAt": "2024-05-07T00:00:00.250Z",
                "homePage": "https://example.com/a?b=1&c=2",
                "name": "Ada <Lovelace>",
                "photo": "AAECAwQF",
                "projects": [
                  102
                ],
                "salary": "1234.56",
                "serial": 9223372036854775807,
                "settings": "c2V0dGluZ3M=",
                "visits": -2147483648,
                "weight": 55.5
              },
              {
                "@id": 105,
                "active": null,
                "age": null,
                "badge": null,
                "boss": 104,
                "department": 101,
                "height": null,
                "hiredAt": null,
                "homePage": null,
                "name": "",
                "photo": null,
                "projects": [],
                "salary": null,
                "serial": null,
                "settings": null,
                "visits": null,
                "weight": null
              }
            ],
            "Project": [
              {
                "@id": 102,
                "code": "P1",
                "people": [
                  103,
                  104
                ]
              },
              {
                "@id": 106,
                "code": "P2",
                "people": []
              }
            ]
          }
        }

        """
}
