import Foundation
package import Strata

/// The models of the migration suite: a first version of each, and later versions written as
/// edits of it, so that each test shows exactly what its version changes.
package enum MigrationModels {
    /// People with moods, moods with tags.
    package static let moodyJSON = """
    { "name": "Moody", "version": "1", "entities": [
      { "name": "Person",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "owner", "toMany": true } ] },
      { "name": "Mood",
        "attributes": [
          { "name": "name", "type": "string" },
          { "name": "level", "type": "int16", "default": 1 },
          { "name": "note", "type": "string", "optional": true },
          { "name": "weight", "type": "float", "optional": true },
          { "name": "colour", "type": "string", "optional": true } ],
        "relationships": [
          { "name": "owner", "destination": "Person", "inverse": "moods", "optional": true },
          { "name": "tags", "destination": "Tag", "inverse": "moods", "toMany": true } ] },
      { "name": "Tag",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "tags", "toMany": true } ] }
    ] }
    """
    package static let moody = Models.load(moodyJSON)

    /// Animals and dogs, separate hierarchies; owners walk dogs.
    package static let kennelJSON = """
    { "name": "Kennel", "version": "1", "entities": [
      { "name": "Animal",
        "attributes": [ { "name": "name", "type": "string" } ] },
      { "name": "Dog",
        "attributes": [ { "name": "name", "type": "string" }, { "name": "breed", "type": "string", "optional": true } ],
        "relationships": [ { "name": "walker", "destination": "Owner", "inverse": "dogs", "optional": true } ] },
      { "name": "Owner",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "dogs", "destination": "Dog", "inverse": "walker", "toMany": true } ] }
    ] }
    """
    package static let kennel = Models.load(kennelJSON)

    /// Dog under Animal, keeping its properties (`name` now inherited).
    package static let kennelWithParent = edit(kennelJSON, version: "2", [
        (#""attributes": [ { "name": "name", "type": "string" }, { "name": "breed""#, #""parent": "Animal", "attributes": [ { "name": "breed""#),
    ])

    /// `json` with each `(old, new)` replacement made (each `old` must occur exactly once) and
    /// the version label set.
    package static func edit(_ json: String, version: String, _ replacements: [(String, String)]) -> Schema {
        var text = json.replacingOccurrences(of: #""version": "1""#, with: #""version": "\#(version)""#)
        for (old, new) in replacements {
            precondition(text.components(separatedBy: old).count == 2, "a migration model edit must match once: \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return Models.load(text)
    }

    /// Moody with edits.
    package static func moody(_ version: String, _ replacements: [(String, String)]) -> Schema {
        edit(moodyJSON, version: version, replacements)
    }

    /// The people, moods and tags the Moody tests start from, with primary keys that are not
    /// 1…n, so that a store that renumbers is caught:
    ///
    ///     Mood2 colour="green" level=32767 name="calm" note="quiet" weight=0.1 owner->Person3 tags->[Tag1]
    ///     Mood5 level=-32768 name="glad" owner->Person3 tags->[Tag1,Tag6]
    ///     Mood7 colour="blue" level=1 name="sad" owner->Person4
    ///     Person3 name="Ada Lovelace" moods->[Mood2,Mood5]
    ///     Person4 name="Bob" moods->[Mood7]
    ///     Tag1 name="home" moods->[Mood2,Mood5]
    ///     Tag6 name="work" moods->[Mood5]
    package static func fillMoody(_ context: ManagedObjectContext) throws {
        let ada = try context.make("Person", key: 3, ["name": "Ada Lovelace"])
        let bob = try context.make("Person", key: 4, ["name": "Bob"])
        let home = try context.make("Tag", key: 1, ["name": "home"])
        let work = try context.make("Tag", key: 6, ["name": "work"])
        let calm = try context.make("Mood", key: 2, ["name": "calm", "level": Int64(32767), "note": "quiet", "weight": Float(0.1), "colour": "green"])
        let glad = try context.make("Mood", key: 5, ["name": "glad", "level": Int64(-32768)])
        let sad = try context.make("Mood", key: 7, ["name": "sad", "colour": "blue"])
        calm.setObject(ada, forKey: "owner")
        glad.setObject(ada, forKey: "owner")
        sad.setObject(bob, forKey: "owner")
        // Added out of key order: an unordered relationship has no order to keep.
        glad.addObject(work, forKey: "tags")
        glad.addObject(home, forKey: "tags")
        calm.addObject(home, forKey: "tags")
    }

    /// ``fillMoody(_:)``'s objects as ``Dump`` lines.
    package static let moodyLines = [
        #"Mood2 colour="green" level=32767 name="calm" note="quiet" weight=0.1 owner->Person3 tags->[Tag1]"#,
        #"Mood5 level=-32768 name="glad" owner->Person3 tags->[Tag1,Tag6]"#,
        #"Mood7 colour="blue" level=1 name="sad" owner->Person4"#,
        #"Person3 name="Ada Lovelace" moods->[Mood2,Mood5]"#,
        #"Person4 name="Bob" moods->[Mood7]"#,
        #"Tag1 name="home" moods->[Mood2,Mood5]"#,
        #"Tag6 name="work" moods->[Mood5]"#,
    ]
}
