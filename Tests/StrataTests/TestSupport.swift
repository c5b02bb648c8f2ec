import Foundation
import Strata

/// The file name the tests give the loader, so that every diagnostic carries it.
let modelFile = "Model.json"

/// Loads a model file's text the way `strata validate` does, keeping every diagnostic.
func loadModel(_ text: String) -> SchemaLoadResult {
    Schema.load(data: Data(text.utf8), file: modelFile)
}

extension Diagnostic {
    /// The error the loader reports for ``modelFile`` at `line`:`column`.
    static func error(_ code: String, _ message: String, at path: String, line: Int, column: Int) -> Diagnostic {
        Diagnostic(
            severity: .error, code: code, message: message, path: path, file: modelFile,
            location: SourceLocation(line: line, column: column))
    }

    /// The warning the loader reports for ``modelFile`` at `line`:`column`.
    static func warning(_ code: String, _ message: String, at path: String, line: Int, column: Int) -> Diagnostic {
        Diagnostic(
            severity: .warning, code: code, message: message, path: path, file: modelFile,
            location: SourceLocation(line: line, column: column))
    }
}

/// A model with one entity, `Item`, whose only attribute is `attribute`.
///
/// `attribute` is written on line 5 and starts at column 7, so a token at offset `n` (0-based)
/// of `attribute` is at column `7 + n`; its path is `entities[0].attributes[0]`.
func modelWithAttribute(_ attribute: String) -> String {
    """
    {
      "name": "Shop",
      "entities": [
        { "name": "Item", "attributes": [
          \(attribute)
        ] }
      ]
    }
    """
}

/// The directory of the example models, `Schemas/` at the root of the package.
let schemasDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent() // StrataTests
    .deletingLastPathComponent() // Tests
    .deletingLastPathComponent() // package root
    .appendingPathComponent("Schemas", isDirectory: true)

