import Foundation
import Strata
import Testing

// Every rule of the model loader (SchemaDecoder and SchemaValidator), each with a model that
// breaks it and the exact diagnostic it gets — code, severity, message, JSON path, line and
// column — and a model that keeps it and gets no diagnostic.
//
// Models are written as multi-line string literals so that positions can be read off the
// text: line 1 is the line after the opening `"""`, and columns count from the literal's
// indentation.

// MARK: - Malformed JSON

struct SyntaxErrorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let message: String
    let line: Int
    let column: Int

    init(_ name: String, _ text: String, _ message: String, line: Int, column: Int) {
        self.init(name, Array(text.utf8), message, line: line, column: column)
    }

    init(_ name: String, _ bytes: [UInt8], _ message: String, line: Int, column: Int) {
        self.name = name
        self.bytes = bytes
        self.message = message
        self.line = line
        self.column = column
    }

    var testDescription: String { name }
}

@Suite("Malformed JSON")
struct MalformedJSONTests {
    static let cases: [SyntaxErrorCase] = [
        SyntaxErrorCase("trailing comma in an object", """
            {
              "name": "Shop",
              "entities": [],
            }
            """, "trailing comma before '}'; remove the last ','", line: 4, column: 1),
        SyntaxErrorCase("trailing comma in an array", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item" },
              ]
            }
            """, "trailing comma before ']'; remove the last ','", line: 5, column: 3),
        SyntaxErrorCase("missing opening quote of a key", """
            {
              "name": "Shop",
              entities": []
            }
            """, "expected a member name in double quotes, found 'e'", line: 3, column: 3),
        SyntaxErrorCase("missing closing quote before the end of the line", """
            {
              "name": "Shop,
              "entities": []
            }
            """, #"control character U+000A inside a string; escape it (for example \n or \t)"#, line: 2, column: 17),
        SyntaxErrorCase("string unterminated at the end of the file",
            #"{"name": "Shop"#, #"unterminated string; add the closing '"'"#, line: 1, column: 15),
        SyntaxErrorCase("missing colon", """
            {
              "name" "Shop",
              "entities": []
            }
            """, #"expected ':' after the member name 'name', found '"'"#, line: 2, column: 10),
        SyntaxErrorCase("missing comma between members, after a non-ASCII character", """
            {
              "name": "Café"
              "entities": []
            }
            """, #"expected ',' or '}' after an object member, found '"'"#, line: 3, column: 3),
        SyntaxErrorCase("columns count Unicode scalars, not bytes",
            #"{"name": "Café" "entities": []}"#, #"expected ',' or '}' after an object member, found '"'"#, line: 1, column: 17),
        SyntaxErrorCase("capitalised literal", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "abstract": True } ]
            }
            """, "unexpected 'T'; expected a value (object, array, string, number, true, false or null)", line: 3, column: 47),
        SyntaxErrorCase("misspelt literal", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "abstract": ture } ]
            }
            """, "invalid literal; expected 'true' (JSON literals are lower-case, strings need double quotes)", line: 3, column: 47),
        SyntaxErrorCase("literal with extra letters", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "abstract": falsey } ]
            }
            """, "invalid literal; expected 'false'", line: 3, column: 47),
        SyntaxErrorCase("empty file", "", "the document is empty; expected a JSON value", line: 1, column: 1),
        SyntaxErrorCase("only white space", "\n\n  ", "the document is empty; expected a JSON value", line: 3, column: 3),
        SyntaxErrorCase("invalid UTF-8 (a Latin-1 é)",
            Array(#"{"name": "Caf"#.utf8) + [0xE9] + Array(#""}"#.utf8),
            "the file is not valid UTF-8; save it as UTF-8", line: 1, column: 14),
        SyntaxErrorCase("invalid UTF-8 on a later line",
            Array("{\n  \"name\": \"".utf8) + [0xC3, 0x28] + Array("\"\n}".utf8),
            "the file is not valid UTF-8; save it as UTF-8", line: 2, column: 12),
        SyntaxErrorCase("garbage after the value", """
            {
              "name": "Shop",
              "entities": []
            }
            }
            """, "unexpected '}' after the end of the JSON value", line: 5, column: 1),
        SyntaxErrorCase("a second value after the first", """
            { "name": "Shop", "entities": [] } x
            """, "unexpected 'x' after the end of the JSON value", line: 1, column: 36),
        SyntaxErrorCase("duplicate key", """
            {
              "name": "Shop",
              "name": "Store",
              "entities": []
            }
            """, "duplicate key 'name' in the same object", line: 3, column: 3),
        SyntaxErrorCase("duplicate key in a nested object", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [], "attributes": [] }
              ]
            }
            """, "duplicate key 'attributes' in the same object", line: 4, column: 41),
        SyntaxErrorCase("leading zero", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "attributes": [
                { "name": "count", "type": "int16", "default": 007 } ] } ]
            }
            """, "leading zeros are not allowed in JSON numbers", line: 4, column: 53),
    ]

    @Test("a syntax error is one invalidJSON error at its line and column", arguments: cases)
    func syntaxError(_ testCase: SyntaxErrorCase) {
        let result = Schema.load(data: Data(testCase.bytes), file: modelFile)
        #expect(result.schema == nil)
        #expect(result.diagnostics == [
            .error("invalidJSON", "malformed JSON: " + testCase.message, at: "", line: testCase.line, column: testCase.column),
        ])
    }

    @Test("a byte order mark and CRLF line ends are accepted")
    func byteOrderMarkAndCRLF() throws {
        let text = "{\r\n  \"name\": \"Shop\",\r\n  \"entities\": [ { \"name\": \"Item\" } ]\r\n}\r\n"
        let result = Schema.load(data: Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)), file: modelFile)
        #expect(result.diagnostics == [])
        let schema = try #require(result.schema)
        #expect(schema.entities.map(\.name) == ["Item"])
    }
}

// MARK: - Keys and JSON types

/// A model text and every diagnostic it must get, in order.
struct ModelCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let expected: [Diagnostic]

    init(_ name: String, _ text: String, _ expected: [Diagnostic]) {
        self.name = name
        self.text = text
        self.expected = expected
    }

    var testDescription: String { name }
}

@Suite("Keys and JSON types")
struct KeysAndTypesTests {
    @Test("a misspelt key gets a suggestion; the right spelling loads")
    func unknownKeyWithSuggestion() throws {
        let misspelt = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Person",
                  "relationships": [
                    { "name": "friends", "destination": "Person", "inverse": "friends", "tomany": true }
                  ] }
              ]
            }
            """)
        #expect(misspelt.schema == nil)
        #expect(misspelt.diagnostics == [
            .error("unknownKey", "unknown key 'tomany' in a relationship; did you mean 'toMany'?",
                   at: "entities[0].relationships[0].tomany", line: 6, column: 77),
        ])

        let correct = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Person",
                  "relationships": [
                    { "name": "friends", "destination": "Person", "inverse": "friends", "toMany": true }
                  ] }
              ]
            }
            """)
        #expect(correct.diagnostics == [])
        let friends = try #require(correct.schema?.entity(named: "Person")?.relationship(named: "friends"))
        #expect(friends.isToMany)
    }

    static let unknownKeyCases: [ModelCase] = [
        ModelCase("in the model", """
            {
              "name": "Shop",
              "verison": "1",
              "entities": [ { "name": "Item" } ]
            }
            """, [.error("unknownKey", "unknown key 'verison' in the model; did you mean 'version'?", at: "verison", line: 3, column: 3)]),
        ModelCase("in an entity", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "atributes": [] }
              ]
            }
            """, [.error("unknownKey", "unknown key 'atributes' in an entity; did you mean 'attributes'?",
                         at: "entities[0].atributes", line: 4, column: 23)]),
        ModelCase("in an entity, with no near miss", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "colour": "red" }
              ]
            }
            """, [.error("unknownKey", "unknown key 'colour' in an entity; expected one of 'name', 'parent', 'abstract', 'attributes', 'relationships', 'uniquenessConstraints', 'indexes', 'versionHashModifier', 'renamingIdentifier'",
                         at: "entities[0].colour", line: 4, column: 23)]),
        ModelCase("in an attribute", modelWithAttribute(#"{ "name": "title", "type": "string", "optinal": true }"#),
                  [.error("unknownKey", "unknown key 'optinal' in an attribute; did you mean 'optional'?",
                          at: "entities[0].attributes[0].optinal", line: 5, column: 44)]),
        ModelCase("a relationship key in an attribute", modelWithAttribute(#"{ "name": "owner", "type": "string", "destination": "Person" }"#),
                  [.error("unknownKey", "unknown key 'destination' in an attribute; that is a relationship key: declare relationships under 'relationships'",
                          at: "entities[0].attributes[0].destination", line: 5, column: 44)]),
        ModelCase("toMany in an attribute", modelWithAttribute(#"{ "name": "tags", "type": "string", "toMany": true }"#),
                  [.error("unknownKey", "unknown key 'toMany' in an attribute; that is a relationship key: declare relationships under 'relationships'",
                          at: "entities[0].attributes[0].toMany", line: 5, column: 43)]),
        ModelCase("an attribute key in a relationship", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Person", "relationships": [
                  { "name": "boss", "destination": "Person", "optional": true, "type": "string" }
                ] }
              ]
            }
            """, [
                .warning("missingInverse", "relationship 'Person.boss' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Person' that points back, and name it in 'inverse'",
                         at: "entities[0].relationships[0]", line: 5, column: 7),
                .error("unknownKey", "unknown key 'type' in a relationship; that is an attribute key: declare attributes under 'attributes'",
                       at: "entities[0].relationships[0].type", line: 5, column: 68),
            ]),
        ModelCase("in an index and in an index element", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item",
                  "attributes": [ { "name": "name", "type": "string" } ],
                  "indexes": [
                    { "name": "byName", "unique": true, "elements": [ { "propery": "name" } ] }
                  ] }
              ]
            }
            """, [
                .error("unknownKey", "unknown key 'unique' in an index; expected one of 'name', 'elements'",
                       at: "entities[0].indexes[0].unique", line: 7, column: 29),
                .error("missingKey", "an index element is missing its required 'property'",
                       at: "entities[0].indexes[0].elements[0]", line: 7, column: 59),
                .error("unknownKey", "unknown key 'propery' in an index element; did you mean 'property'?",
                       at: "entities[0].indexes[0].elements[0].propery", line: 7, column: 61),
            ]),
        ModelCase("in a configuration", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item" } ],
              "configurations": [ { "name": "Catalog", "entities": ["Item"], "store": "sqlite" } ]
            }
            """, [.error("unknownKey", "unknown key 'store' in a configuration; expected one of 'name', 'entities'",
                         at: "configurations[0].store", line: 4, column: 66)]),
    ]

    @Test("unknown keys are errors at every level", arguments: unknownKeyCases)
    func unknownKeys(_ testCase: ModelCase) {
        let result = loadModel(testCase.text)
        #expect(result.diagnostics == testCase.expected)
        #expect(result.schema == nil)
    }

    @Test("\"$schema\" is accepted and ignored")
    func schemaKey() throws {
        let result = loadModel("""
            {
              "$schema": "./strata-schema.json",
              "name": "Shop",
              "entities": [ { "name": "Item" } ]
            }
            """)
        #expect(result.diagnostics == [])
        #expect(try #require(result.schema).jsonString.contains("$schema") == false)
    }

    static let missingKeyCases: [ModelCase] = [
        ModelCase("the model's name", """
            {
              "entities": [ { "name": "Item" } ]
            }
            """, [.error("missingKey", "the model is missing its required 'name'", at: "", line: 1, column: 1)]),
        ModelCase("the model's entities", """
            {
              "name": "Shop"
            }
            """, [.error("missingKey", "the model is missing its required 'entities'", at: "", line: 1, column: 1)]),
        ModelCase("an entity's name", """
            {
              "name": "Shop",
              "entities": [
                { "attributes": [] }
              ]
            }
            """, [.error("missingKey", "an entity is missing its required 'name'", at: "entities[0]", line: 4, column: 5)]),
        ModelCase("an attribute's name", modelWithAttribute(#"{ "type": "string" }"#),
                  [.error("missingKey", "an attribute is missing its required 'name'", at: "entities[0].attributes[0]", line: 5, column: 7)]),
        ModelCase("an attribute's type", modelWithAttribute(#"{ "name": "title" }"#),
                  [.error("missingKey", "an attribute is missing its required 'type'", at: "entities[0].attributes[0]", line: 5, column: 7)]),
        ModelCase("a null value counts as missing", modelWithAttribute(#"{ "name": "title", "type": null }"#),
                  [.error("missingKey", "an attribute is missing its required 'type'", at: "entities[0].attributes[0]", line: 5, column: 7)]),
        ModelCase("a relationship's name and destination", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "relationships": [
                  { "toMany": true }
                ] }
              ]
            }
            """, [
                .error("missingKey", "a relationship is missing its required 'name'", at: "entities[0].relationships[0]", line: 5, column: 7),
                .error("missingKey", "a relationship is missing its required 'destination'", at: "entities[0].relationships[0]", line: 5, column: 7),
            ]),
        ModelCase("an index's name and elements", """
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "indexes": [
                  {}
                ] }
              ]
            }
            """, [
                .error("missingKey", "an index is missing its required 'name'", at: "entities[0].indexes[0]", line: 5, column: 7),
                .error("missingKey", "an index is missing its required 'elements'", at: "entities[0].indexes[0]", line: 5, column: 7),
            ]),
        ModelCase("a configuration's name and entities", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item" } ],
              "configurations": [
                {}
              ]
            }
            """, [
                .error("missingKey", "a configuration is missing its required 'name'", at: "configurations[0]", line: 5, column: 5),
                .error("missingKey", "a configuration is missing its required 'entities'", at: "configurations[0]", line: 5, column: 5),
            ]),
    ]

    @Test("a missing required key is reported at the object that lacks it", arguments: missingKeyCases)
    func missingKeys(_ testCase: ModelCase) {
        let result = loadModel(testCase.text)
        #expect(result.diagnostics == testCase.expected)
        #expect(result.schema == nil)
    }

    static let wrongTypeCases: [ModelCase] = [
        ModelCase("the model is an array", "[]",
                  [.error("wrongType", "expected the model as a JSON object, found an array", at: "", line: 1, column: 1)]),
        ModelCase("entities is an object", """
            {
              "name": "Shop",
              "entities": {}
            }
            """, [.error("wrongType", "'entities' must be an array, found an object", at: "entities", line: 3, column: 15)]),
        ModelCase("an entity is a string", """
            {
              "name": "Shop",
              "entities": [ "Item" ]
            }
            """, [.error("wrongType", "expected an entity as a JSON object, found a string", at: "entities[0]", line: 3, column: 17)]),
        ModelCase("the model's name is a number", """
            {
              "name": 1,
              "entities": [ { "name": "Item" } ]
            }
            """, [.error("wrongType", "'name' must be a string, found a number", at: "name", line: 2, column: 11)]),
        ModelCase("an attribute is a string", modelWithAttribute(#""title""#),
                  [.error("wrongType", "expected an attribute as a JSON object, found a string", at: "entities[0].attributes[0]", line: 5, column: 7)]),
        ModelCase("optional is a string", modelWithAttribute(#"{ "name": "title", "type": "string", "optional": "yes" }"#),
                  [.error("wrongType", "'optional' must be true or false, found a string", at: "entities[0].attributes[0].optional", line: 5, column: 56)]),
        ModelCase("minLength is negative", modelWithAttribute(#"{ "name": "title", "type": "string", "minLength": -1 }"#),
                  [.error("wrongType", "'minLength' must be a whole number of 0 or more, found -1", at: "entities[0].attributes[0].minLength", line: 5, column: 57)]),
        ModelCase("maxLength is a fraction", modelWithAttribute(#"{ "name": "title", "type": "string", "maxLength": 1.5 }"#),
                  [.error("wrongType", "'maxLength' must be a whole number of 0 or more, found 1.5", at: "entities[0].attributes[0].maxLength", line: 5, column: 57)]),
        ModelCase("minLength is a string", modelWithAttribute(#"{ "name": "title", "type": "string", "minLength": "3" }"#),
                  [.error("wrongType", "'minLength' must be a whole number of 0 or more, found a string", at: "entities[0].attributes[0].minLength", line: 5, column: 57)]),
        ModelCase("relationships is an object", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "relationships": {} } ]
            }
            """, [.error("wrongType", "'relationships' must be an array, found an object", at: "entities[0].relationships", line: 3, column: 52)]),
        ModelCase("a uniqueness constraint is a string", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "attributes": [ { "name": "email", "type": "string" } ],
                              "uniquenessConstraints": [ "email" ] } ]
            }
            """, [.error("wrongType", #"expected a uniqueness constraint as an array of names like ["email"], found a string"#,
                         at: "entities[0].uniquenessConstraints[0]", line: 4, column: 46)]),
        ModelCase("a name in a uniqueness constraint is a number", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item", "attributes": [ { "name": "email", "type": "string" } ],
                              "uniquenessConstraints": [ [ 1 ] ] } ]
            }
            """, [.error("wrongType", "expected a property name (a string), found a number",
                         at: "entities[0].uniquenessConstraints[0][0]", line: 4, column: 48)]),
        ModelCase("a configuration's entities is a string", """
            {
              "name": "Shop",
              "entities": [ { "name": "Item" } ],
              "configurations": [ { "name": "Catalog", "entities": "Item" } ]
            }
            """, [.error("wrongType", #"expected a configuration as an array of names like ["Todo", "Tag"], found a string"#,
                         at: "configurations[0].entities", line: 4, column: 56)]),
    ]

    @Test("a value of the wrong JSON type is reported where the value is", arguments: wrongTypeCases)
    func wrongTypes(_ testCase: ModelCase) {
        let result = loadModel(testCase.text)
        #expect(result.diagnostics == testCase.expected)
        #expect(result.schema == nil)
    }

    @Test("a model without entities loads, with a warning")
    func noEntities() throws {
        let result = loadModel("""
            {
              "name": "Empty",
              "entities": []
            }
            """)
        #expect(result.diagnostics == [
            .warning("noEntities", "the model has no entities; add at least one to 'entities'", at: "entities", line: 3, column: 15),
        ])
        #expect(try #require(result.schema).entities.isEmpty)
    }
}

// MARK: - Names

/// A name and the suggestion its diagnostic ends with ("" for none).
struct NameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let suggestion: String

    init(_ name: String, _ suggestion: String) {
        self.name = name
        self.suggestion = suggestion
    }

    var testDescription: String { name.isEmpty ? "(empty)" : name }
}

@Suite("Names")
struct NameTests {
    /// A model whose only entity is named `name`: the name's value is at line 4, column 15.
    static func modelWithEntity(named name: String) -> String {
        """
        {
          "name": "Shop",
          "entities": [
            { "name": "\(name)" }
          ]
        }
        """
    }

    @Test("valid entity names load", arguments: ["Todo", "GeographicRegion", "Order_Line", "A1", "X"])
    func validEntityName(_ name: String) throws {
        let result = loadModel(Self.modelWithEntity(named: name))
        #expect(result.diagnostics == [])
        #expect(try #require(result.schema).entities.map(\.name) == [name])
    }

    @Test("an invalid entity name is an error, with a fix when one is obvious", arguments: [
        NameCase("todo", "; did you mean 'Todo'?"),
        NameCase("Todo Item", "; did you mean 'TodoItem'?"),
        NameCase("Order-Line", "; did you mean 'OrderLine'?"),
        NameCase("Todo✓", "; did you mean 'Todo'?"),
        NameCase("2Fast", ""),
        NameCase("_Private", ""),
        NameCase("", ""),
    ])
    func invalidEntityName(_ testCase: NameCase) {
        let result = loadModel(Self.modelWithEntity(named: testCase.name))
        #expect(result.diagnostics == [
            .error("invalidName", "invalid entity name '\(testCase.name)': entity names start with an upper-case letter (A–Z) and use only ASCII letters, digits and '_'\(testCase.suggestion)",
                   at: "entities[0].name", line: 4, column: 15),
        ])
    }

    @Test("valid property names load", arguments: ["title", "createdAt", "phone_number", "a1_B2", "x"])
    func validPropertyName(_ name: String) throws {
        let result = loadModel(modelWithAttribute(#"{ "name": "\#(name)", "type": "string" }"#))
        #expect(result.diagnostics == [])
        #expect(try #require(result.schema?.entity(named: "Item")).attributes.map(\.name) == [name])
    }

    @Test("an invalid property name is an error, with a fix when one is obvious", arguments: [
        NameCase("Title", "; did you mean 'title'?"),
        NameCase("phone-number", "; did you mean 'phonenumber'?"),
        NameCase("price💰", "; did you mean 'price'?"),
        NameCase("_id", ""),
        NameCase("1st", ""),
    ])
    func invalidPropertyName(_ testCase: NameCase) {
        // The name's value starts 10 characters into the attribute, at column 17.
        let result = loadModel(modelWithAttribute(#"{ "name": "\#(testCase.name)", "type": "string" }"#))
        #expect(result.diagnostics == [
            .error("invalidName", "invalid property name '\(testCase.name)': property names start with a lower-case letter (a–z) and use only ASCII letters, digits and '_'\(testCase.suggestion)",
                   at: "entities[0].attributes[0].name", line: 5, column: 17),
        ])
    }

    @Test("the relationship name rules are the property name rules")
    func invalidRelationshipName() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Person", "relationships": [
                  { "name": "Friends", "destination": "Person", "inverse": "friends", "toMany": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("invalidName", "invalid property name 'Friends': property names start with a lower-case letter (a–z) and use only ASCII letters, digits and '_'; did you mean 'friends'?",
                   at: "entities[0].relationships[0].name", line: 5, column: 17),
        ])
    }

    /// The names Docs/SchemaFormat.md reserves: members of `ManagedObject`.
    static let documentedReservedNames = [
        "description", "entity", "objectID", "context", "managedObjectContext", "isDeleted", "isInserted",
        "isUpdated", "isFault", "hasChanges", "changedValues", "committedValues", "hash", "hashValue", "self",
        "class", "primaryKey",
    ]

    /// Common field names that stay free: `id` and `type` are everyday attributes in imported data.
    @Test("id, type, value and values are ordinary property names", arguments: ["id", "type", "value", "values"])
    func commonNamesAreAllowed(_ name: String) throws {
        let json = """
            {"name": "M", "entities": [{"name": "E", "attributes": [{"name": "\(name)", "type": "string"}]}]}
            """
        let result = Schema.load(data: Data(json.utf8))
        #expect(result.diagnostics == [])
        #expect(result.schema?.entity(named: "E")?.attribute(named: name)?.type == .string)
    }

    @Test("a reserved attribute name is an error", arguments: documentedReservedNames)
    func reservedAttributeName(_ name: String) {
        let result = loadModel(modelWithAttribute(#"{ "name": "\#(name)", "type": "string" }"#))
        let capitalized = name.prefix(1).uppercased() + name.dropFirst()
        #expect(result.diagnostics == [
            .error("reservedName", "'\(name)' is reserved: it would clash with the managed-object API; choose another name, like '\(name)Value' or 'item\(capitalized)'",
                   at: "entities[0].attributes[0].name", line: 5, column: 17),
        ])
    }

    @Test("a reserved relationship name is an error")
    func reservedRelationshipName() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "relationships": [
                  { "name": "context", "destination": "Item", "optional": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("reservedName", "'context' is reserved: it would clash with the managed-object API; choose another name, like 'contextValue' or 'itemContext'",
                   at: "entities[0].relationships[0].name", line: 5, column: 17),
        ])
    }

    @Test("names that merely contain a reserved word are fine")
    func nearReservedNames() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [
                  { "name": "itemDescription", "type": "string" },
                  { "name": "typeName", "type": "string" },
                  { "name": "identifier", "type": "string" },
                  { "name": "isDeletedByUser", "type": "bool" }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
    }

    @Test("entity names are unique, compared case-insensitively")
    func duplicateEntityNames() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Todo" },
                { "name": "Todo" },
                { "name": "TODO" },
                { "name": "Todos" }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("duplicateName", "duplicate entity name 'Todo' (first declared at entities[0]); rename one of them",
                   at: "entities[1].name", line: 5, column: 15),
            .error("duplicateName", "entity name 'TODO' differs from 'Todo' (entities[0]) only in case, which file systems and SQL treat as the same name; rename one of them",
                   at: "entities[2].name", line: 6, column: 15),
        ])
    }

    @Test("property names are unique in an entity, attributes and relationships together, ignoring case")
    func duplicatePropertyNames() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Todo",
                  "attributes": [
                    { "name": "createdAt", "type": "date" },
                    { "name": "createdat", "type": "date" },
                    { "name": "owner", "type": "string" }
                  ],
                  "relationships": [
                    { "name": "owner", "destination": "Todo", "inverse": "owner" }
                  ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("duplicateName", "property name 'createdat' differs from 'createdAt' only in case, which SQL treats as the same column; rename one of them",
                   at: "entities[0].attributes[1].name", line: 7, column: 19),
            .error("duplicateName", "duplicate property name 'owner' in entity 'Todo'; rename one of them",
                   at: "entities[0].relationships[0].name", line: 11, column: 19),
        ])
    }

    @Test("the same property name in two unrelated entities is fine")
    func samePropertyNameInTwoEntities() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Todo", "attributes": [ { "name": "title", "type": "string" } ] },
                { "name": "Tag", "attributes": [ { "name": "title", "type": "string" } ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
    }

    @Test("the model's name follows the entity name rules")
    func modelName() throws {
        let empty = loadModel("""
            {
              "name": "",
              "entities": [ { "name": "Item" } ]
            }
            """)
        #expect(empty.diagnostics == [
            .error("invalidName", #"the model's name is empty; name the model, for example "TodoList""#, at: "name", line: 2, column: 11),
        ])

        let lowerCase = loadModel("""
            {
              "name": "todo list",
              "entities": [ { "name": "Item" } ]
            }
            """)
        #expect(lowerCase.diagnostics == [
            .error("invalidName", "invalid model name 'todo list': model names start with an upper-case letter (A–Z) and use only ASCII letters, digits and '_'; did you mean 'Todolist'?",
                   at: "name", line: 2, column: 11),
        ])

        let valid = loadModel("""
            {
              "name": "Todo_List2",
              "entities": [ { "name": "Item" } ]
            }
            """)
        #expect(valid.diagnostics == [])
        #expect(try #require(valid.schema).name == "Todo_List2")
    }

    @Test("index and configuration names are identifiers")
    func indexAndConfigurationNames() throws {
        let invalid = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [ { "name": "title", "type": "string" } ],
                  "indexes": [ { "name": "by title", "elements": [ { "property": "title" } ] } ] }
              ],
              "configurations": [ { "name": "1st", "entities": ["Item"] } ]
            }
            """)
        #expect(invalid.diagnostics == [
            .error("invalidName", "invalid index name 'by title': use ASCII letters, digits and '_', starting with a letter",
                   at: "entities[0].indexes[0].name", line: 5, column: 30),
            .error("invalidName", "invalid configuration name '1st': use ASCII letters, digits and '_', starting with a letter",
                   at: "configurations[0].name", line: 7, column: 33),
        ])

        let valid = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [ { "name": "title", "type": "string" } ],
                  "indexes": [ { "name": "ByTitle_2", "elements": [ { "property": "title" } ] } ] }
              ],
              "configurations": [ { "name": "catalog", "entities": ["Item"] } ]
            }
            """)
        #expect(valid.diagnostics == [])
        let schema = try #require(valid.schema)
        #expect(schema.entity(named: "Item")?.indexes.map(\.name) == ["ByTitle_2"])
        #expect(schema.configurations.map(\.name) == ["catalog"])
    }
}

// MARK: - Attribute types and defaults

/// An attribute written with its `default` first, so that the default's value is always at
/// line 5, column 37 of ``modelWithAttribute(_:)``; `message` is what the diagnostic says.
struct DefaultCase: Sendable, CustomTestStringConvertible {
    let attribute: String
    let message: String

    init(_ attribute: String, _ message: String) {
        self.attribute = attribute
        self.message = message
    }

    var testDescription: String { attribute }
}

/// An attribute and the default value it must load with.
struct DefaultValueCase: Sendable, CustomTestStringConvertible {
    let attribute: String
    let value: AttributeValue

    init(_ attribute: String, _ value: AttributeValue) {
        self.attribute = attribute
        self.value = value
    }

    var testDescription: String { attribute }
}

@Suite("Attribute types and defaults")
struct AttributeTypeTests {
    @Test("the 13 attribute types load")
    func allTypes() throws {
        let result = loadModel("""
            {
              "name": "Types",
              "entities": [
                { "name": "Item", "attributes": [
                  { "name": "aString", "type": "string" },
                  { "name": "anInt16", "type": "int16" },
                  { "name": "anInt32", "type": "int32" },
                  { "name": "anInt64", "type": "int64" },
                  { "name": "aDecimal", "type": "decimal" },
                  { "name": "aDouble", "type": "double" },
                  { "name": "aFloat", "type": "float" },
                  { "name": "aBool", "type": "bool" },
                  { "name": "aDate", "type": "date" },
                  { "name": "aBinary", "type": "binary" },
                  { "name": "aUUID", "type": "uuid" },
                  { "name": "aURI", "type": "uri" },
                  { "name": "aTransformable", "type": "transformable", "transformer": "Colors" }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let item = try #require(result.schema?.entity(named: "Item"))
        #expect(item.attributes.map(\.type) == AttributeType.allCases)
        #expect(AttributeType.allCases.count == 13)
        #expect(item.attribute(named: "aTransformable")?.transformerName == "Colors")
    }

    @Test("an unknown type is an error with the type it most likely means", arguments: [
        ("strng", "; did you mean 'string'?"),
        ("String", "; did you mean 'string'?"),
        ("Int16", "; did you mean 'int16'?"),
        ("Date", "; did you mean 'date'?"),
        ("dat", "; did you mean 'date'?"),
        ("integer", "; did you mean 'int64'?"),
        ("boolean", "; did you mean 'bool'?"),
        ("text", "; did you mean 'string'?"),
        ("blob", "; did you mean 'binary'?"),
        ("datetime", "; did you mean 'date'?"),
        ("url", "; did you mean 'uri'?"),
        ("varchar", "; use one of string, int16, int32, int64, decimal, double, float, bool, date, binary, uuid, uri, transformable"),
    ])
    func unknownType(_ type: String, _ suggestion: String) {
        // The type's value starts 27 characters into the attribute, at column 34.
        let result = loadModel(modelWithAttribute(#"{ "name": "field", "type": "\#(type)" }"#))
        #expect(result.diagnostics == [
            .error("unknownType", "unknown attribute type '\(type)'\(suggestion)", at: "entities[0].attributes[0].type", line: 5, column: 34),
        ])
    }

    static let validDefaults: [DefaultValueCase] = [
        DefaultValueCase(#"{ "name": "field", "type": "string", "default": "Untitled" }"#, .string("Untitled")),
        DefaultValueCase(#"{ "name": "field", "type": "string", "default": "" }"#, .string("")),
        DefaultValueCase(#"{ "name": "field", "type": "int16", "default": -32768 }"#, .integer(-32768)),
        DefaultValueCase(#"{ "name": "field", "type": "int16", "default": 32767 }"#, .integer(32767)),
        DefaultValueCase(#"{ "name": "field", "type": "int32", "default": -2147483648 }"#, .integer(-2_147_483_648)),
        DefaultValueCase(#"{ "name": "field", "type": "int32", "default": 2147483647 }"#, .integer(2_147_483_647)),
        DefaultValueCase(#"{ "name": "field", "type": "int64", "default": -9223372036854775808 }"#, .integer(.min)),
        DefaultValueCase(#"{ "name": "field", "type": "int64", "default": 9223372036854775807 }"#, .integer(.max)),
        DefaultValueCase(#"{ "name": "field", "type": "int64", "default": 9007199254740993 }"#, .integer(9_007_199_254_740_993)),
        DefaultValueCase(#"{ "name": "field", "type": "decimal", "default": "12.50" }"#, .decimal(Decimal(1250) / 100)),
        DefaultValueCase(#"{ "name": "field", "type": "decimal", "default": 12.50 }"#, .decimal(Decimal(1250) / 100)),
        DefaultValueCase(#"{ "name": "field", "type": "decimal", "default": "-0.001" }"#, .decimal(Decimal(-1) / 1000)),
        DefaultValueCase(#"{ "name": "field", "type": "decimal", "default": "1e-3" }"#, .decimal(Decimal(1) / 1000)),
        DefaultValueCase(#"{ "name": "field", "type": "double", "default": 1.5 }"#, .double(1.5)),
        DefaultValueCase(#"{ "name": "field", "type": "double", "default": -2e-3 }"#, .double(-0.002)),
        DefaultValueCase(#"{ "name": "field", "type": "double", "default": "NaN" }"#, .double(.nan)),
        DefaultValueCase(#"{ "name": "field", "type": "double", "default": "Infinity" }"#, .double(.infinity)),
        DefaultValueCase(#"{ "name": "field", "type": "double", "default": "-Infinity" }"#, .double(-.infinity)),
        DefaultValueCase(#"{ "name": "field", "type": "float", "default": 0.25 }"#, .float(0.25)),
        DefaultValueCase(#"{ "name": "field", "type": "float", "default": 3.4028235e38 }"#, .float(.greatestFiniteMagnitude)),
        DefaultValueCase(#"{ "name": "field", "type": "float", "default": "-Infinity" }"#, .float(-.infinity)),
        DefaultValueCase(#"{ "name": "field", "type": "bool", "default": false }"#, .bool(false)),
        DefaultValueCase(#"{ "name": "field", "type": "bool", "default": true }"#, .bool(true)),
        DefaultValueCase(#"{ "name": "field", "type": "date", "default": "2024-05-01T10:00:00.000Z" }"#,
                         .date(Date(timeIntervalSince1970: 1_714_557_600))),
        DefaultValueCase(#"{ "name": "field", "type": "date", "default": "2024-05-01T12:00:00.000+02:00" }"#,
                         .date(Date(timeIntervalSince1970: 1_714_557_600))),
        DefaultValueCase(#"{ "name": "field", "type": "date", "default": 1714557600 }"#,
                         .date(Date(timeIntervalSince1970: 1_714_557_600))),
        DefaultValueCase(#"{ "name": "field", "type": "date", "default": "1969-12-31T23:59:59.000Z" }"#,
                         .date(Date(timeIntervalSince1970: -1))),
        DefaultValueCase(#"{ "name": "field", "type": "binary", "default": "iVBORw0KGgo=" }"#,
                         .binary(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))),
        DefaultValueCase(#"{ "name": "field", "type": "binary", "default": "" }"#, .binary(Data())),
        DefaultValueCase(#"{ "name": "field", "type": "uuid", "default": "3F2504E0-4F89-11D3-9A0C-0305E82C3301" }"#,
                         .uuid(UUID(uuid: (0x3F, 0x25, 0x04, 0xE0, 0x4F, 0x89, 0x11, 0xD3, 0x9A, 0x0C, 0x03, 0x05, 0xE8, 0x2C, 0x33, 0x01)))),
        DefaultValueCase(#"{ "name": "field", "type": "uuid", "default": "3f2504e0-4f89-11d3-9a0c-0305e82c3301" }"#,
                         .uuid(UUID(uuid: (0x3F, 0x25, 0x04, 0xE0, 0x4F, 0x89, 0x11, 0xD3, 0x9A, 0x0C, 0x03, 0x05, 0xE8, 0x2C, 0x33, 0x01)))),
        DefaultValueCase(#"{ "name": "field", "type": "uri", "default": "https://example.com/products" }"#,
                         .uri(URL(string: "https://example.com/products")!)),
        DefaultValueCase(#"{ "name": "field", "type": "transformable", "transformer": "Size", "default": "eyJ3aWR0aCI6MH0=" }"#,
                         .binary(Data(#"{"width":0}"#.utf8))),
    ]

    @Test("a default in the data format's encoding of its type loads as that value", arguments: validDefaults)
    func validDefault(_ testCase: DefaultValueCase) throws {
        let result = loadModel(modelWithAttribute(testCase.attribute))
        #expect(result.diagnostics == [])
        let attribute = try #require(result.schema?.entity(named: "Item")?.attribute(named: "field"))
        #expect(attribute.defaultValue == testCase.value)
    }

    @Test("an int64 default above 2^53 keeps its last digit")
    func exactInt64Default() throws {
        let result = loadModel(modelWithAttribute(#"{ "name": "serial", "type": "int64", "default": 9007199254740993 }"#))
        let schema = try #require(result.schema)
        let serial = try #require(schema.entity(named: "Item")?.attribute(named: "serial"))
        // 9007199254740993 is 2^53 + 1, the first integer a Double cannot hold.
        #expect(serial.defaultValue == .integer(9_007_199_254_740_993))
        #expect(serial.defaultValue != .integer(9_007_199_254_740_992))
        #expect(schema.jsonString.contains(#""default": 9007199254740993"#))
    }

    @Test("a 30-digit decimal default keeps every digit")
    func exactDecimalDefault() throws {
        let result = loadModel(modelWithAttribute(#"{ "name": "price", "type": "decimal", "default": "123456789012345678.901234567890" }"#))
        let schema = try #require(result.schema)
        let price = try #require(schema.entity(named: "Item")?.attribute(named: "price"))
        guard case .decimal(let value) = price.defaultValue else {
            Issue.record("expected a decimal default, found \(String(describing: price.defaultValue))")
            return
        }
        // The trailing zero is not significant; every other digit is kept.
        #expect(value.description == "123456789012345678.90123456789")
        #expect(value != Decimal(string: "123456789012345678.901234567891")!)
        #expect(value != Decimal(string: "123456789012345678.9012345678")!)
        #expect(schema.jsonString.contains(#""default": "123456789012345678.90123456789""#))
    }

    @Test("a date default keeps its milliseconds")
    func dateDefaultMilliseconds() throws {
        let result = loadModel(modelWithAttribute(#"{ "name": "at", "type": "date", "default": "2024-05-01T10:00:00.123Z" }"#))
        let at = try #require(result.schema?.entity(named: "Item")?.attribute(named: "at"))
        guard case .date(let date) = at.defaultValue else {
            Issue.record("expected a date default, found \(String(describing: at.defaultValue))")
            return
        }
        #expect((date.timeIntervalSince1970 * 1000).rounded() == 1_714_557_600_123)
        #expect(ISO8601.string(from: date) == "2024-05-01T10:00:00.123Z")
    }

    static let invalidDefaults: [DefaultCase] = [
        DefaultCase(#"{ "name": "field", "default": 40000, "type": "int16" }"#,
                    "invalid 'default' for an int16 attribute: expected an int16 (a whole number from -32768 to 32767), found 40000"),
        DefaultCase(#"{ "name": "field", "default": -32769, "type": "int16" }"#,
                    "invalid 'default' for an int16 attribute: expected an int16 (a whole number from -32768 to 32767), found -32769"),
        DefaultCase(#"{ "name": "field", "default": 2147483648, "type": "int32" }"#,
                    "invalid 'default' for an int32 attribute: expected an int32 (a whole number from -2147483648 to 2147483647), found 2147483648"),
        DefaultCase(#"{ "name": "field", "default": 9223372036854775808, "type": "int64" }"#,
                    "invalid 'default' for an int64 attribute: expected an int64 (a whole number from -9223372036854775808 to 9223372036854775807), found 9223372036854775808"),
        DefaultCase(#"{ "name": "field", "default": 1.5, "type": "int16" }"#,
                    "invalid 'default' for an int16 attribute: expected an int16 (a whole number from -32768 to 32767), found 1.5"),
        DefaultCase(#"{ "name": "field", "default": "1", "type": "int32" }"#,
                    "invalid 'default' for an int32 attribute: expected an int32 (a whole number from -2147483648 to 2147483647), found a string"),
        DefaultCase(#"{ "name": "field", "default": "12abc", "type": "decimal" }"#,
                    #"invalid 'default' for a decimal attribute: expected a decimal number like "12.50" with at most 38 significant digits, found "12abc""#),
        DefaultCase(#"{ "name": "field", "default": "123456789012345678901234567890123456789", "type": "decimal" }"#,
                    #"invalid 'default' for a decimal attribute: expected a decimal number like "12.50" with at most 38 significant digits, found "123456789012345678901234567890123456789""#),
        DefaultCase(#"{ "name": "field", "default": true, "type": "decimal" }"#,
                    #"invalid 'default' for a decimal attribute: expected a decimal written as a string, like "12.50", found a boolean"#),
        DefaultCase(#"{ "name": "field", "default": "nan", "type": "double" }"#,
                    #"invalid 'default' for a double attribute: expected a number (or "NaN", "Infinity", "-Infinity"), found a string"#),
        DefaultCase(#"{ "name": "field", "default": 1e400, "type": "double" }"#,
                    "invalid 'default' for a double attribute: 1e400 is out of the range of a double"),
        DefaultCase(#"{ "name": "field", "default": 1e39, "type": "float" }"#,
                    "invalid 'default' for a float attribute: 1e39 is out of the range of a float; use a double attribute"),
        DefaultCase(#"{ "name": "field", "default": "true", "type": "bool" }"#,
                    "invalid 'default' for a bool attribute: expected true or false, found a string"),
        DefaultCase(#"{ "name": "field", "default": 0, "type": "bool" }"#,
                    "invalid 'default' for a bool attribute: expected true or false, found a number"),
        DefaultCase(#"{ "name": "field", "default": "2024-13-01T00:00:00.000Z", "type": "date" }"#,
                    #"invalid 'default' for a date attribute: expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "2024-13-01T00:00:00.000Z""#),
        DefaultCase(#"{ "name": "field", "default": "2023-02-29T00:00:00.000Z", "type": "date" }"#,
                    #"invalid 'default' for a date attribute: expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "2023-02-29T00:00:00.000Z""#),
        DefaultCase(#"{ "name": "field", "default": "yesterday", "type": "date" }"#,
                    #"invalid 'default' for a date attribute: expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "yesterday""#),
        DefaultCase(#"{ "name": "field", "default": true, "type": "date" }"#,
                    #"invalid 'default' for a date attribute: expected an ISO 8601 date string like "2024-05-01T10:00:00.000Z" or seconds since 1970, found a boolean"#),
        DefaultCase(#"{ "name": "field", "default": "not base64!", "type": "binary" }"#,
                    #"invalid 'default' for a binary attribute: expected base64-encoded data, found "not base64!" which is not valid base64"#),
        DefaultCase(#"{ "name": "field", "default": "iVBORw0KGgo", "type": "binary" }"#,
                    #"invalid 'default' for a binary attribute: expected base64-encoded data, found "iVBORw0KGgo" which is not valid base64"#),
        DefaultCase(#"{ "name": "field", "default": 5, "type": "binary" }"#,
                    "invalid 'default' for a binary attribute: expected base64-encoded data in a string, found a number"),
        DefaultCase(#"{ "name": "field", "default": "%%", "type": "transformable", "transformer": "Size" }"#,
                    #"invalid 'default' for a transformable attribute: expected base64-encoded data, found "%%" which is not valid base64"#),
        DefaultCase(#"{ "name": "field", "default": "1234", "type": "uuid" }"#,
                    #"invalid 'default' for a uuid attribute: expected a UUID like "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", found "1234""#),
        DefaultCase(#"{ "name": "field", "default": "", "type": "uri" }"#,
                    #"invalid 'default' for a uri attribute: expected a URI like "https://example.com/a", found """#),
        DefaultCase(#"{ "name": "field", "default": 5, "type": "string" }"#,
                    "invalid 'default' for a string attribute: expected a string, found a number"),
    ]

    @Test("a default that is not in its type's encoding is an error at the default", arguments: invalidDefaults)
    func invalidDefault(_ testCase: DefaultCase) {
        let result = loadModel(modelWithAttribute(testCase.attribute))
        #expect(result.diagnostics == [
            .error("invalidValue", testCase.message, at: "entities[0].attributes[0].default", line: 5, column: 37),
        ])
        #expect(result.schema == nil)
    }

    @Test("min and max are read in the attribute type's encoding too")
    func invalidBound() {
        let result = loadModel(modelWithAttribute(#"{ "name": "field", "max": "ten", "type": "int16" }"#))
        #expect(result.diagnostics == [
            .error("invalidValue", "invalid 'max' for an int16 attribute: expected an int16 (a whole number from -32768 to 32767), found a string",
                   at: "entities[0].attributes[0].max", line: 5, column: 33),
        ])
    }

    static let defaultsBreakingRules: [DefaultCase] = [
        DefaultCase(#"{ "name": "field", "default": 10, "type": "int16", "max": 5 }"#,
                    "the default breaks the attribute's own rule: 10 is above the maximum 5"),
        DefaultCase(#"{ "name": "field", "default": -1, "type": "int32", "min": 0 }"#,
                    "the default breaks the attribute's own rule: -1 is below the minimum 0"),
        DefaultCase(#"{ "name": "field", "default": 9007199254740993, "type": "int64", "max": 9007199254740992 }"#,
                    "the default breaks the attribute's own rule: 9007199254740993 is above the maximum 9007199254740992"),
        DefaultCase(#"{ "name": "field", "default": "0.1", "type": "decimal", "max": "0.05" }"#,
                    "the default breaks the attribute's own rule: 0.1 is above the maximum 0.05"),
        DefaultCase(#"{ "name": "field", "default": "NaN", "type": "double", "min": 0 }"#,
                    "the default breaks the attribute's own rule: nan is below the minimum 0.0"),
        DefaultCase(#"{ "name": "field", "default": 1.5, "type": "float", "min": 0, "max": 1 }"#,
                    "the default breaks the attribute's own rule: 1.5 is above the maximum 1.0"),
        DefaultCase(#"{ "name": "field", "default": "1999-12-31T23:59:59.999Z", "type": "date", "min": "2000-01-01T00:00:00.000Z" }"#,
                    "the default breaks the attribute's own rule: 1999-12-31T23:59:59.999Z is below the minimum 2000-01-01T00:00:00.000Z"),
        DefaultCase(#"{ "name": "field", "default": "", "type": "string", "minLength": 1 }"#,
                    "the default breaks the attribute's own rule: 0 characters is shorter than the minimum length 1"),
        DefaultCase(#"{ "name": "field", "default": "toolong", "type": "string", "maxLength": 3 }"#,
                    "the default breaks the attribute's own rule: 7 characters is longer than the maximum length 3"),
        DefaultCase(#"{ "name": "field", "default": "abc", "type": "string", "regex": "[0-9]+" }"#,
                    #"the default breaks the attribute's own rule: "abc" does not match the pattern "[0-9]+""#),
        DefaultCase(#"{ "name": "field", "default": "FRA", "type": "string", "regex": "[A-Z]{2}" }"#,
                    #"the default breaks the attribute's own rule: "FRA" does not match the pattern "[A-Z]{2}""#),
    ]

    @Test("a default that breaks its attribute's min, max, lengths or regex is an error", arguments: defaultsBreakingRules)
    func defaultBreakingRule(_ testCase: DefaultCase) {
        let result = loadModel(modelWithAttribute(testCase.attribute))
        #expect(result.diagnostics == [
            .error("invalidDefault", testCase.message, at: "entities[0].attributes[0].default", line: 5, column: 37),
        ])
    }

    @Test("a default that keeps its attribute's rules loads", arguments: [
        #"{ "name": "field", "default": 5, "type": "int16", "min": 5, "max": 5 }"#,
        #"{ "name": "field", "default": "Infinity", "type": "double", "min": 0 }"#,
        #"{ "name": "field", "default": 1714557600, "type": "date", "min": "2024-05-01T10:00:00.000Z", "max": 1714557600 }"#,
        #"{ "name": "field", "default": "0.05", "type": "decimal", "min": 0, "max": "0.05" }"#,
        #"{ "name": "field", "default": "FR", "type": "string", "regex": "[A-Z]{2}", "minLength": 2, "maxLength": 2 }"#,
        #"{ "name": "field", "default": "12345", "type": "string", "regex": "\\d{5}" }"#,
        #"{ "name": "field", "default": "ABC", "type": "string", "regex": "(?i)[a-z]+" }"#,
        // Lengths count Characters: "é" written as e + U+0301, a flag, and a family are one each.
        #"{ "name": "field", "default": "e\u0301", "type": "string", "maxLength": 1, "minLength": 1 }"#,
        #"{ "name": "field", "default": "🇫🇷", "type": "string", "maxLength": 1, "minLength": 1 }"#,
        #"{ "name": "field", "default": "👩‍👩‍👧", "type": "string", "maxLength": 1, "minLength": 1 }"#,
    ])
    func defaultKeepingRules(_ attribute: String) {
        let result = loadModel(modelWithAttribute(attribute))
        #expect(result.diagnostics == [])
        #expect(result.isValid)
    }
}

// MARK: - Attribute rules

@Suite("Attribute rules")
struct AttributeRuleTests {
    @Test("min above max is an error", arguments: [
        (#"{ "name": "field", "min": 5, "type": "int16", "max": 1 }"#, "'min' (5) is greater than 'max' (1); swap them"),
        (#"{ "name": "field", "min": "2", "type": "decimal", "max": "1.5" }"#, "'min' (2) is greater than 'max' (1.5); swap them"),
        (#"{ "name": "field", "min": 0.5, "type": "double", "max": -0.5 }"#, "'min' (0.5) is greater than 'max' (-0.5); swap them"),
        (#"{ "name": "field", "min": 4102444800, "type": "date", "max": "2000-01-01T00:00:00.000Z" }"#,
         "'min' (2100-01-01T00:00:00.000Z) is greater than 'max' (2000-01-01T00:00:00.000Z); swap them"),
    ])
    func minAboveMax(_ attribute: String, _ message: String) {
        // 'min' is written first, so its value is at column 33.
        let result = loadModel(modelWithAttribute(attribute))
        #expect(result.diagnostics == [
            .error("invalidRange", message, at: "entities[0].attributes[0].min", line: 5, column: 33),
        ])
    }

    @Test("minLength above maxLength is an error")
    func minLengthAboveMaxLength() {
        let result = loadModel(modelWithAttribute(#"{ "name": "field", "minLength": 5, "type": "string", "maxLength": 1 }"#))
        #expect(result.diagnostics == [
            .error("invalidRange", "'minLength' (5) is greater than 'maxLength' (1); swap them",
                   at: "entities[0].attributes[0].minLength", line: 5, column: 39),
        ])
    }

    @Test("equal bounds are fine, and bounds load as values of the type")
    func equalBounds() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [
                  { "name": "count", "type": "int16", "min": 3, "max": 3 },
                  { "name": "code", "type": "string", "minLength": 2, "maxLength": 2 },
                  { "name": "since", "type": "date", "min": "2000-01-01T00:00:00.000Z", "max": 946684800 }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let item = try #require(result.schema?.entity(named: "Item"))
        #expect(item.attribute(named: "count")?.minimum == .integer(3))
        #expect(item.attribute(named: "count")?.maximum == .integer(3))
        #expect(item.attribute(named: "code")?.minLength == 2)
        #expect(item.attribute(named: "code")?.maxLength == 2)
        #expect(item.attribute(named: "since")?.minimum == .date(Date(timeIntervalSince1970: 946_684_800)))
        #expect(item.attribute(named: "since")?.maximum == .date(Date(timeIntervalSince1970: 946_684_800)))
    }

    @Test("a regex that does not compile is an error; one that does is kept")
    func regex() throws {
        let invalid = loadModel(modelWithAttribute(#"{ "name": "code", "regex": "[a-z", "type": "string" }"#))
        #expect(invalid.diagnostics == [
            .error("invalidRegex", "'regex' does not compile: '[a-z' is not a valid ICU regular expression",
                   at: "entities[0].attributes[0].regex", line: 5, column: 34),
        ])

        let valid = loadModel(modelWithAttribute(#"{ "name": "code", "regex": "[a-z]+(-[a-z]+)*", "type": "string" }"#))
        #expect(valid.diagnostics == [])
        #expect(try #require(valid.schema?.entity(named: "Item")?.attribute(named: "code")).regex == "[a-z]+(-[a-z]+)*")
    }

    @Test("keys that apply to other types are errors", arguments: [
        (#"{ "name": "field", "type": "string", "min": 1 }"#, "min", 51,
         "'min' applies only to numbers and dates, and 'field' is of type string; remove 'min'"),
        (#"{ "name": "field", "type": "bool", "max": 1 }"#, "max", 49,
         "'max' applies only to numbers and dates, and 'field' is of type bool; remove 'max'"),
        (#"{ "name": "field", "type": "int16", "minLength": 1 }"#, "minLength", 56,
         "'minLength' applies only to string attributes, and 'field' is of type int16; remove 'minLength'"),
        (#"{ "name": "field", "type": "int16", "maxLength": 1 }"#, "maxLength", 56,
         "'maxLength' applies only to string attributes, and 'field' is of type int16; remove 'maxLength'"),
        (#"{ "name": "field", "type": "uuid", "regex": "[0-9]+" }"#, "regex", 51,
         "'regex' applies only to string attributes, and 'field' is of type uuid; remove 'regex'"),
        (#"{ "name": "field", "type": "binary", "transformer": "Size" }"#, "transformer", 59,
         "'transformer' applies only to transformable attributes, and 'field' is of type binary; remove 'transformer'"),
        (#"{ "name": "field", "type": "string", "externalStorage": true }"#, "externalStorage", 63,
         "'externalStorage' applies only to binary and transformable attributes, and 'field' is of type string; remove 'externalStorage'"),
        (#"{ "name": "field", "type": "string", "externalStorage": false }"#, "externalStorage", 63,
         "'externalStorage' applies only to binary and transformable attributes, and 'field' is of type string; remove 'externalStorage'"),
    ])
    func inapplicableKey(_ attribute: String, _ key: String, _ column: Int, _ message: String) {
        let result = loadModel(modelWithAttribute(attribute))
        #expect(result.diagnostics == [
            .error("inapplicableKey", message, at: "entities[0].attributes[0].\(key)", line: 5, column: column),
        ])
    }

    @Test("keys on the types they apply to load")
    func applicableKeys() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [
                  { "name": "photo", "type": "binary", "externalStorage": true },
                  { "name": "size", "type": "transformable", "transformer": "Size", "externalStorage": true },
                  { "name": "code", "type": "string", "minLength": 1, "maxLength": 8, "regex": "[A-Z]+" },
                  { "name": "at", "type": "date", "min": 0 },
                  { "name": "price", "type": "decimal", "min": "0.01", "max": 1000 }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let item = try #require(result.schema?.entity(named: "Item"))
        #expect(item.attribute(named: "photo")?.allowsExternalStorage == true)
        #expect(item.attribute(named: "size")?.allowsExternalStorage == true)
        #expect(item.attribute(named: "size")?.transformerName == "Size")
        #expect(item.attribute(named: "code")?.allowsExternalStorage == false)
        #expect(item.attribute(named: "price")?.minimum == .decimal(Decimal(1) / 100))
        #expect(item.attribute(named: "price")?.maximum == .decimal(1000))
    }

    @Test("a transformable attribute needs a transformer")
    func transformableWithoutTransformer() {
        let result = loadModel(modelWithAttribute(#"{ "name": "colors", "type": "transformable" }"#))
        #expect(result.diagnostics == [
            .error("missingTransformer", "transformable attribute 'colors' needs a 'transformer': the name of a value transformer registered in code",
                   at: "entities[0].attributes[0]", line: 5, column: 7),
        ])
    }

    @Test("a transient attribute cannot be indexed")
    func transientIndexed() throws {
        let invalid = loadModel(modelWithAttribute(#"{ "name": "cache", "type": "string", "transient": true, "indexed": true }"#))
        #expect(invalid.diagnostics == [
            .error("transientIndexed", "transient attribute 'cache' cannot be indexed: no store keeps it; remove 'indexed' or 'transient'",
                   at: "entities[0].attributes[0].indexed", line: 5, column: 74),
        ])

        let transient = loadModel(modelWithAttribute(#"{ "name": "cache", "type": "string", "transient": true }"#))
        #expect(transient.diagnostics == [])
        let cache = try #require(transient.schema?.entity(named: "Item")?.attribute(named: "cache"))
        #expect(cache.isTransient)
        #expect(!cache.isIndexed)

        let indexed = loadModel(modelWithAttribute(#"{ "name": "cache", "type": "string", "indexed": true }"#))
        #expect(indexed.diagnostics == [])
        #expect(try #require(indexed.schema?.entity(named: "Item")?.attribute(named: "cache")).isIndexed)
    }

    @Test("an attribute is required unless it says optional: true")
    func attributeOptionality() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Item", "attributes": [
                  { "name": "title", "type": "string" },
                  { "name": "notes", "type": "string", "optional": true },
                  { "name": "code", "type": "string", "optional": false }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let item = try #require(result.schema?.entity(named: "Item"))
        #expect(item.attribute(named: "title")?.isOptional == false)
        #expect(item.attribute(named: "notes")?.isOptional == true)
        #expect(item.attribute(named: "code")?.isOptional == false)
    }
}

// MARK: - Relationships

@Suite("Relationships")
struct RelationshipTests {
    /// `Customer` with the relationship `orders` on line 5 and `Order` with the relationship
    /// `customer` on line 8, each starting at column 7.
    static func customerAndOrder(orders: String, customer: String) -> String {
        """
        {
          "name": "Shop",
          "entities": [
            { "name": "Customer", "relationships": [
              \(orders)
            ] },
            { "name": "Order", "relationships": [
              \(customer)
            ] }
          ]
        }
        """
    }

    static let orders = #"{ "name": "orders", "destination": "Order", "inverse": "customer", "toMany": true }"#
    static let customer = #"{ "name": "customer", "destination": "Customer", "inverse": "orders" }"#

    @Test("a one-to-many pair with matching inverses loads; a to-one is required by default")
    func validPair() throws {
        let result = loadModel(Self.customerAndOrder(orders: Self.orders, customer: Self.customer))
        #expect(result.diagnostics == [])
        let schema = try #require(result.schema)
        let orders = try #require(schema.entity(named: "Customer")?.relationship(named: "orders"))
        #expect(orders.destination == "Order")
        #expect(orders.inverse == "customer")
        #expect(orders.isToMany)
        #expect(!orders.isOrdered)
        #expect(orders.isOptional) // a to-many is bounded by minCount, never by optional
        #expect(orders.deleteRule == .nullify)
        let customer = try #require(schema.entity(named: "Order")?.relationship(named: "customer"))
        #expect(!customer.isToMany)
        #expect(!customer.isOptional)
    }

    @Test("a to-one is optional with optional: true")
    func optionalToOne() throws {
        let result = loadModel(Self.customerAndOrder(
            orders: Self.orders,
            customer: #"{ "name": "customer", "destination": "Customer", "inverse": "orders", "optional": true }"#))
        #expect(result.diagnostics == [])
        #expect(try #require(result.schema?.entity(named: "Order")?.relationship(named: "customer")).isOptional)
    }

    @Test("the destination must exist, with a suggestion when one is close")
    func unknownDestination() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Customer",
                  "relationships": [
                    { "name": "orders", "destination": "Ordr", "toMany": true },
                    { "name": "invoices", "destination": "Invoice", "toMany": true }
                  ] },
                { "name": "Order" }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("unknownEntity", "destination entity 'Ordr' does not exist; did you mean 'Order'?",
                   at: "entities[0].relationships[0].destination", line: 6, column: 44),
            .error("unknownEntity", "destination entity 'Invoice' does not exist",
                   at: "entities[0].relationships[1].destination", line: 7, column: 46),
        ])
    }

    @Test("the inverse must be a relationship of the destination, with a suggestion")
    func unknownInverse() {
        let result = loadModel(Self.customerAndOrder(
            orders: #"{ "name": "orders", "destination": "Order", "inverse": "custmer", "toMany": true }"#,
            customer: Self.customer))
        #expect(result.diagnostics == [
            .error("unknownInverse", "inverse 'custmer' of 'Customer.orders' is not a relationship of 'Order'; did you mean 'customer'?",
                   at: "entities[0].relationships[0].inverse", line: 5, column: 62),
            .error("invalidInverse", #"inverse 'Customer.orders' of 'Order.customer' names 'custmer' as its inverse; the two sides must name each other: add "inverse": "customer" to 'Customer.orders'"#,
                   at: "entities[1].relationships[0].inverse", line: 8, column: 67),
        ])
    }

    @Test("an inverse that names an attribute is an error")
    func inverseIsAnAttribute() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Customer", "relationships": [
                  { "name": "orders", "destination": "Order", "inverse": "number", "toMany": true }
                ] },
                { "name": "Order", "attributes": [ { "name": "number", "type": "int32" } ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("invalidInverse", "inverse 'number' of 'Customer.orders' is an attribute of 'Order', not a relationship",
                   at: "entities[0].relationships[0].inverse", line: 5, column: 62),
        ])
    }

    @Test("an inverse that points to a third entity is an error")
    func inversePointsElsewhere() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Customer", "relationships": [
                  { "name": "orders", "destination": "Order", "inverse": "store", "toMany": true }
                ] },
                { "name": "Store", "relationships": [
                  { "name": "orders", "destination": "Order", "inverse": "store", "toMany": true }
                ] },
                { "name": "Order", "relationships": [
                  { "name": "store", "destination": "Store", "inverse": "orders" }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("invalidInverse", "inverse 'Order.store' of 'Customer.orders' points to 'Store', not back to 'Customer'; set its destination to 'Customer' or name another inverse",
                   at: "entities[0].relationships[0].inverse", line: 5, column: 62),
        ])
    }

    @Test("the two sides must name each other")
    func inverseDoesNotNameThisRelationship() {
        let namesNothing = loadModel(Self.customerAndOrder(
            orders: Self.orders,
            customer: #"{ "name": "customer", "destination": "Customer" }"#))
        #expect(namesNothing.diagnostics == [
            .error("invalidInverse", #"inverse 'Order.customer' of 'Customer.orders' names no inverse; the two sides must name each other: add "inverse": "orders" to 'Order.customer'"#,
                   at: "entities[0].relationships[0].inverse", line: 5, column: 62),
            .warning("missingInverse", "relationship 'Order.customer' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Customer' that points back, and name it in 'inverse'",
                     at: "entities[1].relationships[0]", line: 8, column: 7),
        ])

        let namesAnother = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Customer", "relationships": [
                  { "name": "orders", "destination": "Order", "inverse": "customer", "toMany": true },
                  { "name": "favourites", "destination": "Order", "inverse": "customer", "toMany": true }
                ] },
                { "name": "Order", "relationships": [
                  { "name": "customer", "destination": "Customer", "inverse": "orders" }
                ] }
              ]
            }
            """)
        #expect(namesAnother.diagnostics == [
            .error("invalidInverse", #"inverse 'Order.customer' of 'Customer.favourites' names 'orders' as its inverse; the two sides must name each other: add "inverse": "favourites" to 'Order.customer'"#,
                   at: "entities[0].relationships[1].inverse", line: 6, column: 66),
        ])
    }

    @Test("a to-many may be its own inverse (symmetric)")
    func symmetricRelationship() throws {
        let result = loadModel("""
            {
              "name": "People",
              "entities": [
                { "name": "Person", "relationships": [
                  { "name": "friends", "destination": "Person", "inverse": "friends", "toMany": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let friends = try #require(result.schema?.entity(named: "Person")?.relationship(named: "friends"))
        #expect(friends.inverse == "friends")
        #expect(friends.destination == "Person")
    }

    /// `Photo.album`'s inverse `Album.photos` has `Photo`'s parent `Asset` as destination, which
    /// this side accepts. (`Album.photos` is then checked on its own: its inverse must be a
    /// relationship of `Asset`, which `album` is not — that error is the only one.)
    @Test("an inverse whose destination is an ancestor satisfies this side")
    func inverseToAncestor() {
        let toAncestor = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Asset" },
                { "name": "Photo", "parent": "Asset", "relationships": [
                  { "name": "album", "destination": "Album", "inverse": "photos" }
                ] },
                { "name": "Album", "relationships": [
                  { "name": "photos", "destination": "Asset", "inverse": "album", "toMany": true }
                ] }
              ]
            }
            """)
        #expect(toAncestor.diagnostics == [
            .error("unknownInverse", "inverse 'album' of 'Album.photos' is not a relationship of 'Asset'",
                   at: "entities[2].relationships[0].inverse", line: 9, column: 62),
        ])

        // The same with a sibling instead of the ancestor: now Photo's side is wrong too.
        let toSibling = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Asset" },
                { "name": "Photo", "parent": "Asset", "relationships": [
                  { "name": "album", "destination": "Album", "inverse": "photos" }
                ] },
                { "name": "Video", "parent": "Asset" },
                { "name": "Album", "relationships": [
                  { "name": "photos", "destination": "Video", "inverse": "album", "toMany": true }
                ] }
              ]
            }
            """)
        #expect(toSibling.diagnostics == [
            .error("invalidInverse", "inverse 'Album.photos' of 'Photo.album' points to 'Video', not back to 'Photo'; set its destination to 'Photo' or name another inverse",
                   at: "entities[1].relationships[0].inverse", line: 6, column: 61),
            .error("unknownInverse", "inverse 'album' of 'Album.photos' is not a relationship of 'Video'",
                   at: "entities[3].relationships[0].inverse", line: 10, column: 62),
        ])
    }

    @Test("an inverse inherited by the destination counts")
    func inheritedInverse() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Owner", "relationships": [
                  { "name": "assets", "destination": "Asset", "inverse": "owner", "toMany": true }
                ] },
                { "name": "Asset", "relationships": [
                  { "name": "owner", "destination": "Owner", "inverse": "assets" }
                ] },
                { "name": "Photo", "parent": "Asset" },
                { "name": "Camera", "relationships": [
                  { "name": "lastPhoto", "destination": "Photo", "optional": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .warning("missingInverse", "relationship 'Camera.lastPhoto' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Photo' that points back, and name it in 'inverse'",
                     at: "entities[3].relationships[0]", line: 12, column: 7),
        ])
    }

    @Test("a relationship without an inverse loads, with a warning")
    func missingInverse() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Product", "relationships": [
                  { "name": "replacement", "destination": "Product", "optional": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .warning("missingInverse", "relationship 'Product.replacement' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Product' that points back, and name it in 'inverse'",
                     at: "entities[0].relationships[0]", line: 5, column: 7),
        ])
        #expect(try #require(result.schema?.entity(named: "Product")?.relationship(named: "replacement")).inverse == nil)
    }

    /// A self-inverse to-one `Node.next` with `deleteRule` first: its value is at line 5, column 39.
    static func nodeModel(deleteRule: String) -> String {
        """
        {
          "name": "Graph",
          "entities": [
            { "name": "Node", "relationships": [
              { "name": "next", "deleteRule": "\(deleteRule)", "destination": "Node", "inverse": "next", "optional": true }
            ] }
          ]
        }
        """
    }

    @Test("the four delete rules load", arguments: DeleteRule.allCases)
    func deleteRule(_ rule: DeleteRule) throws {
        let result = loadModel(Self.nodeModel(deleteRule: rule.rawValue))
        #expect(result.diagnostics == [])
        #expect(try #require(result.schema?.entity(named: "Node")?.relationship(named: "next")).deleteRule == rule)
    }

    @Test("an unknown delete rule is an error, with a suggestion when one is close", arguments: [
        ("cascde", "; did you mean 'cascade'?"),
        ("Cascade", "; did you mean 'cascade'?"),
        ("no_action", "; did you mean 'noAction'?"),
        ("destroy", "; use one of nullify, cascade, deny, noAction"),
    ])
    func invalidDeleteRule(_ rule: String, _ suggestion: String) {
        let result = loadModel(Self.nodeModel(deleteRule: rule))
        #expect(result.diagnostics == [
            .error("invalidValue", "unknown delete rule '\(rule)'\(suggestion)",
                   at: "entities[0].relationships[0].deleteRule", line: 5, column: 39),
        ])
    }

    @Test("optional on a to-many has no effect and gets a warning", arguments: [
        (true, ""),
        (false, #" ("minCount": 1 requires at least one)"#),
    ])
    func optionalOnToMany(_ optional: Bool, _ hint: String) throws {
        let result = loadModel(Self.customerAndOrder(
            orders: #"{ "name": "orders", "optional": \#(optional), "destination": "Order", "inverse": "customer", "toMany": true }"#,
            customer: Self.customer))
        #expect(result.diagnostics == [
            .warning("ignoredOptional", "'optional' has no effect on to-many relationship 'orders'; bound it with 'minCount'/'maxCount' instead\(hint)",
                     at: "entities[0].relationships[0].optional", line: 5, column: 39),
        ])
        #expect(try #require(result.schema?.entity(named: "Customer")?.relationship(named: "orders")).isOptional)
    }

    @Test("minCount and maxCount on a to-one are errors", arguments: ["minCount", "maxCount"])
    func countOnToOne(_ key: String) {
        let result = loadModel(Self.customerAndOrder(
            orders: Self.orders,
            customer: #"{ "name": "customer", "\#(key)": 1, "destination": "Customer", "inverse": "orders" }"#))
        #expect(result.diagnostics == [
            .error("inapplicableKey", "'\(key)' applies only to to-many relationships; a to-one is bounded by 'optional'",
                   at: "entities[1].relationships[0].\(key)", line: 8, column: 41),
        ])
    }

    @Test("ordered on a to-one is an error; on a to-many it loads")
    func ordered() throws {
        let toOne = loadModel(Self.customerAndOrder(
            orders: Self.orders,
            customer: #"{ "name": "customer", "ordered": true, "destination": "Customer", "inverse": "orders" }"#))
        #expect(toOne.diagnostics == [
            .error("orderedToOne", #"'ordered' applies only to to-many relationships; add "toMany": true to 'customer' or remove 'ordered'"#,
                   at: "entities[1].relationships[0].ordered", line: 8, column: 40),
        ])

        let toMany = loadModel(Self.customerAndOrder(
            orders: #"{ "name": "orders", "ordered": true, "destination": "Order", "inverse": "customer", "toMany": true }"#,
            customer: Self.customer))
        #expect(toMany.diagnostics == [])
        #expect(try #require(toMany.schema?.entity(named: "Customer")?.relationship(named: "orders")).isOrdered)
    }

    @Test("minCount ≤ maxCount, where a maxCount of 0 means no bound")
    func counts() throws {
        let invalid = loadModel(Self.customerAndOrder(
            orders: #"{ "name": "orders", "minCount": 3, "maxCount": 2, "destination": "Order", "inverse": "customer", "toMany": true }"#,
            customer: Self.customer))
        #expect(invalid.diagnostics == [
            .error("invalidRange", "'minCount' (3) is greater than 'maxCount' (2); swap them, or set 'maxCount' to 0 for no upper bound",
                   at: "entities[0].relationships[0].minCount", line: 5, column: 39),
        ])

        for (minCount, maxCount) in [(3, 0), (2, 2), (0, 5)] {
            let valid = loadModel(Self.customerAndOrder(
                orders: #"{ "name": "orders", "minCount": \#(minCount), "maxCount": \#(maxCount), "destination": "Order", "inverse": "customer", "toMany": true }"#,
                customer: Self.customer))
            #expect(valid.diagnostics == [])
            let orders = try #require(valid.schema?.entity(named: "Customer")?.relationship(named: "orders"))
            #expect(orders.minCount == minCount)
            #expect(orders.maxCount == maxCount)
        }
    }
}

// MARK: - Inheritance

@Suite("Inheritance")
struct InheritanceTests {
    @Test("the parent must exist, with a suggestion")
    func unknownParent() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Asset" },
                { "name": "Photo", "parent": "Assett" }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("unknownEntity", "parent entity 'Assett' does not exist; did you mean 'Asset'?",
                   at: "entities[1].parent", line: 5, column: 34),
        ])
    }

    @Test("a parent chain must not loop back")
    func cycles() {
        let twoEntities = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "A", "parent": "B" },
                { "name": "B", "parent": "A" },
                { "name": "C", "parent": "A" }
              ]
            }
            """)
        // C hangs off the cycle without being part of it: only A and B are reported.
        #expect(twoEntities.diagnostics == [
            .error("inheritanceCycle", "inheritance cycle: A → B → A; an entity cannot be its own ancestor",
                   at: "entities[0].parent", line: 4, column: 30),
            .error("inheritanceCycle", "inheritance cycle: B → A → B; an entity cannot be its own ancestor",
                   at: "entities[1].parent", line: 5, column: 30),
        ])

        let selfParent = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "A", "parent": "A" }
              ]
            }
            """)
        #expect(selfParent.diagnostics == [
            .error("inheritanceCycle", "inheritance cycle: A → A; an entity cannot be its own ancestor",
                   at: "entities[0].parent", line: 4, column: 30),
        ])
    }

    /// A chain of `count` entities, E0 the root with one attribute, each next one a subentity
    /// of the one before.
    static func chain(_ count: Int, cycle: Bool = false) -> Data {
        var entities: [[String: Any]] = [["name": "E0", "attributes": [["name": "a", "type": "string", "optional": true]]]]
        for level in 1..<count { entities.append(["name": "E\(level)", "parent": "E\(level - 1)"]) }
        if cycle { entities[0]["parent"] = "E\(count - 1)" }
        return try! JSONSerialization.data(withJSONObject: ["name": "Chain", "entities": entities])
    }

    @Test("an inheritance chain may be maximumInheritanceDepth levels deep, and no deeper")
    func inheritanceDepthIsBounded() throws {
        let limit = Schema.maximumInheritanceDepth
        #expect(limit == 100)
        let deepest = try Schema(data: Self.chain(limit + 1))
        let last = try #require(deepest.entity(named: "E\(limit)"))
        #expect(last.ancestorNames.count == limit)
        #expect(last.rootName == "E0")
        #expect(last.attribute(named: "a") != nil)
        #expect(deepest.entityAndDescendants(of: "E0").count == limit + 1)
        #expect(deepest.entityAndDescendants(of: "E\(limit - 1)").map(\.name) == ["E\(limit - 1)", "E\(limit)"])

        // 10,000 levels (H1: took over a minute): one error, at the first entity past the
        // limit; the entities below it are not reported again.
        for count in [limit + 2, 10_000] {
            let result = Schema.load(data: Self.chain(count), file: "chain.json")
            #expect(result.schema == nil)
            #expect(result.diagnostics.map(\.code) == ["inheritanceTooDeep"])
            #expect(result.diagnostics.first?.path == "entities[\(limit + 1)].parent")
            #expect(result.diagnostics.first?.message == "entity 'E\(limit + 1)' has more than 100 ancestors; an inheritance chain may be at most 100 levels deep below its root")
        }
    }

    @Test("a cycle of 10,000 entities: one short message per member")
    func longCycle() {
        let result = Schema.load(data: Self.chain(10_000, cycle: true), file: "chain.json")
        #expect(result.schema == nil)
        #expect(result.diagnostics.count == 10_000)
        #expect(result.diagnostics.allSatisfy { $0.code == "inheritanceCycle" })
        let first = result.diagnostics.first { $0.path == "entities[0].parent" }
        #expect(first?.message == "inheritance cycle: E0 → E9999 → E9998 → E9997 → E9996 → … (9995 more) → E0; an entity cannot be its own ancestor")
    }

    @Test("a subentity cannot redeclare an inherited property, compared case-insensitively")
    func redeclaredProperty() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Asset", "attributes": [ { "name": "title", "type": "string" } ] },
                { "name": "Document", "parent": "Asset", "attributes": [
                  { "name": "title", "type": "string" },
                  { "name": "pages", "type": "int16" }
                ] },
                { "name": "Scan", "parent": "Document", "attributes": [
                  { "name": "pagES", "type": "int16" }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("redeclaredProperty", "'title' is already declared by ancestor entity 'Asset'; remove it here, a subentity inherits it",
                   at: "entities[1].attributes[0].name", line: 6, column: 17),
            .error("redeclaredProperty", "'pagES' is already declared by ancestor entity 'Document'; remove it here, a subentity inherits it",
                   at: "entities[2].attributes[0].name", line: 10, column: 17),
        ])
    }

    @Test("an abstract entity without concrete subentities gets a warning")
    func abstractWithoutSubentities() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Shape", "abstract": true },
                { "name": "Region", "abstract": true },
                { "name": "Country", "parent": "Region", "abstract": true }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .warning("abstractWithoutSubentities", #"abstract entity 'Shape' has no concrete subentities, so it can never have objects; add one with "parent": "Shape" or remove 'abstract'"#,
                     at: "entities[0].abstract", line: 4, column: 36),
            .warning("abstractWithoutSubentities", #"abstract entity 'Region' has no concrete subentities, so it can never have objects; add one with "parent": "Region" or remove 'abstract'"#,
                     at: "entities[1].abstract", line: 5, column: 37),
            .warning("abstractWithoutSubentities", #"abstract entity 'Country' has no concrete subentities, so it can never have objects; add one with "parent": "Country" or remove 'abstract'"#,
                     at: "entities[2].abstract", line: 6, column: 58),
        ])
        #expect(try #require(result.schema).entity(named: "Shape")?.isAbstract == true)
    }

    @Test("an abstract entity with a concrete grandchild is fine")
    func abstractWithConcreteGrandchild() throws {
        let result = loadModel("""
            {
              "name": "Geography",
              "entities": [
                { "name": "Region", "abstract": true },
                { "name": "Country", "parent": "Region", "abstract": true },
                { "name": "City", "parent": "Country" }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let schema = try #require(result.schema)
        #expect(schema.entities.map(\.isAbstract) == [true, true, false])
    }
}

// MARK: - Uniqueness constraints and indexes

@Suite("Uniqueness constraints and indexes")
struct ConstraintAndIndexTests {
    @Test("constraints name attributes and to-one relationships, inherited ones included")
    func validConstraints() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Party", "attributes": [ { "name": "email", "type": "string" } ] },
                { "name": "Customer", "parent": "Party",
                  "relationships": [ { "name": "store", "destination": "Store", "inverse": "customers" } ],
                  "uniquenessConstraints": [ ["email"], ["store", "email"] ] },
                { "name": "Store", "relationships": [
                  { "name": "customers", "destination": "Customer", "inverse": "store", "toMany": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let customer = try #require(result.schema?.entity(named: "Customer"))
        #expect(customer.uniquenessConstraints == [["email"], ["store", "email"]])
    }

    @Test("constraints cannot name unknown, to-many or transient properties, nor be empty")
    func invalidConstraints() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Store",
                  "attributes": [
                    { "name": "name", "type": "string" },
                    { "name": "cache", "type": "string", "optional": true, "transient": true }
                  ],
                  "relationships": [
                    { "name": "customers", "destination": "Customer", "inverse": "store", "toMany": true }
                  ],
                  "uniquenessConstraints": [ ["nmae"], ["customers"], ["cache"], [], ["name", "name"] ] },
                { "name": "Customer", "relationships": [
                  { "name": "store", "destination": "Store", "inverse": "customers" }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("unknownProperty", "a uniqueness constraint names 'nmae', which is not a property of 'Store'; did you mean 'name'?",
                   at: "entities[0].uniquenessConstraints[0][0]", line: 12, column: 35),
            .error("toManyProperty", "a uniqueness constraint cannot use to-many relationship 'customers'; only attributes and to-one relationships",
                   at: "entities[0].uniquenessConstraints[1][0]", line: 12, column: 45),
            .error("transientProperty", "a uniqueness constraint cannot use transient attribute 'cache': no store keeps it",
                   at: "entities[0].uniquenessConstraints[2][0]", line: 12, column: 60),
            .error("emptyConstraint", #"a uniqueness constraint needs at least one property name, like ["email"]"#,
                   at: "entities[0].uniquenessConstraints[3]", line: 12, column: 70),
            .error("duplicateName", "'name' appears twice in a uniqueness constraint",
                   at: "entities[0].uniquenessConstraints[4][1]", line: 12, column: 83),
        ])
    }

    @Test("indexes name attributes and to-one relationships, inherited ones included")
    func validIndexes() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Asset", "attributes": [ { "name": "createdAt", "type": "date" } ],
                  "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "assets" } ] },
                { "name": "Photo", "parent": "Asset",
                  "indexes": [
                    { "name": "byOwnerNewestFirst",
                      "elements": [ { "property": "owner", "order": "ascending" }, { "property": "createdAt", "order": "descending" } ] }
                  ] },
                { "name": "Owner", "relationships": [
                  { "name": "assets", "destination": "Asset", "inverse": "owner", "toMany": true }
                ] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let photo = try #require(result.schema?.entity(named: "Photo"))
        #expect(photo.indexes == [
            IndexDescription(name: "byOwnerNewestFirst", elements: [
                .init(property: "owner", order: .ascending), .init(property: "createdAt", order: .descending),
            ]),
        ])
    }

    @Test("index elements must be known, stored, to-one properties with a valid order; indexes not empty, names unique")
    func invalidIndexes() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Todo",
                  "attributes": [
                    { "name": "createdAt", "type": "date" },
                    { "name": "cache", "type": "string", "optional": true, "transient": true }
                  ],
                  "relationships": [ { "name": "tags", "destination": "Todo", "inverse": "tags", "toMany": true } ],
                  "indexes": [
                    { "name": "byDate", "elements": [ { "property": "createdAd" }, { "property": "createdAt", "order": "decending" } ] },
                    { "name": "byTags", "elements": [ { "property": "tags" }, { "property": "cache", "order": "desc" } ] },
                    { "name": "empty", "elements": [] },
                    { "name": "ByDate", "elements": [ { "property": "createdAt" } ] }
                  ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("unknownProperty", "index 'byDate' names 'createdAd', which is not a property of 'Todo'; did you mean 'createdAt'?",
                   at: "entities[0].indexes[0].elements[0].property", line: 11, column: 57),
            .error("invalidValue", "unknown index order 'decending'; use 'ascending' or 'descending'; did you mean 'descending'?",
                   at: "entities[0].indexes[0].elements[1].order", line: 11, column: 108),
            .error("toManyProperty", "index 'byTags' cannot use to-many relationship 'tags'; only attributes and to-one relationships",
                   at: "entities[0].indexes[1].elements[0].property", line: 12, column: 57),
            .error("transientProperty", "index 'byTags' cannot use transient attribute 'cache': no store keeps it",
                   at: "entities[0].indexes[1].elements[1].property", line: 12, column: 81),
            .error("invalidValue", "unknown index order 'desc'; use 'ascending' or 'descending'",
                   at: "entities[0].indexes[1].elements[1].order", line: 12, column: 99),
            .error("emptyIndex", #"an index needs at least one element, like {"property": "createdAt"}"#,
                   at: "entities[0].indexes[2].elements", line: 13, column: 40),
            .error("duplicateName", "duplicate index name 'ByDate' (first used by entity 'Todo'); index names are unique in a model",
                   at: "entities[0].indexes[3].name", line: 14, column: 19),
        ])
    }

    @Test("index names are unique across the whole model")
    func duplicateIndexNamesAcrossEntities() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [
                { "name": "Todo", "attributes": [ { "name": "title", "type": "string" } ],
                  "indexes": [ { "name": "byTitle", "elements": [ { "property": "title" } ] } ] },
                { "name": "Note", "attributes": [ { "name": "title", "type": "string" } ],
                  "indexes": [ { "name": "byTitle", "elements": [ { "property": "title" } ] } ] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("duplicateName", "duplicate index name 'byTitle' (first used by entity 'Todo'); index names are unique in a model",
                   at: "entities[1].indexes[0].name", line: 7, column: 30),
        ])
    }
}

// MARK: - Configurations

@Suite("Configurations")
struct ConfigurationTests {
    @Test("configurations name entities of the model")
    func validConfigurations() throws {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [ { "name": "Product" }, { "name": "Order" } ],
              "configurations": [
                { "name": "Catalog", "entities": ["Product"] },
                { "name": "UserData", "entities": ["Order", "Product"] }
              ]
            }
            """)
        #expect(result.diagnostics == [])
        let schema = try #require(result.schema)
        #expect(schema.configurations == [
            ConfigurationDescription(name: "Catalog", entityNames: ["Product"]),
            ConfigurationDescription(name: "UserData", entityNames: ["Order", "Product"]),
        ])
    }

    @Test("unknown entities, repeated entities and duplicate configuration names are errors")
    func invalidConfigurations() {
        let result = loadModel("""
            {
              "name": "Shop",
              "entities": [ { "name": "Product" }, { "name": "Order" } ],
              "configurations": [
                { "name": "Catalog", "entities": ["Prodcut", "Order", "Order"] },
                { "name": "Catalog", "entities": ["Invoice"] }
              ]
            }
            """)
        #expect(result.diagnostics == [
            .error("unknownEntity", "configuration 'Catalog' names entity 'Prodcut', which does not exist; did you mean 'Product'?",
                   at: "configurations[0].entities[0]", line: 5, column: 39),
            .error("duplicateName", "'Order' appears twice in a configuration",
                   at: "configurations[0].entities[2]", line: 5, column: 59),
            .error("duplicateName", "duplicate configuration name 'Catalog'",
                   at: "configurations[1].name", line: 6, column: 15),
            .error("unknownEntity", "configuration 'Catalog' names entity 'Invoice', which does not exist",
                   at: "configurations[1].entities[0]", line: 6, column: 39),
        ])
    }
}

// MARK: - Reporting

@Suite("Reporting")
struct ReportingTests {
    static let brokenModel = """
        {
          "name": "Shop",
          "entities": [
            { "name": "Customer",
              "attributes": [
                { "name": "email", "type": "strng" },
                { "name": "age", "type": "int16", "min": 200, "max": 100 }
              ],
              "relationships": [
                { "name": "orders", "destination": "Ordr", "toMany": true }
              ] },
            { "name": "Order", "parent": "Purchase",
              "attributes": [ { "name": "total", "type": "decimal", "default": "12,50" } ],
              "uniquenessConstraints": [ ["number"] ] }
          ],
          "tags": []
        }
        """

    static let brokenModelDiagnostics: [Diagnostic] = [
        .error("unknownType", "unknown attribute type 'strng'; did you mean 'string'?",
               at: "entities[0].attributes[0].type", line: 6, column: 36),
        .error("invalidRange", "'min' (200) is greater than 'max' (100); swap them",
               at: "entities[0].attributes[1].min", line: 7, column: 50),
        .error("unknownEntity", "destination entity 'Ordr' does not exist; did you mean 'Order'?",
               at: "entities[0].relationships[0].destination", line: 10, column: 44),
        .error("unknownEntity", "parent entity 'Purchase' does not exist",
               at: "entities[1].parent", line: 12, column: 34),
        .error("invalidValue", #"invalid 'default' for a decimal attribute: expected a decimal number like "12.50" with at most 38 significant digits, found "12,50""#,
               at: "entities[1].attributes[0].default", line: 13, column: 72),
        .error("unknownProperty", "a uniqueness constraint names 'number', which is not a property of 'Order'",
               at: "entities[1].uniquenessConstraints[0][0]", line: 14, column: 35),
        .error("unknownKey", "unknown key 'tags' in the model; expected one of 'name', 'version', 'versionHashModifier', 'entities', 'configurations'",
               at: "tags", line: 16, column: 3),
    ]

    @Test("every problem is reported at once, in the order of the file")
    func everyProblemAtOnce() {
        let result = loadModel(Self.brokenModel)
        #expect(result.schema == nil)
        #expect(!result.isValid)
        #expect(result.diagnostics == Self.brokenModelDiagnostics)
    }

    @Test("the throwing initializer carries the same diagnostics")
    func schemaErrorCarriesEveryDiagnostic() throws {
        let error = try #require(throws: SchemaError.self) {
            try Schema(data: Data(Self.brokenModel.utf8), file: modelFile)
        }
        #expect(error.code == .invalidSchema)
        #expect(error.file == modelFile)
        #expect(error.diagnostics == Self.brokenModelDiagnostics)
    }

    @Test("warnings do not stop a model from loading; errors do")
    func warningsAndErrors() throws {
        let onlyWarnings = """
            {
              "name": "Shop",
              "entities": [ { "name": "Shape", "abstract": true } ]
            }
            """
        let result = loadModel(onlyWarnings)
        #expect(result.diagnostics.map(\.code) == ["abstractWithoutSubentities"])
        #expect(result.diagnostics.warnings.count == 1)
        #expect(result.diagnostics.errors.isEmpty)
        #expect(!result.diagnostics.hasErrors)
        #expect(result.isValid)
        _ = try Schema(data: Data(onlyWarnings.utf8))
    }
}
