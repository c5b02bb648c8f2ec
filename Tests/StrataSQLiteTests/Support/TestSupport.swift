import Foundation
import Strata
@testable import StrataSQLite



enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func schema(_ name: String) throws -> Schema {
        try Schema(contentsOf: repository.appendingPathComponent("Schemas/\(name).json"))
    }

    static func schema(json: String) throws -> Schema {
        try Schema(data: Data(json.utf8), file: "test schema")
    }


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
