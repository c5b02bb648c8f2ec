import Foundation
import Strata
import Testing

@Suite("Diagnostic")
struct DiagnosticTests {
    @Test("description reads file:line:column: severity: message [path]")
    func descriptionWithEverything() {
        let diagnostic = Diagnostic(
            severity: .error, code: "unknownType", message: "unknown attribute type 'strng'; did you mean 'string'?",
            path: "entities[0].attributes[1].type", file: "Schemas/x.json", location: SourceLocation(line: 12, column: 7))
        #expect(diagnostic.description
            == "Schemas/x.json:12:7: error: unknown attribute type 'strng'; did you mean 'string'? [entities[0].attributes[1].type]")
    }

    @Test("description leaves out what the diagnostic does not have", arguments: [
        (Diagnostic(severity: .warning, code: "missingInverse", message: "no inverse", path: "entities[0].relationships[0]",
                    file: "Model.json", location: SourceLocation(line: 5, column: 7)),
         "Model.json:5:7: warning: no inverse [entities[0].relationships[0]]"),
        (Diagnostic(severity: .error, code: "invalidJSON", message: "malformed JSON: the document is empty; expected a JSON value", path: "",
                    file: "Model.json", location: SourceLocation(line: 1, column: 1)),
         "Model.json:1:1: error: malformed JSON: the document is empty; expected a JSON value"),
        (Diagnostic(severity: .error, code: "unknownEntity", message: "destination entity 'Ordr' does not exist", path: "entities[0].relationships[0].destination",
                    file: "Model.json"),
         "Model.json: error: destination entity 'Ordr' does not exist [entities[0].relationships[0].destination]"),
        (Diagnostic(severity: .error, code: "unknownKey", message: "unknown key 'x' in the model", path: "x",
                    location: SourceLocation(line: 3, column: 4)),
         "3:4: error: unknown key 'x' in the model [x]"),
        (Diagnostic(severity: .warning, code: "noEntities", message: "the model has no entities", path: ""),
         "warning: the model has no entities"),
    ])
    func descriptionParts(_ diagnostic: Diagnostic, _ expected: String) {
        #expect(diagnostic.description == expected)
    }

    @Test("a loaded model's diagnostics print like a compiler's")
    func loadedDiagnosticDescription() {
        let result = loadModel(modelWithAttribute(#"{ "name": "title", "type": "strng" }"#))
        #expect(result.diagnostics.map(\.description) == [
            "Model.json:5:34: error: unknown attribute type 'strng'; did you mean 'string'? [entities[0].attributes[0].type]",
        ])
    }

    @Test("location, isError, errors and warnings")
    func accessors() {
        let error = Diagnostic.error("c", "m", at: "p", line: 2, column: 3)
        let warning = Diagnostic.warning("c", "m", at: "p", line: 1, column: 1)
        #expect(error.location == SourceLocation(line: 2, column: 3))
        #expect(Diagnostic(severity: .error, code: "c", message: "m", path: "").location == nil)
        #expect(error.isError)
        #expect(!warning.isError)
        #expect([warning, error].errors == [error])
        #expect([warning, error].warnings == [warning])
        #expect([warning, error].hasErrors)
        #expect(![warning].hasErrors)
        #expect(Diagnostic.Severity.warning < .error)
        #expect(!(Diagnostic.Severity.error < .warning))
    }

    @Test("diagnostics encode to the JSON that strata validate --format json prints, and back")
    func codable() throws {
        let diagnostic = Diagnostic.error("unknownKey", "unknown key 'x' in the model", at: "x", line: 3, column: 4)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(diagnostic), as: UTF8.self)
        #expect(json == #"{"code":"unknownKey","column":4,"file":"Model.json","line":3,"message":"unknown key 'x' in the model","path":"x","severity":"error"}"#)
        #expect(try JSONDecoder().decode(Diagnostic.self, from: Data(json.utf8)) == diagnostic)
    }
}

@Suite("SchemaError")
struct SchemaErrorTests {
    @Test("an invalid model's error lists a heading and every diagnostic")
    func invalidSchemaDescription() throws {
        let text = """
            {
              "name": "Shop",
              "entities": [ { "name": "Shape", "abstract": true, "parent": "Shap" } ]
            }
            """
        let error = try #require(throws: SchemaError.self) { try Schema(data: Data(text.utf8), file: modelFile) }
        #expect(error.description == """
            Model.json has 1 error:
              Model.json:3:48: warning: abstract entity 'Shape' has no concrete subentities, so it can never have objects; add one with "parent": "Shape" or remove 'abstract' [entities[0].abstract]
              Model.json:3:64: error: parent entity 'Shap' does not exist; did you mean 'Shape'? [entities[0].parent]
            """)
    }

    @Test("a model without a file name is called 'the model'")
    func invalidSchemaWithoutFile() throws {
        let error = try #require(throws: SchemaError.self) { try Schema(data: Data("[]".utf8)) }
        #expect(error.description == """
            the model has 1 error:
              1:1: error: expected the model as a JSON object, found an array
            """)
    }

    @Test("a file that cannot be read is unreadableFile")
    func unreadableFile() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-no-such-\(UUID().uuidString).json")
        let error = try #require(throws: SchemaError.self) { try Schema(contentsOf: url) }
        #expect(error.code == .unreadableFile)
        #expect(error.reason == "no such file")
        #expect(error.diagnostics.isEmpty)
        #expect(error.description == "\(url.path): error: cannot read the file: no such file")
        #expect(throws: SchemaError.self) { try Schema.load(contentsOf: url) }
    }
}
