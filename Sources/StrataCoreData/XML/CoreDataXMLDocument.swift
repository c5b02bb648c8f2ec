internal import Foundation
internal import Strata

/// A Core Data XML store as read, before it is matched to a model: the `<databaseInfo>` and
/// every `<object>` with its elements' names, types and texts as written.
struct CoreDataXMLDocument: Sendable {
    /// A place in the file, for messages.
    struct Position: Sendable, Hashable {
        var line: Int
        var column: Int
        var location: SourceLocation { SourceLocation(line: line, column: column) }
    }

    struct Attribute: Sendable {
        var name: String
        var type: String
        /// The element's text (entities and character references resolved).
        var text: [UInt8]
        var position: Position
    }

    struct Relationship: Sendable {
        var name: String
        /// `min/max` as Core Data writes it: `1/1` for a to-one, `0/0` for an unbounded to-many.
        var type: String
        var destination: String
        /// The object IDs in `idrefs`, in the file's order; empty without `idrefs`.
        var idrefs: [String]
        var position: Position
    }

    struct Object: Sendable {
        var type: String
        var id: String
        var position: Position
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
    }

    /// The file's path, for messages.
    var path: String
    var info: CoreDataXMLStoreInfo
    /// Whether the file has a `<databaseInfo>` (files written by hand may not).
    var hasDatabaseInfo: Bool
    var objects: [Object]

    func error(_ message: String, at position: Position? = nil) -> StrataError {
        StrataError(.corruptStore, message, file: path, location: position?.location)
    }

    /// `<object type="EMPLOYEE" id="z102">`, for messages.
    func describe(_ object: Object) -> String {
        "<object type=\"\(object.type)\" id=\"\(object.id)\">"
    }
}

extension CoreDataXMLDocument.Relationship {
    /// The bounds `type` gives (`min/max`), nil when it is not two whole numbers.
    var counts: (min: Int, max: Int)? {
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let min = Int(parts[0]), let max = Int(parts[1]), min >= 0, max >= 0 else { return nil }
        return (min, max)
    }

    /// True for a to-one (`max` is 1), as Core Data writes every to-one `1/1`.
    var isToOne: Bool? { counts.map { $0.max == 1 } }
}
