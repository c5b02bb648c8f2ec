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
