import ArgumentParser
import Foundation
import Strata

/// `strata validate`: checks model files and prints diagnostics like a compiler.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check model files (JSON schemas) and report every problem with its place.",
        discussion: """
            Text output has one line per problem, `file:line:column: severity: message [json.path]`, \
            then one summary line per file. `--format json` prints a JSON array of diagnostics \
            (objects with severity, code, message, path, file, line, column); with `--hashes` it \
            prints an object {"diagnostics": [...], "models": [...]} instead, each model with its \
            file, name, versionHash and entityVersionHashes.

            A model that a store type cannot hold (SQLite: more than 2,000 columns in one \
            inheritance hierarchy, entity names SQLite reserves or that differ only in case) gets a \
            warning naming the store type and the reason.

            Exit status: 0 when every file is valid (warnings allowed), 1 when one has errors \
            (or warnings, with --warnings-as-errors), 2 for a usage error or an unreadable file.
            """
    )

    @Argument(help: "The model files to check.")
    var files: [String]

    @Option(help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @Flag(help: "Treat warnings as errors: report them as errors and exit 1.")
    var warningsAsErrors = false

    @Flag(help: "Print the model's and each entity's version hash.")
    var hashes = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one model file") }
    }

    func run() throws {
        var diagnostics: [Diagnostic] = []
        var models: [(file: String, schema: Schema)] = []
        var summaries: [String] = []
        var unreadable = false
        var invalid = false

        for file in files {
            let check = Self.check(file, warningsAsErrors: warningsAsErrors)
            diagnostics += check.diagnostics
            summaries.append(check.summary)
            if check.isUnreadable {
                unreadable = true
            } else if let schema = check.schema {
                models.append((file, schema))
            } else {
                invalid = true
            }
        }

        switch format {
        case .text:
            for diagnostic in diagnostics { Console.print(diagnostic.description) }
            for summary in summaries { Console.print(summary) }
            if hashes {
                for (file, schema) in models {
                    Console.print("\(file): model \(schema.name) versionHash \(schema.versionHash)")
                    let width = schema.entities.map(\.name.count).max() ?? 0
                    for entity in schema.entities.sorted(by: { $0.name < $1.name }) {
                        Console.print("  \(entity.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(entity.versionHash)")
                    }
                }
            }
        case .json:
            Console.print(try jsonOutput(diagnostics: diagnostics, models: models))
        }

        if unreadable { throw ExitCode(ExitStatus.usage.rawValue) }
        if invalid { throw ExitCode(ExitStatus.invalid.rawValue) }
    }

    private func jsonOutput(diagnostics: [Diagnostic], models: [(file: String, schema: Schema)]) throws -> String {
        struct ModelHashes: Encodable {
            var file: String
            var name: String
            var versionHash: String
            var entityVersionHashes: [String: String]
        }
        struct Report: Encodable {
            var diagnostics: [Diagnostic]
            var models: [ModelHashes]
        }
        guard hashes else { return try Console.json(diagnostics) }
        return try Console.json(Report(
            diagnostics: diagnostics,
            models: models.map { ModelHashes(file: $0.file, name: $0.schema.name, versionHash: $0.schema.versionHash, entityVersionHashes: $0.schema.entityVersionHashes) }))
    }

    /// What checking one model file found: its diagnostics and summary line as `strata
    /// validate` prints them, and the model when the file is valid.
    struct FileCheck {
        var diagnostics: [Diagnostic]
        var summary: String
        /// The model; nil when the file is unreadable or has errors.
        var schema: Schema?
        var isUnreadable = false
    }

    /// Loads and checks one model file the way `strata validate` does (for every command that
    /// reads model files and reports their problems).
    static func check(_ file: String, warningsAsErrors: Bool = false) -> FileCheck {
        let result: SchemaLoadResult
        do {
            result = try Schema.load(contentsOf: URL(fileURLWithPath: file))
        } catch {
            let diagnostic = Diagnostic(
                severity: .error, code: error.code.rawValue,
                message: "cannot read the file: \(error.reason ?? "unknown error")", path: "", file: file)
            return FileCheck(diagnostics: [diagnostic], summary: "\(file): unreadable", isUnreadable: true)
        }
        var diagnostics = result.diagnostics
        if let schema = result.schema, result.diagnostics.errors.isEmpty {
            diagnostics += storeWarnings(schema, file: file)
        }
        if warningsAsErrors {
            for index in diagnostics.indices where diagnostics[index].severity == .warning {
                diagnostics[index].severity = .error
                diagnostics[index].message += " [--warnings-as-errors]"
            }
        }
        let errorCount = diagnostics.errors.count
        let warningCount = diagnostics.warnings.count
        guard errorCount == 0, let schema = result.schema else {
            return FileCheck(
                diagnostics: diagnostics,
                summary: "\(file): invalid, \(count(errorCount, "error"))\(warningCount > 0 ? ", \(count(warningCount, "warning"))" : "")")
        }
        return FileCheck(
            diagnostics: diagnostics,
            summary: "\(file): valid, model \(schema.name), \(count(schema.entities.count, "entity", "entities")), \(count(warningCount, "warning"))",
            schema: schema)
    }

    /// A warning for each part of a valid model that a store type cannot hold (a model is
    /// store-agnostic, so this is no error): the store would refuse the model when opened.
    static func storeWarnings(_ schema: Schema, file: String) -> [Diagnostic] {
        var warnings: [Diagnostic] = []
        var seen: Set<String> = []
        for factory in StoreAccess.registry.factories {
            for configuration in [nil] + schema.configurations.map(\.name) {
                for problem in factory.unsupportedFeatures(of: schema, configurationName: configuration) where seen.insert("\(factory.type)\u{0}\(problem)").inserted {
                    warnings.append(Diagnostic(
                        severity: .warning, code: "unsupportedByStore",
                        message: "a \(factory.type) store cannot hold this model\(configuration.map { " (configuration '\($0)')" } ?? ""): \(problem)",
                        path: "", file: file))
                }
            }
        }
        return warnings
    }

    private static func count(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(value) \(value == 1 ? singular : plural ?? singular + "s")"
    }
}
