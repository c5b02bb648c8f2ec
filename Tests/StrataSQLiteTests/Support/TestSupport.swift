import Foundation
import Strata
@testable import StrataSQLite


/// A fresh directory under the temporary directory, removed by `cleanup`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func cleanup() { try? FileManager.default.removeItem(at: url) }
}

enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func schema(_ name: String) throws -> Schema {
        try Schema(contentsOf: repository.appendingPathComponent("Schemas/\(name).json"))
    }

    static func schema(json: String) throws -> Schema {
        try Schema(data: Data(json.utf8), file: "test schema")
    }

    /// Every attribute type, a hierarchy, to-one, one-to-many (ordered), many-to-many and
    /// to-many without inverse: the model of the property-based tests.
    static let libraryJSON = """
    {
      "name": "Library", "version": "1",
      "entities": [
        { "name": "Item",
          "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "count", "type": "int64", "optional": true },
            { "name": "small", "type": "int16", "optional": true },
            { "name": "ratio", "type": "double", "optional": true },
            { "name": "weight", "type": "float", "optional": true },
            { "name": "price", "type": "decimal", "optional": true },
            { "name": "flag", "type": "bool", "optional": true },
            { "name": "when", "type": "date", "optional": true },
            { "name": "blob", "type": "binary", "optional": true },
            { "name": "uid", "type": "uuid", "optional": true },
            { "name": "link", "type": "uri", "optional": true }
          ],
          "relationships": [
            { "name": "owner", "destination": "Owner", "inverse": "items", "optional": true },
            { "name": "tags", "destination": "Tag", "inverse": "items", "toMany": true },
            { "name": "next", "destination": "Item", "optional": true },
            { "name": "parts", "destination": "Part", "inverse": "item", "toMany": true, "ordered": true },
            { "name": "related", "destination": "Item", "toMany": true }
          ] },
        { "name": "SpecialItem", "parent": "Item",
          "attributes": [ { "name": "extra", "type": "string", "optional": true } ] },
        { "name": "Owner",
          "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "age", "type": "int32", "optional": true },
            { "name": "score", "type": "double", "optional": true }
          ],
          "relationships": [ { "name": "items", "destination": "Item", "inverse": "owner", "toMany": true } ] },
        { "name": "Tag",
          "attributes": [
            { "name": "label", "type": "string", "optional": true },
            { "name": "weight", "type": "double", "optional": true },
            { "name": "rank", "type": "int64", "optional": true }
          ],
          "relationships": [ { "name": "items", "destination": "Item", "inverse": "tags", "toMany": true } ] },
        { "name": "Part",
          "attributes": [
            { "name": "label", "type": "string", "optional": true },
            { "name": "size", "type": "int64", "optional": true },
            { "name": "cost", "type": "decimal", "optional": true }
          ],
          "relationships": [ { "name": "item", "destination": "Item", "inverse": "parts", "optional": true } ] }
      ]
    }
    """

    static func library() throws -> Schema { try schema(json: libraryJSON) }

    /// D3: `A.b_c` (many-to-many with X) and `A_b.c` (many-to-many with Y), whose join tables
    /// layout 1 named alike (`A_b_c`).
    static func joinNameClash() throws -> Schema {
        try schema(json: """
        { "name": "Clash", "entities": [
          { "name": "A", "relationships": [ { "name": "b_c", "destination": "X", "inverse": "owners", "toMany": true } ] },
          { "name": "A_b", "relationships": [ { "name": "c", "destination": "Y", "inverse": "owners", "toMany": true } ] },
          { "name": "X", "relationships": [ { "name": "owners", "destination": "A", "inverse": "b_c", "toMany": true } ] },
          { "name": "Y", "relationships": [ { "name": "owners", "destination": "A_b", "inverse": "c", "toMany": true } ] } ] }
        """)
    }
}

extension StoreTypeRegistry {
    static var withSQLite: StoreTypeRegistry { StoreTypeRegistry([SQLiteStoreFactory()]) }
}

func bytes(of url: URL) throws -> Data { try Data(contentsOf: url) }
