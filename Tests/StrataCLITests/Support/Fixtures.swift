/// Data for `Schemas/TodoList.json`: 7 to-dos (@id 1–6 and 10), 3 tags, 2 locations.
///
/// Exercises what `load` promises: @ids kept (10 after 6), missing attributes taking their
/// defaults (to-do 5 has no priority, done or notes), dates in every accepted form (ISO 8601 with
/// and without milliseconds, with an offset, seconds since 1970), and relationships given from
/// either side or both: tag 3's to-dos and location 2's to-dos are given only from the tag and
/// the location, tag 1's from both sides (which agree), the rest only from the to-do.
///
/// | @id | title        | priority | done  | tags          | location |
/// |-----|--------------|----------|-------|---------------|----------|
/// | 1   | Buy milk     | 2        | false | home, errands | Home     |
/// | 2   | Write report | 4        | false | work          | Office   |
/// | 3   | Call Élodie  | 1        | true  | home          | –        |
/// | 4   | buy stamps   | 3        | false | errands       | –        |
/// | 5   | Fix bike     | 0        | false | –             | –        |
/// | 6   | Pay rent     | 4        | false | work          | Office   |
/// | 10  | Plan trip    | 5        | false | home, work    | Home     |
let todoData = """
    {"objects": {
      "Todo": [
        {"@id": 1, "title": "Buy milk", "createdAt": "2024-05-01T10:00:00.000Z", "priority": 2},
        {"@id": 2, "title": "Write report", "createdAt": "2024-05-02T09:30:00Z", "priority": 4,
         "notes": "Q2 numbers", "tags": [2], "location": 1},
        {"@id": 3, "title": "Call Élodie", "createdAt": 1714730400, "priority": 1, "done": true, "tags": [1]},
        {"@id": 4, "title": "buy stamps", "createdAt": "2024-05-04T12:00:00+02:00", "priority": 3},
        {"@id": 5, "title": "Fix bike", "createdAt": "2024-05-05T08:00:00Z"},
        {"@id": 6, "title": "Pay rent", "createdAt": "2024-05-06T08:00:00Z", "priority": 4, "done": false,
         "notes": null, "tags": [2], "location": 1},
        {"@id": 10, "title": "Plan trip", "createdAt": "2024-05-07T08:00:00Z", "priority": 5,
         "notes": "Öland\\nin June", "tags": [1, 2]}
      ],
      "Tag": [
        {"@id": 1, "name": "home", "todos": [10, 3, 1]},
        {"@id": 2, "name": "work"},
        {"@id": 3, "name": "errands", "todos": [4, 1]}
      ],
      "Location": [
        {"@id": 1, "name": "Office", "latitude": 48.8566, "longitude": 2.3522},
        {"@id": 2, "name": "Home", "todos": [10, 1]}
      ]
    }}
    """

/// The same graph as ``todoData`` written differently: entities and objects in another order,
/// relationships given from the other side, dates in other forms, defaults spelt out.
let todoDataReordered = """
    {"objects": {
      "Location": [
        {"@id": 2, "name": "Home"},
        {"@id": 1, "longitude": 2.3522, "latitude": 48.8566, "name": "Office", "todos": [6, 2]}
      ],
      "Tag": [
        {"@id": 3, "name": "errands"},
        {"@id": 2, "name": "work", "todos": [10, 6, 2]},
        {"@id": 1, "name": "home"}
      ],
      "Todo": [
        {"@id": 10, "title": "Plan trip", "createdAt": "2024-05-07T10:00:00.000+02:00", "priority": 5,
         "notes": "Öland\\nin June", "location": 2, "tags": [2, 1]},
        {"@id": 6, "title": "Pay rent", "createdAt": 1714982400, "priority": 4},
        {"@id": 5, "title": "Fix bike", "createdAt": "2024-05-05T08:00:00.000Z", "priority": 0, "done": false, "notes": null},
        {"@id": 4, "title": "buy stamps", "createdAt": "2024-05-04T10:00:00Z", "priority": 3, "tags": [3]},
        {"@id": 3, "title": "Call Élodie", "createdAt": "2024-05-03T10:00:00Z", "priority": 1, "done": true, "tags": [1]},
        {"@id": 2, "title": "Write report", "createdAt": "2024-05-02T09:30:00.000Z", "priority": 4, "notes": "Q2 numbers"},
        {"@id": 1, "title": "Buy milk", "createdAt": "2024-05-01T10:00:00Z", "priority": 2, "tags": [3, 1], "location": 2}
      ]
    }}
    """

/// Data for `Schemas/Moody.json`: two continents and three countries (subentities of the abstract
/// GeographicRegion) and two moods.
let moodyData = """
    {"objects": {
      "Continent": [
        {"@id": 1, "name": "Europe", "code": "EU"},
        {"@id": 2, "name": "Asia", "code": "AS"}
      ],
      "Country": [
        {"@id": 10, "name": "France", "code": "FR", "continent": 1},
        {"@id": 11, "name": "Japan", "code": "JP", "continent": 2},
        {"@id": 12, "name": "Germany", "code": "DE", "continent": 1}
      ],
      "Mood": [
        {"@id": 1, "date": "2024-01-01T00:00:00.000Z", "colors": "AQID", "country": 10},
        {"@id": 2, "date": "2024-01-02T00:00:00.000Z", "colors": "BAUG", "country": 11}
      ]
    }}
    """

/// Data for `Schemas/KitchenSink.json`: every attribute type, defaults (product 1 gives only its
/// @id), extreme values, an inheritance chain, an ordered to-many and a symmetric to-many.
let kitchenSinkData = """
    {"objects": {
      "Product": [
        {"@id": 1},
        {"@id": 2, "name": "Kettle", "stock": 10000, "views": 2147483647, "serial": 9223372036854775807,
         "price": "0.10", "score": -1.5e-7, "reach": 1e300, "weight": 0, "ratio": 1,
         "available": false, "releaseDate": "2030-12-31T23:59:59.999+02:00",
         "thumbnail": "", "batch": "3f2504e0-4f89-11d3-9a0c-0305e82c3302",
         "homepage": "https://example.com/k?q=a%20b&x=1", "dimensions": "e30=",
         "notes": "line one\\nline \\"two\\"\\t\\u00e9\\ud83d\\ude00 \\u0001", "replacement": 1}
      ],
      "Owner": [
        {"@id": 1, "name": "Ada", "email": "ada@example.com", "friends": [2]},
        {"@id": 2, "name": "Grace", "email": "grace@example.org", "joinedAt": "2020-02-29T12:00:00Z"}
      ],
      "Profile": [{"@id": 1, "bio": null, "avatar": "AAEC", "owner": 1}],
      "Document": [{"@id": 1, "title": "Notes", "createdAt": 0, "owner": 1, "body": null}],
      "ScannedDocument": [{"@id": 2, "title": "Scan", "createdAt": 1.5, "owner": 2, "dpi": 600, "tags": [2, 1]}],
      "Photo": [
        {"@id": 3, "title": "Sunset", "createdAt": "2024-05-01T10:00:00Z", "owner": 1, "width": 640, "height": 480, "image": "/9j/"},
        {"@id": 4, "title": "Dawn", "createdAt": "2024-05-02T10:00:00Z", "owner": 1, "width": 1, "height": 1, "image": "AA=="}
      ],
      "Album": [{"@id": 1, "title": "Best", "photos": [4, 3]}],
      "Tag": [{"@id": 1, "name": "paper"}, {"@id": 2, "name": "archive"}]
    }}
    """

/// Authors and books; an author's books deny the author's deletion.
let libraryModel = """
    { "name": "Library",
      "entities": [
        { "name": "Author", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "books", "destination": "Book", "inverse": "author", "toMany": true,
                               "deleteRule": "deny" } ] },
        { "name": "Book", "attributes": [ { "name": "title", "type": "string" } ],
          "relationships": [ { "name": "author", "destination": "Author", "inverse": "books", "optional": true } ] }
      ] }
    """

let libraryData = """
    {"objects": {
      "Author": [{"@id": 1, "name": "Ursula K. Le Guin", "books": [1, 2]}, {"@id": 2, "name": "Anonymous"}],
      "Book": [{"@id": 1, "title": "A Wizard of Earthsea"}, {"@id": 2, "title": "The Dispossessed"}, {"@id": 3, "title": "Beowulf"}]
    }}
    """

extension Workspace {
    /// A workspace with `Schemas/TodoList.json` and a store `todo.<ext>` loaded with ``todoData``.
    static func todo(_ ext: String = "plist") throws -> Workspace {
        let workspace = try Workspace(schemas: ["TodoList"])
        try workspace.load("todo.\(ext)", schema: "TodoList.json", data: [("todo.json", todoData)])
        return workspace
    }

    /// A workspace with `Schemas/Moody.json` and a store `moody.<ext>` loaded with ``moodyData``.
    static func moody(_ ext: String = "plist") throws -> Workspace {
        let workspace = try Workspace(schemas: ["Moody"])
        try workspace.load("moody.\(ext)", schema: "Moody.json", data: [("moody.json", moodyData)])
        return workspace
    }
}
