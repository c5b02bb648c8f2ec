import Foundation
import PackagePlugin

/// Generates the typed classes of a target's models at every build, so that they always match
/// the model: for each model, `strata-generate` writes one file per entity and a registration
/// file into the plugin's work directory, and the target compiles them with its own sources.
///
/// The models of a target are:
/// - every `*.strata.json` model file among its sources, and
/// - the model a `strata.json` configuration file among its sources names with `"schema"` (a
///   path relative to that file), the one the app's container opens.
///
/// (Leave these files in the target's sources: an excluded file is not shown to the plugin.)
///
/// A model's classes are internal; name a model `*.public.strata.json` to make them public. An
/// Xcode model is not read here: import it once with `strata import-xcdatamodel`.
@main
struct StrataGeneratorPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "strata-generate")
        var models: [(model: URL, inputs: [URL])] = []
        for file in target.sourceFiles {
            if file.url.lastPathComponent.hasSuffix(".strata.json") {
                models.append((file.url, [file.url]))
            } else if file.url.lastPathComponent == "strata.json" {
                models.append((try Self.model(namedBy: file.url), [file.url]))
            }
        }
        return try models.map { model, inputs in
            let (name, entities) = try Self.names(in: model)
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(name)
            let files = (entities + [name + "Model"]).map { output.appendingPathComponent("\($0).strata.swift") }
            let access = model.lastPathComponent.hasSuffix(".public.strata.json") ? "public" : "internal"
            return .buildCommand(
                displayName: "Generating the classes of the model \(name) (\(model.lastPathComponent))",
                executable: tool.url,
                arguments: ["--schema", model.path, "--output", output.path, "--access", access],
                inputFiles: [model] + inputs.filter { $0 != model },
                outputFiles: files)
        }
    }

    /// The model a `strata.json` configuration file names.
    static func model(namedBy configuration: URL) throws -> URL {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: configuration))
        guard let path = (json as? [String: Any])?["schema"] as? String else {
            throw PluginError("\(configuration.path) names no \"schema\"")
        }
        return URL(fileURLWithPath: path, relativeTo: configuration.deletingLastPathComponent()).standardizedFileURL
    }

    /// A model's name and its entities' names, which name the files the tool writes.
    static func names(in model: URL) throws -> (model: String, entities: [String]) {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: model)) as? [String: Any]
        guard let name = json?["name"] as? String, let entities = json?["entities"] as? [[String: Any]] else {
            throw PluginError("\(model.path) is not a Strata model (no \"name\" or \"entities\"); `strata validate` says why")
        }
        return (name, entities.compactMap { $0["name"] as? String })
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
