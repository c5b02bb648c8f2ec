import Foundation
import FuzzSupport
import Strata

/// Any bytes as a model file: decoding and validation must return a schema or diagnostics,
/// never trap. A schema that loads must encode (as stores save it) to JSON that loads back to
/// the same schema: a store written with it must stay readable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSchema(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let result = Schema.load(data: Data(fuzzInput(start, count)), file: "fuzz.json")
    for diagnostic in result.diagnostics {
        _ = diagnostic.description
    }
    guard let schema = result.schema else {
        precondition(result.diagnostics.contains { $0.severity == .error }, "no schema, but no error either")
        return 0
    }
    let encoded = schema.jsonString
    let reloaded: Schema
    do {
        reloaded = try Schema(data: Data(encoded.utf8), file: "encoded.json")
    } catch {
        preconditionFailure("loaded, but its encoded form does not: \(error)\n\(encoded)")
    }
    precondition(reloaded == schema, "encoded form loads to another schema:\n\(encoded)")
    precondition(reloaded.versionHash == schema.versionHash, "encoded form has another version hash:\n\(encoded)")
    precondition(reloaded.jsonString == encoded, "encoded form changes when loaded back:\n\(encoded)")
    for entity in schema.entities {
        _ = schema.entityAndDescendants(of: entity.name)
    }
    return 0
}

@main
enum FuzzSchema {
    static func main() {
        runLibFuzzer(fuzzSchema)
    }
}
