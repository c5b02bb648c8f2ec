import ArgumentParser
import Foundation
import Strata
import StrataCoreData

/// `strata import-xcdatamodel`: turns a model drawn in Xcode into Strata JSON model files.
struct ImportXCDataModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-xcdatamodel",
        abstract: "Import an Xcode Core Data model (.xcdatamodel, .xcdatamodeld or its 'contents' file) as a Strata model.",
        discussion: """
            Example: strata import-xcdatamodel Moody.xcdatamodeld -o Schemas/
            One model (a .xcdatamodel directory or its 'contents' file) is written as JSON to the \
            file -o names, or to standard output. A versioned .xcdatamodeld is written as one \
            '<version name>.json' per version into the directory -o names (created if missing), \
            and the command says which version is current (from .xccurrentversion); without -o, \
            the current version alone goes to standard output. Every name is kept exactly. What \
            Strata has no place for (fetched properties, fetch request templates, derived and \
            composite attributes, userInfo) is reported as a warning on standard error, with the \
            file, line and element, like `strata validate` prints problems. \
            Every command's --schema also takes a model bundle and imports its current version.
            Exit status: 0 when imported (warnings allowed), 1 when the file is not an Xcode \
            model or holds something a Strata model cannot represent, 2 for a usage error or a \
            file that cannot be read or written.
            """
    )

    @Argument(help: "The model: a .xcdatamodeld or .xcdatamodel directory, or a model's 'contents' file.")
    var path: String

    @Option(name: .shortAndLong, help: "The JSON file to write (one model), or the directory to write each version into (.xcdatamodeld).")
    var output: String?

    func run() throws {
        try runReportingErrors {
            let imported = try Self.importModel(path)
            for warning in imported.warnings + imported.versions.flatMap(\.warnings) {
                Console.note(warning.description)
            }
            if imported.isVersioned {
                try writeVersions(imported)
            } else {
                try writeModel(imported.current)
            }
        }
    }

    /// Imports the model at `path`; an unreadable one is a usage error (2), one that is no
    /// model or cannot be represented exits 1.
    static func importModel(_ path: String) throws -> XCDataModelImport {
        do {
            return try XCDataModelImporter.importModel(at: URL(fileURLWithPath: path))
        } catch {
            if error.code == .unreadableFile { throw CLIError.unreadable(error.description) }
            throw CLIError.invalid(error.description)
        }
    }

    private func writeModel(_ model: ImportedModel) throws {
        let text = model.jsonString + "\n"
        guard let output else {
            Console.print(model.jsonString)
            return
        }
        try refuseInput(output)
        try write(text, to: output)
        Console.print("\(output): \(Self.summary(model))")
    }

    private func writeVersions(_ imported: XCDataModelImport) throws {
        guard let output else {
            Console.print(imported.current.jsonString)
            if imported.versions.count > 1 {
                Console.note("'\(path)' has \(imported.versions.count) versions (\(imported.versions.map(\.versionName).joined(separator: ", "))); this is the current one, '\(imported.currentVersionName)'; write every version with -o <directory>")
            }
            return
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError.unreadable("'\(Echo.value(output))' is not a directory: a .xcdatamodeld is written as one JSON file per version into the directory -o names")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                throw CLIError.unreadable("cannot create the directory '\(Echo.value(output))': \((error as NSError).localizedDescription)")
            }
        }
        let files = imported.versions.map { URL(fileURLWithPath: output).appendingPathComponent($0.versionName + ".json").relativePath }
        for file in files { try refuseInput(file) }
        for (version, file) in zip(imported.versions, files) {
            try write(version.jsonString + "\n", to: file)
            let current = version.versionName == imported.currentVersionName ? " (current)" : ""
            Console.print("\(file): \(Self.summary(version))\(current)")
        }
        Console.print("current version: \(imported.currentVersionName)")
    }

    /// Refuses (exit 2) to write `file` when it is one of the files of the model being imported
    /// (its `contents`, a version's, `.xccurrentversion`), however the path is spelled: the
    /// import would replace the Xcode model with its JSON.
    private func refuseInput(_ file: String) throws {
        guard let output = FileIdentity(path: file) else { return }
        var inputs: Set<FileIdentity> = []
        if let identity = FileIdentity(path: path) { inputs.insert(identity) }
        if let files = FileManager.default.enumerator(atPath: path) {
            for case let name as String in files {
                if let identity = FileIdentity(path: URL(fileURLWithPath: path).appendingPathComponent(name).path) { inputs.insert(identity) }
            }
        }
        guard inputs.contains(output) else { return }
        throw CLIError.unreadable("the output '\(Echo.value(file))' is a file of the model '\(Echo.value(path))' being imported; no command writes over one of its inputs; nothing was written; choose another file")
    }

    private func write(_ text: String, to file: String) throws {
        do {
            try FileSync.writeOutput(Data(text.utf8), to: URL(fileURLWithPath: file))
        } catch {
            throw CLIError.unreadable(error.description)
        }
    }

    /// `model Moody version 2, 4 entities, 1 warning`.
    private static func summary(_ model: ImportedModel) -> String {
        let schema = model.schema
        let entities = schema.entities.count
        let warnings = model.warnings.count
        return "model \(schema.name)\(schema.version.map { " version \($0)" } ?? ""), \(entities) \(entities == 1 ? "entity" : "entities"), \(warnings) warning\(warnings == 1 ? "" : "s")"
    }
}
