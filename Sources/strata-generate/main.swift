import Foundation
import Strata
import StrataGenerator

// strata-generate: the generator alone, for the build plugin (StrataGeneratorPlugin), which
// runs it once per model; `strata generate` does the same with the whole CLI.
//
//     strata-generate --schema <model.json> --output <directory> [--access public|internal]

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("strata-generate: error: \(message)\n".utf8))
    exit(status)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard ["--schema", "--output", "--access"].contains(name), let value = arguments.popFirst() else {
        fail("usage: strata-generate --schema <model.json> --output <directory> [--access public|internal]", status: 2)
    }
    options[name] = value
}
guard let schemaPath = options["--schema"], let output = options["--output"] else {
    fail("--schema and --output are required", status: 2)
}
guard let access = ModelGenerator.AccessLevel(rawValue: options["--access"] ?? "internal") else {
    fail("--access is public or internal, not '\(options["--access"]!)'", status: 2)
}
let schema: Schema
do {
    schema = try Schema(contentsOf: URL(fileURLWithPath: schemaPath))
} catch {
    fail("\(error)", status: error.code == .unreadableFile ? 2 : 1)
}
do {
    _ = try ModelGenerator(schema: schema, access: access).write(into: URL(fileURLWithPath: output))
} catch {
    fail("cannot write into '\(output)': \(error.localizedDescription)", status: 2)
}
