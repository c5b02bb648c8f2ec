import Foundation
import Testing

/// `strata generate`: the classes of a model written into a folder, unchanged files left alone.
@Suite struct GenerateCommandTests {
    @Test func writesOneFilePerEntityAndARegistrationFile() throws {
        let workspace = try Workspace(schemas: ["TodoList"])
        let run = try workspace.run("generate", "--schema", "TodoList.json", "-o", "Model")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            Model/Todo.strata.swift: written
            Model/Tag.strata.swift: written
            Model/Location.strata.swift: written
            Model/TodoListModel.strata.swift: written

            """)
        let tag = try #require(workspace.text("Model/Tag.strata.swift"))
        #expect(tag.hasSuffix("""
            /// The entity `Tag` of the model 'TodoList'.
            final class Tag: ManagedObject {
                override class var entityName: String { "Tag" }

                @Attribute("name") var name: String

                @ToMany("todos") var todos: Set<Todo>
            }

            """))

        let again = try workspace.run("generate", "--schema", "TodoList.json", "-o", "Model", "--access", "internal")
        #expect(again.status == 0)
        #expect(again.stdout.components(separatedBy: "\n").filter { !$0.isEmpty }.allSatisfy { $0.hasSuffix(": unchanged") })
        #expect(workspace.text("Model/Tag.strata.swift") == tag)

        let publicRun = try workspace.run("generate", "--schema", "TodoList.json", "-o", "Model", "--access", "public")
        #expect(publicRun.stdout.contains("Model/Tag.strata.swift: written"))
        #expect(workspace.text("Model/Tag.strata.swift")?.contains("public final class Tag: ManagedObject {") == true)
    }

    @Test func badInputIsRefusedWithItsStatus() throws {
        let workspace = try Workspace(["Broken.json": "{ \"name\": \"Broken\", \"entities\": [ { \"name\": \"lower\" } ] }"], schemas: ["TodoList"])
        let access = try workspace.run("generate", "--schema", "TodoList.json", "--access", "open")
        #expect(access.status == 2)
        #expect(access.stderr.contains("--access is public or internal, not 'open'"))
        let missing = try workspace.run("generate", "--schema", "Missing.json", "-o", "Model")
        #expect(missing.status == 2)
        let invalid = try workspace.run("generate", "--schema", "Broken.json", "-o", "Model")
        #expect(invalid.status == 1)
        #expect(!workspace.exists("Model"))
    }
}

extension GenerateCommandTests {
    @Test func anXcodeModelIsGeneratedFromItsCurrentVersion() throws {
        let workspace = try Workspace.moodyModel()
        let run = try workspace.run("generate", "--schema", "Moody.xcdatamodeld", "-o", "Model")
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try workspace.imported("Moody.xcdatamodeld").current.schema
        #expect(run.stdout == (expected.entities.map { "Model/\($0.name).strata.swift: written\n" }.joined() + "Model/MoodyModel.strata.swift: written\n"))
        #expect(workspace.text("Model/MoodyModel.strata.swift")?.contains("version hash \(expected.versionHash).") == true)
    }
}

extension GenerateCommandTests {
    /// swiftc, found on the PATH as the build found it.
    static let swiftc: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Public classes for two models with every attribute type, inheritance, transformables and
    /// ordered to-many, type-checked by swiftc as a module of their own with the package's
    /// strict settings and warnings as errors. (The internal form is compiled with the tests:
    /// Tests/StrataGeneratorTests/Generated.)
    @Test func publicClassesCompileWithoutWarnings() throws {
        let workspace = try Workspace(schemas: ["KitchenSink", "Moody-v3"])
        for model in ["KitchenSink", "Moody-v3"] {
            let run = try workspace.run("generate", "--schema", "\(model).json", "-o", "Model", "--access", "public")
            #expect(run.status == 0, "\(run.stderr)")
        }
        try workspace.write("Model/Transformers.swift", """
            public import Strata
            public typealias ProductDimensions = CodableAttributeTransformer<[String: Double]>
            public typealias MoodColors = CodableAttributeTransformer<[String]>
            """)
        let (status, text, count) = try Self.typecheck(workspace)
        #expect(count == 9 + 1 + 4 + 1 + 1)
        #expect(status == 0, "\(text)")
        #expect(text.isEmpty, "\(text)")
    }

    /// Entities named like the types generated code names (Strata's `Relationship`,
    /// Foundation's `Date`, Swift's `String`): those types are then written with their module,
    /// so that the classes compile and an attribute keeps its type.
    @Test func entitiesNamedLikeTheTypesOfGeneratedCodeCompile() throws {
        let workspace = try Workspace(schemas: [])
        try workspace.write("Crm.json", """
            { "name": "Crm", "entities": [
              { "name": "Person", "attributes": [ { "name": "name", "type": "string" }, { "name": "born", "type": "date", "optional": true } ],
                "relationships": [ { "name": "links", "destination": "Relationship", "inverse": "person", "toMany": true } ] },
              { "name": "Relationship", "attributes": [ { "name": "kind", "type": "string" } ],
                "relationships": [ { "name": "person", "destination": "Person", "inverse": "links", "optional": true } ] },
              { "name": "Date", "attributes": [ { "name": "day", "type": "int16" } ] },
              { "name": "String", "attributes": [ { "name": "text", "type": "string" } ] }
            ] }
            """)
        let run = try workspace.run("generate", "--schema", "Crm.json", "-o", "Model", "--access", "public")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(workspace.text("Model/Person.strata.swift")?.contains("@Attribute(\"born\") public var born: Foundation.Date?") == true)
        let (status, text, count) = try Self.typecheck(workspace)
        #expect(count == 5)
        #expect(status == 0, "\(text)")
        #expect(text.isEmpty, "\(text)")
    }

    /// Type-checks the workspace's `Model` folder as a module of its own with the package's
    /// strict settings and warnings as errors: swiftc's status, its output, the number of files.
    private static func typecheck(_ workspace: Workspace) throws -> (Int32, String, Int) {
        let swiftc = try #require(Self.swiftc, "swiftc is not on the PATH")
        let modules = try #require(StrataExecutable.url).deletingLastPathComponent().appendingPathComponent("Modules")
        let sources = try FileManager.default.contentsOfDirectory(atPath: workspace.file("Model").path).sorted().map { "Model/\($0)" }
        let process = Process()
        process.executableURL = swiftc
        process.arguments = [
            "-typecheck", "-swift-version", "6", "-module-name", "Generated", "-I", modules.path,
            "-enable-upcoming-feature", "ExistentialAny", "-enable-upcoming-feature", "InternalImportsByDefault",
            "-warnings-as-errors",
        ] + sources
        process.currentDirectoryURL = workspace.url
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, sources.count)
    }
}
