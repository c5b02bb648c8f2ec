import Foundation
import Strata
import Testing

/// An example model in `Schemas/` and what loading it must give.
struct ExampleSchema: Sendable, CustomTestStringConvertible {
    let file: String
    let modelName: String
    let entityNames: [String]
    /// The warnings, as (code, path, line, column); an example has no errors.
    let warnings: [Warning]

    struct Warning: Sendable, Equatable {
        let code: String
        let path: String
        let line: Int
        let column: Int
    }

    var url: URL { schemasDirectory.appendingPathComponent(file) }
    var testDescription: String { file }
}

@Suite("Example schemas")
struct ExampleSchemasTests {
    static let examples: [ExampleSchema] = [
        ExampleSchema(file: "Customers.json", modelName: "Customers", entityNames: ["Customer"], warnings: []),
        ExampleSchema(
            file: "KitchenSink.json", modelName: "KitchenSink",
            entityNames: ["Product", "Owner", "Profile", "Asset", "Document", "ScannedDocument", "Photo", "Album", "Tag"],
            warnings: [.init(code: "missingInverse", path: "entities[0].relationships[0]", line: 36, column: 9)]),
        ExampleSchema(file: "Moody.json", modelName: "Moody", entityNames: ["Mood", "GeographicRegion", "Country", "Continent"], warnings: []),
        ExampleSchema(file: "Moody-v1.json", modelName: "Moody", entityNames: ["Mood", "GeographicRegion", "Country", "Continent"], warnings: []),
        ExampleSchema(file: "Moody-v2.json", modelName: "Moody", entityNames: ["Mood", "GeographicRegion", "Country", "Continent"], warnings: []),
        ExampleSchema(file: "Moody-v3.json", modelName: "Moody", entityNames: ["Mood", "GeographicRegion", "Country", "Continent"], warnings: []),
        ExampleSchema(file: "People.json", modelName: "People", entityNames: ["Person"], warnings: []),
        ExampleSchema(file: "TodoList.json", modelName: "TodoList", entityNames: ["Todo", "Tag", "Location"], warnings: []),
        ExampleSchema(file: "UsageEvents.json", modelName: "UsageEvents", entityNames: ["UsageEvent"], warnings: []),
    ]

    @Test("every model in Schemas/ has an entry here")
    func everyExampleIsListed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: schemasDirectory.path)
            .filter { $0.hasSuffix(".json") && $0 != "strata-schema.json" }
        #expect(files.sorted() == Self.examples.map(\.file).sorted())
    }

    @Test("each example loads without errors, with exactly its expected warnings", arguments: examples)
    func loads(_ example: ExampleSchema) throws {
        let result = try Schema.load(contentsOf: example.url)
        #expect(result.diagnostics.errors == [])
        #expect(result.diagnostics.map { ExampleSchema.Warning(code: $0.code, path: $0.path, line: $0.line ?? 0, column: $0.column ?? 0) }
            == example.warnings)
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning && $0.file == example.url.relativePath })
        let schema = try #require(result.schema)
        #expect(schema.name == example.modelName)
        #expect(schema.entities.map(\.name) == example.entityNames)
    }

    @Test("KitchenSink's one warning is the missing inverse of Product.replacement")
    func kitchenSinkWarning() throws {
        let url = schemasDirectory.appendingPathComponent("KitchenSink.json")
        let result = try Schema.load(contentsOf: url)
        #expect(result.diagnostics == [
            Diagnostic(
                severity: .warning, code: "missingInverse",
                message: "relationship 'Product.replacement' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Product' that points back, and name it in 'inverse'",
                path: "entities[0].relationships[0]", file: url.relativePath, location: SourceLocation(line: 36, column: 9)),
        ])
    }

    @Test("each example round-trips through its canonical JSON to an equal schema", arguments: examples)
    func roundTrip(_ example: ExampleSchema) throws {
        let schema = try Schema(contentsOf: example.url)
        let reloaded = try Schema(data: schema.jsonData, file: "canonical \(example.file)")
        #expect(reloaded == schema)
        #expect(reloaded.versionHash == schema.versionHash)
        #expect(reloaded.jsonString == schema.jsonString)
    }

    @Test("KitchenSink keeps its exact values and its hierarchy")
    func kitchenSinkDetails() throws {
        let schema = try Schema(contentsOf: schemasDirectory.appendingPathComponent("KitchenSink.json"))
        #expect(schema.versionHashModifier == "kitchen-sink-2024")
        #expect(schema.configurations.map(\.name) == ["Catalog", "Library"])

        let product = try #require(schema.entity(named: "Product"))
        #expect(product.attributes.count == 17)
        #expect(product.attribute(named: "serial")?.defaultValue == .integer(9_007_199_254_740_993))
        guard case .decimal(let price) = product.attribute(named: "price")?.defaultValue else {
            Issue.record("Product.price has no decimal default")
            return
        }
        #expect(price.description == "123456789012345678.90123456789")
        guard case .double(let score) = product.attribute(named: "score")?.defaultValue else {
            Issue.record("Product.score has no double default")
            return
        }
        #expect(score.isNaN)
        #expect(product.attribute(named: "dimensions")?.transformerName == "ProductDimensions")
        #expect(product.indexes.map(\.name) == ["byReleaseDateNewestFirst"])

        let scanned = try #require(schema.entity(named: "ScannedDocument"))
        #expect(scanned.ancestorNames == ["Document", "Asset"])
        #expect(scanned.attributes.map(\.name) == ["title", "createdAt", "pageCount", "body", "dpi", "ocrText"])
        #expect(scanned.relationships.map(\.name) == ["owner", "tags"])
        #expect(schema.entity(named: "Asset")?.subentityNames == ["Document", "Photo"])
        #expect(schema.entity(named: "Owner")?.relationship(named: "friends")?.inverse == "friends")
        #expect(schema.entity(named: "Album")?.relationship(named: "photos")?.isOrdered == true)
    }

    @Test("Moody's countries and continents inherit from an abstract region")
    func moodyInheritance() throws {
        let schema = try Schema(contentsOf: schemasDirectory.appendingPathComponent("Moody.json"))
        #expect(schema.entity(named: "GeographicRegion")?.isAbstract == true)
        #expect(schema.entity(named: "Country")?.attributes.map(\.name) == ["name", "code"])
        #expect(schema.entity(named: "Continent")?.attributes.map(\.name) == ["name", "code"])
        #expect(schema.entityAndDescendants(of: "GeographicRegion").map(\.name) == ["GeographicRegion", "Country", "Continent"])
    }
}
