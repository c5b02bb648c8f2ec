import Foundation
package import Strata

/// The models of the conformance suite, each small and aimed at one area.
package enum Models {
    package static func load(_ json: String) -> Schema {
        do {
            return try Schema(data: Data(json.utf8), file: "conformance model")
        } catch {
            preconditionFailure("a conformance model does not load: \(error)")
        }
    }

    /// Books, authors and tags: CRUD, fetching, sorting, locking, metadata.
    package static let catalog = load(catalogJSON)
    package static let catalogJSON = """
    { "name": "Catalog", "version": "1", "entities": [
      { "name": "Author",
        "attributes": [
          { "name": "name", "type": "string" },
          { "name": "country", "type": "string", "optional": true } ],
        "relationships": [ { "name": "books", "destination": "Book", "inverse": "author", "toMany": true } ] },
      { "name": "Book",
        "attributes": [
          { "name": "title", "type": "string" },
          { "name": "pages", "type": "int32", "optional": true },
          { "name": "price", "type": "decimal", "optional": true },
          { "name": "rating", "type": "double", "optional": true },
          { "name": "published", "type": "date", "optional": true },
          { "name": "inPrint", "type": "bool", "default": true } ],
        "relationships": [
          { "name": "author", "destination": "Author", "inverse": "books", "optional": true },
          { "name": "tags", "destination": "Tag", "inverse": "books", "toMany": true } ] },
      { "name": "Tag",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "books", "destination": "Book", "inverse": "tags", "toMany": true } ] }
    ] }
    """

    /// One entity with an optional attribute of every type, and a transient one.
    package static let allTypes = load("""
    { "name": "AllTypes", "entities": [
      { "name": "Sample", "attributes": [
          { "name": "label", "type": "string" },
          { "name": "string", "type": "string", "optional": true },
          { "name": "int16", "type": "int16", "optional": true },
          { "name": "int32", "type": "int32", "optional": true },
          { "name": "int64", "type": "int64", "optional": true },
          { "name": "decimal", "type": "decimal", "optional": true },
          { "name": "double", "type": "double", "optional": true },
          { "name": "float", "type": "float", "optional": true },
          { "name": "bool", "type": "bool", "optional": true },
          { "name": "date", "type": "date", "optional": true },
          { "name": "binary", "type": "binary", "optional": true },
          { "name": "uuid", "type": "uuid", "optional": true },
          { "name": "uri", "type": "uri", "optional": true },
          { "name": "point", "type": "transformable", "transformer": "Point", "optional": true },
          { "name": "scratch", "type": "string", "optional": true, "transient": true } ] }
    ] }
    """)

    /// Every kind of relationship.
    package static let graph = load("""
    { "name": "Graph", "entities": [
      { "name": "Person",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "passport", "destination": "Passport", "inverse": "holder", "optional": true },
          { "name": "department", "destination": "Department", "inverse": "staff", "optional": true },
          { "name": "clubs", "destination": "Club", "inverse": "members", "toMany": true },
          { "name": "friends", "destination": "Person", "inverse": "friends", "toMany": true },
          { "name": "mentor", "destination": "Person", "optional": true } ] },
      { "name": "Passport",
        "attributes": [ { "name": "number", "type": "string" } ],
        "relationships": [ { "name": "holder", "destination": "Person", "inverse": "passport", "optional": true } ] },
      { "name": "Department",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "staff", "destination": "Person", "inverse": "department", "toMany": true } ] },
      { "name": "Club",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "members", "destination": "Person", "inverse": "clubs", "toMany": true } ] },
      { "name": "Playlist",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "tracks", "destination": "Track", "inverse": "playlists", "toMany": true, "ordered": true } ] },
      { "name": "Track",
        "attributes": [ { "name": "title", "type": "string" } ],
        "relationships": [
          { "name": "playlists", "destination": "Playlist", "inverse": "tracks", "toMany": true },
          { "name": "album", "destination": "Album", "inverse": "songs", "optional": true } ] },
      { "name": "Album",
        "attributes": [ { "name": "title", "type": "string" } ],
        "relationships": [
          { "name": "songs", "destination": "Track", "inverse": "album", "toMany": true, "ordered": true } ] }
    ] }
    """)

    /// Every delete rule: cascade chains (to-many and to-one), deny (to-many and to-one),
    /// nullify, noAction.
    package static let deleteRules = load("""
    { "name": "DeleteRules", "entities": [
      { "name": "Parent",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "children", "destination": "Child", "inverse": "parent", "toMany": true, "deleteRule": "cascade" } ] },
      { "name": "Child",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "parent", "destination": "Parent", "inverse": "children", "optional": true },
          { "name": "toys", "destination": "Toy", "inverse": "child", "toMany": true, "deleteRule": "cascade" },
          { "name": "diary", "destination": "Diary", "inverse": "child", "optional": true, "deleteRule": "cascade" } ] },
      { "name": "Toy",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "child", "destination": "Child", "inverse": "toys", "optional": true } ] },
      { "name": "Diary",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "child", "destination": "Child", "inverse": "diary", "optional": true } ] },
      { "name": "Owner",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true, "deleteRule": "deny" },
          { "name": "licence", "destination": "Licence", "inverse": "owner", "optional": true, "deleteRule": "deny" } ] },
      { "name": "Pet",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "pets", "optional": true } ] },
      { "name": "Licence",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "licence", "optional": true } ] },
      { "name": "Team",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "players", "destination": "Player", "inverse": "team", "toMany": true, "deleteRule": "nullify" } ] },
      { "name": "Player",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "team", "destination": "Team", "inverse": "players", "optional": true } ] },
      { "name": "Folder",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "notes", "destination": "Note", "inverse": "folder", "toMany": true, "deleteRule": "noAction" } ] },
      { "name": "Note",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "folder", "destination": "Folder", "inverse": "notes", "optional": true } ] }
    ] }
    """)

    /// Every validation rule.
    package static let validation = load("""
    { "name": "Validation", "entities": [
      { "name": "Gadget",
        "attributes": [
          { "name": "name", "type": "string", "minLength": 2, "maxLength": 5, "regex": "[a-z]+" },
          { "name": "small", "type": "int16", "optional": true },
          { "name": "medium", "type": "int32", "optional": true },
          { "name": "large", "type": "int64", "optional": true, "min": 10, "max": 20 },
          { "name": "ratio", "type": "double", "optional": true, "min": 0, "max": 1 },
          { "name": "price", "type": "decimal", "optional": true, "min": "0.01", "max": "100" },
          { "name": "made", "type": "date", "optional": true,
            "min": "2000-01-01T00:00:00.000Z", "max": "2030-01-01T00:00:00.000Z" },
          { "name": "serial", "type": "string", "optional": true } ],
        "relationships": [
          { "name": "maker", "destination": "Maker", "inverse": "gadgets" } ],
        "uniquenessConstraints": [ ["serial"] ] },
      { "name": "Maker",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "gadgets", "destination": "Gadget", "inverse": "maker", "toMany": true } ] },
      { "name": "Kit",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [
          { "name": "parts", "destination": "Part", "inverse": "kit", "toMany": true, "minCount": 2, "maxCount": 3 } ] },
      { "name": "Part",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "kit", "destination": "Kit", "inverse": "parts", "optional": true } ] }
    ] }
    """)

    /// Inheritance, with uniqueness constraints on an inherited attribute, across subentities,
    /// and over a to-one relationship.
    package static let inheritance = load("""
    { "name": "Inheritance", "entities": [
      { "name": "Asset", "abstract": true,
        "attributes": [ { "name": "title", "type": "string" } ],
        "relationships": [ { "name": "owner", "destination": "User", "inverse": "assets", "optional": true } ],
        "uniquenessConstraints": [ ["owner", "title"] ] },
      { "name": "Document", "parent": "Asset",
        "attributes": [ { "name": "pages", "type": "int32", "default": 1 } ] },
      { "name": "ScannedDocument", "parent": "Document",
        "attributes": [ { "name": "dpi", "type": "int16", "default": 300 } ] },
      { "name": "Photo", "parent": "Asset",
        "attributes": [ { "name": "width", "type": "int32", "default": 1 } ] },
      { "name": "User",
        "attributes": [
          { "name": "email", "type": "string" },
          { "name": "handle", "type": "string" } ],
        "relationships": [ { "name": "assets", "destination": "Asset", "inverse": "owner", "toMany": true } ],
        "uniquenessConstraints": [ ["email"] ] },
      { "name": "Admin", "parent": "User",
        "attributes": [ { "name": "level", "type": "int16", "default": 1 } ] },
      { "name": "Member", "parent": "User",
        "uniquenessConstraints": [ ["handle"] ] }
    ] }
    """)
}

/// A transformable value for the `point` attribute.
struct Point: Codable, Sendable, Hashable {
    var x: Double
    var y: Double
    var label: String
}
