import ArgumentParser
import Foundation
import Strata
import StrataGenerator

/// `strata generate`: Swift classes for the entities of a model.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate Swift classes (ManagedObject subclasses) for the entities of a model.",
        discussion: """
            Example: strata generate --schema Schemas/TodoList.json -o Sources/App/Model

            Writes one file per entity (Todo.strata.swift: a ManagedObject subclass with typed \
            properties) and one registration file (TodoListModel.strata.swift: \
            TodoListModel.classes, for PersistentContainer(schema:classes:)). A file that already \
            holds the generated text is left alone, so regenerating an unchanged model changes no \
            byte; files generated earlier from the same model for entities it no longer has are \
            removed. Generated files are replaced whole: write your own code in extensions in \
            other files. The SwiftPM plugin StrataGeneratorPlugin does the same at every build.
            """
    )

    @Option(help: "The model: a Strata JSON model file, or an Xcode model (.xcdatamodeld, .xcdatamodel) whose current version is used.")
    var schema: String

    @Option(name: .shortAndLong, help: "The directory to write into (created when missing).")
    var output = "."

    @Option(help: "The access level of the generated declarations: public or internal.")
    var access = "internal"

    func validate() throws {
        if ModelGenerator.AccessLevel(rawValue: access) == nil {
            throw ValidationError("--access is public or internal, not '\(Echo.value(access))'")
        }
    }

    func run() throws {
        try runReportingErrors {
            let model = try StoreAccess.loadSchema(schema)
            let report: [(name: String, change: ModelGenerator.FileChange)]
            do {
                report = try ModelGenerator(schema: model, access: ModelGenerator.AccessLevel(rawValue: access) ?? .internal).write(into: URL(fileURLWithPath: output))
            } catch {
                throw CLIError.unreadable("cannot write into '\(Echo.value(output))': \((error as NSError).localizedDescription)")
            }
            for (name, change) in report {
                Console.print("\(URL(fileURLWithPath: output).appendingPathComponent(name).relativePath): \(change.rawValue)")
            }
        }
    }
}
