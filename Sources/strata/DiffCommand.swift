import ArgumentParser
import Foundation
import Strata

/// `strata diff`: the changes between two versions of a model and whether a migration can infer
/// each of them.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two versions of a model: every change, and whether a migration can infer it.",
        discussion: """
            Example: strata diff Moody-v1.json Moody-v2.json
            Entities and properties are matched as Core Data matches them: by renaming \
            identifier (an element's renamingIdentifier, or its name without one), then by name.
            Text output has one line per change, `Entity.property: what changed`, ending in \
            `[not inferable: why]` when a migration needs a custom stage, or in \
            `[needs data check: condition]` when a migration infers it only if the stored data \
            allows (it checks, and refuses naming the objects otherwise); then a summary line. \
            A change of an inherited property is listed once, on the entity that declares it. \
            --format json prints an object {"source", "destination" (each with name, version, \
            versionHash), "sameVersion", "inferable", "changes": [{kind, entity, property, detail, \
            inferability ("inferable", "dependsOnData" or "notInferable"), reason}]}.
            Exit status, like diff(1): 0 when the two models have the same version hash (a store \
            of one opens with the other; changes that are not stored, such as an index or a \
            default value, are still listed), 1 when the version hashes differ, 2 for a usage \
            error or a model file that cannot be read or has errors (its problems are printed \
            on standard error as `strata validate` prints them).
            """
    )

    @Option(help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @Argument(help: "The earlier version of the model (a model file).")
    var old: String

    @Argument(help: "The later version of the model.")
    var new: String

    func run() throws {
        let checks = [ValidateCommand.check(old), ValidateCommand.check(new)]
        guard let source = checks[0].schema, let destination = checks[1].schema else {
            // Standard output stays for the diff; the problems go where errors go.
            for check in checks where check.schema == nil {
                for diagnostic in check.diagnostics { Console.note(diagnostic.description) }
                Console.note(check.summary)
            }
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let diff = SchemaDiff(from: source, to: destination)
        switch format {
        case .text: FileHandle.standardOutput.write(Data(diff.text.utf8))
        case .json: FileHandle.standardOutput.write(Data(diff.jsonString.utf8))
        }
        // diff(1)'s convention: 1 when the inputs differ (here: in what a store holds).
        if !diff.isSameVersion { throw ExitCode(1) }
    }
}
