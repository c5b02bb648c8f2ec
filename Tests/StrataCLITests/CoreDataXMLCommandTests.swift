import Foundation
import Testing

/// `strata dump`, `inspect` and `convert` on Core Data XML stores, read in place.
@Suite("strata on Core Data XML stores")
struct CoreDataXMLCommandTests {
    static let fixture = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/coredata/xmlstores/objective-audio__CoreDataMigrationSample__Model1-2.xcmapping.xml").path

    /// A small store written as Core Data writes one, and its model.
    static let files = [
        "notes.xml": """
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE</UUID>
                    <nextObjectID>103</nextObjectID>
                    <metadata></metadata>
                </databaseInfo>
                <object type="NOTE" id="z102">
                    <attribute name="title" type="string">Milk</attribute>
                    <attribute name="createdat" type="date">736732800.50000000000000000000</attribute>
                    <attribute name="pinned" type="bool">1</attribute>
                    <relationship name="tags" type="0/0" destination="TAG" idrefs="z103 z101"></relationship>
                </object>
                <object type="TAG" id="z101">
                    <attribute name="name" type="string">home</attribute>
                    <relationship name="notes" type="0/0" destination="NOTE" idrefs="z102"></relationship>
                </object>
                <object type="TAG" id="z103">
                    <attribute name="name" type="string">shop</attribute>
                    <relationship name="notes" type="0/0" destination="NOTE" idrefs="z102"></relationship>
                </object>
            </database>
            """,
        "Notes.json": """
            {"name": "Notes", "entities": [
              {"name": "Note", "attributes": [
                 {"name": "title", "type": "string"}, {"name": "createdAt", "type": "date"}, {"name": "pinned", "type": "bool"}],
               "relationships": [{"name": "tags", "destination": "Tag", "inverse": "notes", "toMany": true, "ordered": true}]},
              {"name": "Tag", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "notes", "destination": "Note", "inverse": "tags", "toMany": true}]}
            ]}
            """,
    ]

    @Test func dumpsWithTheModel() throws {
        let workspace = try Workspace(Self.files)
        let before = workspace.contents("notes.xml")
        #expect(try workspace.dump("notes.xml", "--schema", "Notes.json") == """
            {
              "objects": {
                "Note": [
                  {
                    "@id": 102,
                    "createdAt": "2024-05-07T00:00:00.500Z",
                    "pinned": true,
                    "tags": [
                      103,
                      101
                    ],
                    "title": "Milk"
                  }
                ],
                "Tag": [
                  {
                    "@id": 101,
                    "name": "home",
                    "notes": [
                      102
                    ]
                  },
                  {
                    "@id": 103,
                    "name": "shop",
                    "notes": [
                      102
                    ]
                  }
                ]
              }
            }

            """)
        // Without it: the model inferred, names as the file writes them, members by key.
        let inferred = try workspace.dumpedObjects("notes.xml")
        #expect(inferred.keys.sorted() == ["NOTE", "TAG"])
        #expect(inferred["NOTE"]?.first?["createdat"] as? String == "2024-05-07T00:00:00.500Z")
        #expect(inferred["NOTE"]?.first?["tags"] as? [Int] == [101, 103])
        #expect(workspace.contents("notes.xml") == before)
        #expect(try workspace.listing() == ["Notes.json", "notes.xml"])
    }

    @Test func dumpsAndInspectsAFixtureWithoutAModel() throws {
        let workspace = try Workspace()
        let before = FileManager.default.contents(atPath: Self.fixture)
        let objects = try workspace.dumpedObjects(Self.fixture)
        #expect(objects.keys.sorted() == ["XDDevAttributeMapping", "XDDevEntityMapping", "XDDevMappingModel", "XDDevRelationshipMapping"])
        #expect(objects["XDDevMappingModel"]?.first?["entitymappings"] as? [Int] == [103, 108])
        #expect(objects["XDDevEntityMapping"]?.first?["sourcename"] as? String == "EntityB")

        let inspect = try workspace.run("inspect", Self.fixture)
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("type:        coredata-xml\n"))
        #expect(inspect.stdout.contains("UUID:        4B6B6CD3-CB10-47A2-932E-A394526E9ECB\n"))
        #expect(inspect.stdout.contains("objects:     10\n"))
        #expect(inspect.stdout.contains("metadata NSPersistenceFrameworkVersion: 641\n"))
        #expect(FileManager.default.contents(atPath: Self.fixture) == before)
    }

    @Test(arguments: storeExtensions)
    func convertsToEveryStoreType(_ ext: String) throws {
        let workspace = try Workspace(Self.files)
        let run = try workspace.run("convert", Self.fixture, "copy.\(ext)")
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("converted 10 objects from coredata-xml "))
        #expect(try workspace.dump("copy.\(ext)") == (try workspace.dump(Self.fixture)))

        let modelled = try workspace.run("convert", "--schema", "Notes.json", "notes.xml", "notes-copy.\(ext)")
        #expect(modelled.status == 0)
        #expect(try workspace.dump("notes-copy.\(ext)") == (try workspace.dump("notes.xml", "--schema", "Notes.json")))
    }

    @Test func aCoreDataFileIsNotAStrataXMLStore() throws {
        let workspace = try Workspace(Self.files)
        let run = try workspace.run("dump", "--type", "xml", "notes.xml")
        #expect(run.status == 1)
        #expect(run.stderr.contains("naming Core Data's DTD: it is a Core Data XML store, not a Strata one; read it as store type coredata-xml"))
    }
}
