import Foundation
import Strata
import StrataTestKit
import Testing

/// Asset (abstract) ← Document ← ScannedDocument, and Asset ← Photo, with an Owner and
/// configurations: the shapes that lookups and inheritance resolution must get right.
private let libraryModel = """
    {
      "name": "Library",
      "version": "3",
      "entities": [
        { "name": "Owner",
          "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "assets", "destination": "Asset", "inverse": "owner", "toMany": true } ] },
        { "name": "Asset", "abstract": true,
          "attributes": [ { "name": "title", "type": "string" }, { "name": "createdAt", "type": "date" } ],
          "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "assets" } ] },
        { "name": "Document", "parent": "Asset",
          "attributes": [ { "name": "pageCount", "type": "int32", "default": 1 } ],
          "uniquenessConstraints": [ ["owner", "title"] ] },
        { "name": "ScannedDocument", "parent": "Document",
          "attributes": [ { "name": "dpi", "type": "int16", "default": 300 } ] },
        { "name": "Photo", "parent": "Asset",
          "attributes": [ { "name": "width", "type": "int32" } ] }
      ],
      "configurations": [
        { "name": "People", "entities": ["Owner"] },
        { "name": "Assets", "entities": ["Asset", "Document", "ScannedDocument", "Photo"] }
      ]
    }
    """

@Suite("Schema")
struct SchemaTests {
    static func library() throws -> Schema {
        try Schema(data: Data(libraryModel.utf8), file: "Library.json")
    }

    // MARK: Loading

    @Test("a model file loads from a URL, with its diagnostics naming the file")
    func loadFromFile() throws {
        let temporary = try TemporaryDirectory(prefix: "tests")
        let directory = temporary.url
        let url = directory.appendingPathComponent("Library.json")
        try Data(libraryModel.utf8).write(to: url)

        let schema = try Schema(contentsOf: url)
        #expect(schema == (try Self.library()))

        let broken = directory.appendingPathComponent("Broken.json")
        try Data(#"{ "name": "Broken", "entities": [ { "name": "item" } ] }"#.utf8).write(to: broken)
        let result = try Schema.load(contentsOf: broken)
        #expect(result.schema == nil)
        #expect(result.diagnostics.map(\.file) == [broken.relativePath])
        #expect(result.diagnostics.map(\.description) == [
            "\(broken.relativePath):1:45: error: invalid entity name 'item': entity names start with an upper-case letter (A–Z) and use only ASCII letters, digits and '_'; did you mean 'Item'? [entities[0].name]",
        ])
        let error = try #require(throws: SchemaError.self) { try Schema(contentsOf: broken) }
        #expect(error.code == .invalidSchema)
        #expect(error.file == broken.relativePath)
        #expect(error.diagnostics == result.diagnostics)
    }

    @Test("the loaded model keeps its name, version and entities in file order")
    func basicProperties() throws {
        let schema = try Self.library()
        #expect(schema.name == "Library")
        #expect(schema.version == "3")
        #expect(schema.versionHashModifier == nil)
        #expect(schema.entities.map(\.name) == ["Owner", "Asset", "Document", "ScannedDocument", "Photo"])
    }

    // MARK: Lookups

    @Test("entities, properties and configurations are found by exact name")
    func lookups() throws {
        let schema = try Self.library()
        #expect(schema.entity(named: "Document")?.name == "Document")
        #expect(schema.entity(named: "document") == nil)
        #expect(schema.entity(named: "Missing") == nil)

        let owner = try #require(schema.entity(named: "Owner"))
        #expect(owner.attribute(named: "name")?.type == .string)
        #expect(owner.attribute(named: "assets") == nil) // a relationship, not an attribute
        #expect(owner.relationship(named: "assets")?.destination == "Asset")
        #expect(owner.relationship(named: "name") == nil)
        #expect(owner.property(named: "name") == .attribute(try #require(owner.attribute(named: "name"))))
        #expect(owner.property(named: "assets") == .relationship(try #require(owner.relationship(named: "assets"))))
        #expect(owner.property(named: "assets")?.name == "assets")
        #expect(owner.property(named: "Name") == nil)

        #expect(schema.configuration(named: "People") == ConfigurationDescription(name: "People", entityNames: ["Owner"]))
        #expect(schema.configuration(named: "people") == nil)
        #expect(schema.configurations.map(\.name) == ["People", "Assets"])
    }

    // MARK: Inheritance

    @Test("a subentity has its ancestors' properties first, then its own")
    func inheritedProperties() throws {
        let schema = try Self.library()
        let scanned = try #require(schema.entity(named: "ScannedDocument"))
        #expect(scanned.attributes.map(\.name) == ["title", "createdAt", "pageCount", "dpi"])
        #expect(scanned.declaredAttributes.map(\.name) == ["dpi"])
        #expect(scanned.relationships.map(\.name) == ["owner"])
        #expect(scanned.declaredRelationships.isEmpty)
        #expect(scanned.attribute(named: "title")?.type == .string)
        #expect(scanned.relationship(named: "owner")?.inverse == "assets")
        #expect(scanned.declares("dpi"))
        #expect(!scanned.declares("title"))
        #expect(!scanned.declares("owner"))

        let asset = try #require(schema.entity(named: "Asset"))
        #expect(asset.attributes.map(\.name) == ["title", "createdAt"])
        #expect(asset.attribute(named: "dpi") == nil) // not from a subentity
    }

    @Test("the hierarchy is resolved: parent, ancestors, root, direct subentities, descendants")
    func hierarchy() throws {
        let schema = try Self.library()
        let scanned = try #require(schema.entity(named: "ScannedDocument"))
        #expect(scanned.parentName == "Document")
        #expect(scanned.ancestorNames == ["Document", "Asset"])
        #expect(scanned.rootName == "Asset")
        #expect(scanned.subentityNames.isEmpty)

        let asset = try #require(schema.entity(named: "Asset"))
        #expect(asset.parentName == nil)
        #expect(asset.ancestorNames.isEmpty)
        #expect(asset.rootName == "Asset")
        #expect(asset.isAbstract)
        #expect(asset.subentityNames == ["Document", "Photo"])
        #expect(schema.entity(named: "Document")?.subentityNames == ["ScannedDocument"])

        #expect(schema.entityAndDescendants(of: "Asset").map(\.name) == ["Asset", "Document", "ScannedDocument", "Photo"])
        #expect(schema.entityAndDescendants(of: "Document").map(\.name) == ["Document", "ScannedDocument"])
        #expect(schema.entityAndDescendants(of: "Owner").map(\.name) == ["Owner"])
        #expect(schema.entityAndDescendants(of: "Missing").isEmpty)
    }

    @Test("uniqueness constraints stay with the entity that declares them")
    func constraintsOnDeclaringEntity() throws {
        let schema = try Self.library()
        #expect(schema.entity(named: "Document")?.uniquenessConstraints == [["owner", "title"]])
        #expect(schema.entity(named: "ScannedDocument")?.uniquenessConstraints == [])
    }

    // MARK: Canonical JSON

    @Test("jsonString is canonical: fixed key order, two-space indentation, defaults left out")
    func canonicalJSON() throws {
        let schema = try Schema(data: Data("""
            {
              "version": "2",
              "name": "TodoList",
              "entities": [
                {
                  "uniquenessConstraints": [["title"]],
                  "name": "Todo",
                  "indexes": [ { "elements": [ { "order": "ascending", "property": "priority" },
                                               { "property": "due", "order": "descending" } ],
                                 "name": "byPriority" } ],
                  "attributes": [
                    { "type": "string", "name": "title", "optional": false, "minLength": 1 },
                    { "name": "priority", "type": "int16", "max": 5, "min": 0, "default": 0, "indexed": false },
                    { "name": "due", "type": "date", "optional": true, "default": "2024-05-01T12:00:00+02:00" }
                  ],
                  "relationships": [
                    { "toMany": true, "name": "tags", "inverse": "todos", "destination": "Tag", "deleteRule": "nullify", "ordered": false }
                  ]
                },
                {
                  "relationships": [ { "name": "todos", "destination": "Todo", "inverse": "tags", "toMany": true, "deleteRule": "cascade" } ],
                  "attributes": [ { "name": "name", "type": "string", "transient": false } ],
                  "name": "Tag"
                }
              ],
              "configurations": [ { "entities": ["Todo", "Tag"], "name": "Main" } ]
            }
            """.utf8))
        let expected = """
            {
              "name": "TodoList",
              "version": "2",
              "entities": [
                {
                  "name": "Todo",
                  "attributes": [
                    {
                      "name": "title",
                      "type": "string",
                      "minLength": 1
                    },
                    {
                      "name": "priority",
                      "type": "int16",
                      "default": 0,
                      "min": 0,
                      "max": 5
                    },
                    {
                      "name": "due",
                      "type": "date",
                      "optional": true,
                      "default": "2024-05-01T10:00:00.000Z"
                    }
                  ],
                  "relationships": [
                    {
                      "name": "tags",
                      "destination": "Tag",
                      "inverse": "todos",
                      "toMany": true
                    }
                  ],
                  "uniquenessConstraints": [
                    [
                      "title"
                    ]
                  ],
                  "indexes": [
                    {
                      "name": "byPriority",
                      "elements": [
                        {
                          "property": "priority"
                        },
                        {
                          "property": "due",
                          "order": "descending"
                        }
                      ]
                    }
                  ]
                },
                {
                  "name": "Tag",
                  "attributes": [
                    {
                      "name": "name",
                      "type": "string"
                    }
                  ],
                  "relationships": [
                    {
                      "name": "todos",
                      "destination": "Todo",
                      "inverse": "tags",
                      "toMany": true,
                      "deleteRule": "cascade"
                    }
                  ]
                }
              ],
              "configurations": [
                {
                  "name": "Main",
                  "entities": [
                    "Todo",
                    "Tag"
                  ]
                }
              ]
            }

            """
        #expect(schema.jsonString == expected)
        #expect(schema.jsonData == Data(expected.utf8))
    }

    /// Every key of the format with a value other than its default, in one valid model.
    static let everyFeature = #"""
        {
          "name": "Everything",
          "version": "7",
          "versionHashModifier": "model-v2",
          "entities": [
            { "name": "Product", "renamingIdentifier": "Article", "versionHashModifier": "p2",
              "attributes": [
                { "name": "name", "type": "string", "default": "Untitled", "indexed": true, "minLength": 1, "maxLength": 80,
                  "regex": "[A-Za-z0-9 ]+", "renamingIdentifier": "title", "versionHashModifier": "n2" },
                { "name": "stock", "type": "int16", "default": -5, "min": -10, "max": 10000 },
                { "name": "views", "type": "int32", "default": 2147483647 },
                { "name": "serial", "type": "int64", "default": 9007199254740993, "min": -9223372036854775808 },
                { "name": "price", "type": "decimal", "default": "123456789012345678.901234567890", "min": 0, "max": "1e30" },
                { "name": "score", "type": "double", "default": "NaN" },
                { "name": "reach", "type": "double", "default": "-Infinity", "max": 0 },
                { "name": "tiny", "type": "double", "default": 5e-324 },
                { "name": "ratio", "type": "float", "default": 0.1, "min": 0, "max": 3.4028235e38 },
                { "name": "available", "type": "bool", "default": true },
                { "name": "releaseDate", "type": "date", "default": "2024-05-01T10:00:00.123Z",
                  "min": "-001000-01-01T00:00:00.000Z", "max": 4102444800 },
                { "name": "precise", "type": "date", "optional": true, "default": 1714557600.0001, "min": "2024-05-01T09:59:59.9996Z" },
                { "name": "thumbnail", "type": "binary", "default": "iVBORw0KGgo=", "externalStorage": true },
                { "name": "batch", "type": "uuid", "default": "3f2504e0-4f89-11d3-9a0c-0305e82c3301" },
                { "name": "homepage", "type": "uri", "default": "https://example.com/a b?q=ü" },
                { "name": "size", "type": "transformable", "transformer": "Size", "default": "eyJ3aWR0aCI6MH0=", "externalStorage": true },
                { "name": "label", "type": "string", "optional": true, "default": "tab\t\u0001 \"quoted\" \\ é 👩‍👩‍👧" },
                { "name": "cache", "type": "string", "optional": true, "transient": true }
              ],
              "relationships": [
                { "name": "replacement", "destination": "Product", "optional": true, "deleteRule": "noAction" },
                { "name": "owner", "destination": "Owner", "inverse": "products", "deleteRule": "deny",
                  "renamingIdentifier": "seller", "versionHashModifier": "o2" }
              ],
              "uniquenessConstraints": [ ["name"], ["owner", "serial"] ],
              "indexes": [ { "name": "byDate", "elements": [ { "property": "releaseDate", "order": "descending" }, { "property": "owner" } ] } ] },
            { "name": "Owner",
              "relationships": [
                { "name": "products", "destination": "Product", "inverse": "owner", "toMany": true, "ordered": true,
                  "minCount": 1, "maxCount": 50, "deleteRule": "cascade" },
                { "name": "friends", "destination": "Owner", "inverse": "friends", "toMany": true }
              ] },
            { "name": "Shape", "abstract": true, "attributes": [ { "name": "area", "type": "double" } ] },
            { "name": "Circle", "parent": "Shape", "attributes": [ { "name": "radius", "type": "double", "min": 0 } ] }
          ],
          "configurations": [ { "name": "Shop", "entities": ["Product", "Owner"] }, { "name": "Shapes", "entities": ["Shape", "Circle"] } ]
        }
        """#

    @Test("a model encoded to canonical JSON loads to an equal schema, and encodes to the same text")
    func canonicalRoundTrip() throws {
        let result = loadModel(Self.everyFeature)
        #expect(result.diagnostics.map(\.code) == ["missingInverse"])
        let schema = try #require(result.schema)
        let reloaded = loadModel(schema.jsonString)
        #expect(reloaded.diagnostics.map(\.code) == ["missingInverse"])
        let copy = try #require(reloaded.schema)
        #expect(copy == schema)
        #expect(copy.versionHash == schema.versionHash)
        #expect(copy.jsonString == schema.jsonString)
        // Spot checks that the round trip compared real values.
        let product = try #require(copy.entity(named: "Product"))
        #expect(product.attribute(named: "serial")?.defaultValue == .integer(9_007_199_254_740_993))
        #expect(product.attribute(named: "label")?.defaultValue == .string("tab\t\u{1} \"quoted\" \\ é 👩‍👩‍👧"))
        #expect(product.attribute(named: "releaseDate")?.defaultValue == .date(Date(timeIntervalSince1970: 1_714_557_600.123)))
        #expect(copy.entity(named: "Owner")?.relationship(named: "products")?.maxCount == 50)
    }

    @Test("a date given more precisely than a millisecond is kept to the millisecond, as the file is written")
    func datesKeptToTheMillisecond() throws {
        let schema = try #require(loadModel(modelWithAttribute(
            #"{ "name": "at", "type": "date", "default": 1714557600.0004, "min": "2024-05-01T09:59:59.9996Z", "max": "2024-05-01T10:00:00.1234Z" }"#)).schema)
        let at = try #require(schema.entity(named: "Item")?.attribute(named: "at"))
        #expect(at.defaultValue == .date(Date(timeIntervalSince1970: 1_714_557_600)))
        #expect(at.minimum == .date(Date(timeIntervalSince1970: 1_714_557_600)))
        #expect(at.maximum == .date(Date(timeIntervalSince1970: 1_714_557_600.123)))
        #expect(try Schema(data: schema.jsonData) == schema)
    }

    // MARK: Building a model in code

    static func todoListInCode() throws -> Schema {
        try Schema(name: "TodoList", version: "1", entities: [
            EntityDescription(
                name: "Todo",
                attributes: [
                    AttributeDescription(name: "title", type: .string, minLength: 1),
                    AttributeDescription(name: "createdAt", type: .date, isIndexed: true),
                    AttributeDescription(name: "priority", type: .int16, defaultValue: .integer(0), minimum: .integer(0), maximum: .integer(5)),
                    AttributeDescription(name: "done", type: .bool, defaultValue: .bool(false)),
                    AttributeDescription(name: "notes", type: .string, isOptional: true),
                ],
                relationships: [
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "todos", isToMany: true),
                    RelationshipDescription(name: "location", destination: "Location", inverse: "todos", isOptional: true, deleteRule: .nullify),
                ],
                uniquenessConstraints: [["title"]]),
            EntityDescription(
                name: "Tag",
                attributes: [AttributeDescription(name: "name", type: .string, minLength: 1)],
                relationships: [RelationshipDescription(name: "todos", destination: "Todo", inverse: "tags", isToMany: true)],
                uniquenessConstraints: [["name"]]),
            EntityDescription(
                name: "Location",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "latitude", type: .double, isOptional: true, minimum: .integer(-90), maximum: .integer(90)),
                    AttributeDescription(name: "longitude", type: .double, isOptional: true, minimum: .integer(-180), maximum: .integer(180)),
                ],
                relationships: [RelationshipDescription(name: "todos", destination: "Todo", inverse: "location", isToMany: true)]),
        ])
    }

    @Test("a model built in code equals the same model loaded from its file")
    func builtInCodeEqualsFile() throws {
        let inCode = try Self.todoListInCode()
        let fromFile = try Schema(contentsOf: schemasDirectory.appendingPathComponent("TodoList.json"))
        #expect(inCode == fromFile)
        #expect(inCode.versionHash == fromFile.versionHash)
        #expect(inCode.jsonString == fromFile.jsonString)
    }

    @Test("a loaded model's parts rebuild an equal model in code")
    func rebuildFromParts() throws {
        let schema = try #require(loadModel(Self.everyFeature).schema)
        let rebuilt = try Schema(
            name: schema.name, version: schema.version, versionHashModifier: schema.versionHashModifier,
            entities: schema.entities, configurations: schema.configurations)
        #expect(rebuilt == schema)
    }

    @Test("an entity built in code knows its declared properties; the schema resolves inheritance")
    func inheritanceInCode() throws {
        let shape = EntityDescription(name: "Shape", isAbstract: true, attributes: [AttributeDescription(name: "area", type: .double)])
        let circle = EntityDescription(name: "Circle", parentName: "Shape", attributes: [AttributeDescription(name: "radius", type: .double)])
        #expect(circle.attributes.map(\.name) == ["radius"])
        #expect(circle.ancestorNames.isEmpty)
        #expect(circle.versionHash == "")

        let schema = try Schema(name: "Shapes", entities: [shape, circle])
        let resolved = try #require(schema.entity(named: "Circle"))
        #expect(resolved.attributes.map(\.name) == ["area", "radius"])
        #expect(resolved.ancestorNames == ["Shape"])
        #expect(schema.entity(named: "Shape")?.subentityNames == ["Circle"])
        #expect(resolved.versionHash.count == 64)
    }

    @Test("a to-many built in code is optional whatever it is given")
    func toManyIsOptionalInCode() {
        let relationship = RelationshipDescription(name: "tags", destination: "Tag", isToMany: true, isOptional: false)
        #expect(relationship.isOptional)
        #expect(!RelationshipDescription(name: "owner", destination: "Owner").isOptional)
    }

    @Test("a model built in code is checked by the same rules; its diagnostics have a path but no file or position")
    func invalidModelInCode() throws {
        let error = try #require(throws: SchemaError.self) {
            try Schema(name: "Shop", entities: [
                EntityDescription(
                    name: "Item",
                    attributes: [
                        AttributeDescription(name: "count", type: .int16, defaultValue: .string("zero")),
                        AttributeDescription(name: "description", type: .string),
                    ],
                    relationships: [
                        RelationshipDescription(name: "owner", destination: "Ownr", inverse: "items"),
                        RelationshipDescription(name: "parent", destination: "Item", isOrdered: true, isOptional: true, minCount: 1),
                    ]),
            ])
        }
        #expect(error.code == .invalidSchema)
        #expect(error.file == nil)
        #expect(error.diagnostics == [
            Diagnostic(severity: .error, code: "invalidValue",
                       message: "invalid 'default' for an int16 attribute: expected an int16 (a whole number from -32768 to 32767), found a string",
                       path: "entities[0].attributes[0].default"),
            Diagnostic(severity: .error, code: "reservedName",
                       message: "'description' is reserved: it would clash with the managed-object API; choose another name, like 'descriptionValue' or 'itemDescription'",
                       path: "entities[0].attributes[1].name"),
            Diagnostic(severity: .error, code: "orderedToOne",
                       message: #"'ordered' applies only to to-many relationships; add "toMany": true to 'parent' or remove 'ordered'"#,
                       path: "entities[0].relationships[1].ordered"),
            Diagnostic(severity: .error, code: "inapplicableKey",
                       message: "'minCount' applies only to to-many relationships; a to-one is bounded by 'optional'",
                       path: "entities[0].relationships[1].minCount"),
            Diagnostic(severity: .error, code: "unknownEntity",
                       message: "destination entity 'Ownr' does not exist",
                       path: "entities[0].relationships[0].destination"),
            Diagnostic(severity: .warning, code: "missingInverse",
                       message: "relationship 'Item.parent' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Item' that points back, and name it in 'inverse'",
                       path: "entities[0].relationships[1]"),
        ])
    }
}
