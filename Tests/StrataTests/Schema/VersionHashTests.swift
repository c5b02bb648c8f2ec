import Strata
import StrataTestKit
import Testing

/// A model that uses every part of the format that a version hash could cover.
private let baseModel = """
    {
      "name": "Shop",
      "version": "1",
      "versionHashModifier": "m1",
      "entities": [
        {
          "name": "Party",
          "attributes": [
            { "name": "email", "type": "string", "regex": "[a-z]+@[a-z]+", "minLength": 3, "maxLength": 100 }
          ]
        },
        {
          "name": "Customer",
          "parent": "Party",
          "versionHashModifier": "c1",
          "renamingIdentifier": "Client",
          "attributes": [
            { "name": "age", "type": "int16", "optional": true, "default": 18, "min": 0, "max": 150,
              "renamingIdentifier": "years", "versionHashModifier": "a1" },
            { "name": "photo", "type": "binary", "optional": true, "externalStorage": true },
            { "name": "cache", "type": "string", "optional": true, "transient": true }
          ],
          "relationships": [
            { "name": "orders", "destination": "Order", "inverse": "customer", "toMany": true,
              "maxCount": 10, "deleteRule": "cascade", "renamingIdentifier": "purchases", "versionHashModifier": "r1" }
          ],
          "uniquenessConstraints": [["email"]],
          "indexes": [ { "name": "byAge", "elements": [ { "property": "age", "order": "descending" } ] } ]
        },
        {
          "name": "Order",
          "attributes": [
            { "name": "total", "type": "decimal", "default": "0" },
            { "name": "size", "type": "transformable", "transformer": "SizeTransformer", "optional": true }
          ],
          "relationships": [
            { "name": "customer", "destination": "Customer", "inverse": "orders" }
          ]
        }
      ],
      "configurations": [ { "name": "Main", "entities": ["Party", "Customer", "Order"] } ]
    }
    """

/// An edit of ``baseModel`` and the entities whose version hash it must change.
struct HashEdit: Sendable, CustomTestStringConvertible {
    let name: String
    let replacements: [(String, String)]
    let changedEntities: Set<String>
    let changesModelHash: Bool

    /// An edit that changes the hashes of `changedEntities`, and so the model's.
    static func changes(_ name: String, _ replacements: [(String, String)], entities: Set<String>) -> HashEdit {
        HashEdit(name: name, replacements: replacements, changedEntities: entities, changesModelHash: true)
    }

    /// An edit that changes no hash.
    static func keeps(_ name: String, _ replacements: [(String, String)]) -> HashEdit {
        HashEdit(name: name, replacements: replacements, changedEntities: [], changesModelHash: false)
    }

    var testDescription: String { name }
}

@Suite("Version hashes")
struct VersionHashTests {
    static func load(_ text: String) throws -> Schema {
        let result = loadModel(text)
        #expect(!result.diagnostics.hasErrors, "\(result.diagnostics)")
        return try #require(result.schema)
    }

    // Pins the hashing scheme. Every store records the model's and each entity's version hash
    // in its metadata and refuses (or migrates) a store whose hashes differ, so a change to how
    // hashes are computed makes every existing store look like it belongs to another model. If
    // this test fails, the scheme changed: that must be deliberate, come with a migration story,
    // and update these literals. The values were computed independently with coreutils'
    // `sha256sum` from the canonical text documented in VersionHash.swift:
    //   entity: "entity Item\nancestors \nabstract false\nmodifier -\n
    //            attribute title string optional=false transient=false external=false modifier=-"
    //   model:  "model-modifier -\nentity Item <entity hash>"
    @Test("the hash of a tiny model is pinned")
    func pinnedHash() throws {
        let schema = try Self.load("""
            { "name": "Tiny", "entities": [ { "name": "Item", "attributes": [ { "name": "title", "type": "string" } ] } ] }
            """)
        #expect(schema.entity(named: "Item")?.versionHash == "600402e49a6e967b7f344417e370efa55e407115661b716b16d2d9dd10569ffc")
        #expect(schema.versionHash == "ae4e86832dc98480da3aa3ccfcc538ba687cef97e87364e96d2fac2bc288be78")
    }

    @Test("key order, white space, and the order of entities and properties do not change a hash")
    func layoutDoesNotMatter() throws {
        let base = try Self.load(baseModel)
        let rewritten = try Self.load("""
            {"configurations":[{"entities":["Order","Customer","Party"],"name":"Main"}],
             "entities":[
              {"relationships":[{"inverse":"orders","destination":"Customer","name":"customer"}],
               "attributes":[{"optional":true,"transformer":"SizeTransformer","type":"transformable","name":"size"},
                             {"default":"0","type":"decimal","name":"total"}],
               "name":"Order"},
              {"indexes":[{"elements":[{"order":"descending","property":"age"}],"name":"byAge"}],
               "uniquenessConstraints":[["email"]],
               "relationships":[{"versionHashModifier":"r1","renamingIdentifier":"purchases","deleteRule":"cascade","maxCount":10,
                                 "toMany":true,"inverse":"customer","destination":"Order","name":"orders"}],
               "attributes":[{"transient":true,"optional":true,"type":"string","name":"cache"},
                             {"versionHashModifier":"a1","renamingIdentifier":"years","max":150,"min":0,"default":18,
                              "optional":true,"type":"int16","name":"age"},
                             {"externalStorage":true,"optional":true,"type":"binary","name":"photo"}],
               "renamingIdentifier":"Client","versionHashModifier":"c1","parent":"Party","name":"Customer"},
              {"attributes":[{"maxLength":100,"minLength":3,"regex":"[a-z]+@[a-z]+","type":"string","name":"email"}],
               "name":"Party"}],
             "versionHashModifier":"m1","version":"1","name":"Shop"}
            """)
        #expect(rewritten.entityVersionHashes == base.entityVersionHashes)
        #expect(rewritten.versionHash == base.versionHash)
        // The hashes are not all the same value, so the equality above means something.
        #expect(Set(base.entityVersionHashes.values).count == 3)
    }

    static let edits: [HashEdit] = [
        .changes("an attribute's type", [(#""name": "age", "type": "int16""#, #""name": "age", "type": "int32""#)], entities: ["Customer"]),
        .changes("an attribute's optionality", [(#""type": "int16", "optional": true"#, #""type": "int16", "optional": false"#)], entities: ["Customer"]),
        .changes("an attribute's name", [(#""name": "cache""#, #""name": "memo""#)], entities: ["Customer"]),
        .changes("transient", [(#", "transient": true"#, "")], entities: ["Customer"]),
        .changes("externalStorage", [(#""externalStorage": true"#, #""externalStorage": false"#)], entities: ["Customer"]),
        .changes("an entity's name", [(#""Order""#, #""Purchase""#)], entities: ["Order", "Purchase", "Customer"]),
        .changes("abstract", [(#""name": "Party","#, #""name": "Party", "abstract": true,"#)], entities: ["Party"]),
        .changes("a relationship's toMany", [(#""inverse": "orders" }"#, #""inverse": "orders", "toMany": true }"#)], entities: ["Order"]),
        .changes("a to-one's optionality", [(#""inverse": "orders" }"#, #""inverse": "orders", "optional": true }"#)], entities: ["Order"]),
        .changes("ordered", [(#""toMany": true,"#, #""toMany": true, "ordered": true,"#)], entities: ["Customer"]),
        .changes("the inverses", [(#""inverse": "customer", "#, ""), (#", "inverse": "orders""#, "")], entities: ["Customer", "Order"]),
        .changes("a parent", [(#""name": "Order","#, #""name": "Order", "parent": "Party","#)], entities: ["Order"]),
        .changes("an inherited attribute, in the subentity too", [(#""type": "string", "regex""#, #""type": "string", "optional": true, "regex""#)],
                 entities: ["Party", "Customer"]),
        .changes("a uniqueness constraint", [(#"[["email"]]"#, #"[["email"], ["age"]]"#)], entities: ["Customer"]),
        .changes("the entity's versionHashModifier", [(#""versionHashModifier": "c1""#, #""versionHashModifier": "c2""#)], entities: ["Customer"]),
        .changes("an attribute's versionHashModifier", [(#""versionHashModifier": "a1""#, #""versionHashModifier": "a2""#)], entities: ["Customer"]),
        .changes("a relationship's versionHashModifier", [(#""versionHashModifier": "r1""#, #""versionHashModifier": "r2""#)], entities: ["Customer"]),
        .changes("the model's versionHashModifier (the model's hash only)", [(#""versionHashModifier": "m1""#, #""versionHashModifier": "m2""#)], entities: []),
        .changes("a new entity", [("\"entities\": [\n", "\"entities\": [ { \"name\": \"Extra\" },\n")], entities: ["Extra"]),

        .keeps("a default", [(#""default": 18"#, #""default": 21"#), (#""default": "0""#, #""default": "1.5""#)]),
        .keeps("min and max", [(#""min": 0, "max": 150"#, #""min": 1, "max": 120"#)]),
        .keeps("minLength and maxLength", [(#""minLength": 3, "maxLength": 100"#, #""minLength": 5, "maxLength": 50"#)]),
        .keeps("a regex", [(#""regex": "[a-z]+@[a-z]+""#, #""regex": ".+@.+""#)]),
        .keeps("an index's order", [(#""order": "descending""#, #""order": "ascending""#)]),
        .keeps("removing an index", [(#"[ { "name": "byAge", "elements": [ { "property": "age", "order": "descending" } ] } ]"#, "[]")]),
        .keeps("indexed", [(#""type": "decimal","#, #""type": "decimal", "indexed": true,"#)]),
        .keeps("renaming identifiers", [(#""Client""#, #""Customer1""#), (#""years""#, #""yearsOld""#), (#""purchases""#, #""buys""#)]),
        .keeps("a delete rule", [(#""deleteRule": "cascade""#, #""deleteRule": "deny""#)]),
        .keeps("minCount and maxCount", [(#""maxCount": 10"#, #""minCount": 1, "maxCount": 20"#)]),
        .keeps("a transformer's name", [(#""SizeTransformer""#, #""DimensionsTransformer""#)]),
        .keeps("the model's name and version label", [(#""name": "Shop""#, #""name": "Store""#), (#""version": "1""#, #""version": "2""#)]),
        .keeps("configurations", [(#"[ { "name": "Main", "entities": ["Party", "Customer", "Order"] } ]"#, "[]")]),
    ]

    @Test("what affects storage changes a hash; what does not, does not", arguments: edits)
    func edit(_ edit: HashEdit) throws {
        var text = baseModel
        for (old, new) in edit.replacements {
            try #require(text.contains(old), "the edit '\(old)' does not apply to the base model")
            text = text.replacingOccurrences(of: old, with: new)
        }
        let base = try Self.load(baseModel)
        let edited = try Self.load(text)
        let names = Set(base.entityVersionHashes.keys).union(edited.entityVersionHashes.keys)
        let changed = names.filter { base.entityVersionHashes[$0] != edited.entityVersionHashes[$0] }
        #expect(changed == edit.changedEntities)
        #expect((edited.versionHash != base.versionHash) == edit.changesModelHash)
    }

    @Test("the model's hash covers its entities' hashes, not its name")
    func modelHashCoversEntities() throws {
        let one = try Self.load(#"{ "name": "One", "entities": [ { "name": "Item", "attributes": [ { "name": "title", "type": "string" } ] } ] }"#)
        let renamed = try Self.load(#"{ "name": "Two", "version": "9", "entities": [ { "name": "Item", "attributes": [ { "name": "title", "type": "string" } ] } ] }"#)
        let optional = try Self.load(#"{ "name": "One", "entities": [ { "name": "Item", "attributes": [ { "name": "title", "type": "string", "optional": true } ] } ] }"#)
        #expect(renamed.versionHash == one.versionHash)
        #expect(optional.entity(named: "Item")?.versionHash != one.entity(named: "Item")?.versionHash)
        #expect(optional.versionHash != one.versionHash)
        #expect(one.versionHash != one.entity(named: "Item")?.versionHash)
    }

    @Test("hashes are 64 lower-case hex digits, one per entity")
    func hashShape() throws {
        let schema = try Self.load(baseModel)
        #expect(schema.entityVersionHashes.keys.sorted() == ["Customer", "Order", "Party"])
        for hash in Array(schema.entityVersionHashes.values) + [schema.versionHash] {
            #expect(hash.count == 64)
            #expect(hash.allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(schema.entities.map(\.versionHash) == ["Party", "Customer", "Order"].map { schema.entityVersionHashes[$0] })
    }

    @Test("key order shuffled at every level, with and without white space, keeps every hash (seeded)")
    func shuffledKeyOrder() throws {
        let base = try Self.load(baseModel)
        let tree = try JSONParser.parse(Array(baseModel.utf8)).value
        var random = SeededGenerator(seed: 0x5EED_2024)
        for _ in 0..<50 {
            let shuffled = Self.shuffle(tree, using: &random)
            let text = JSONWriter(pretty: Bool.random(using: &random)).string(from: shuffled)
            let schema = try Self.load(text)
            #expect(schema.entityVersionHashes == base.entityVersionHashes, "\(text)")
            #expect(schema.versionHash == base.versionHash)
        }
    }

    /// `value` with the members of every object, and the entities, attributes and relationships,
    /// in a random order.
    static func shuffle(_ value: JSONValue, key: String? = nil, using random: inout SeededGenerator) -> JSONValue {
        switch value {
        case .object(let members):
            let shuffled = members.map { member in
                JSONMember(key: member.key, value: JSONNode(shuffle(member.value.value, key: member.key, using: &random)))
            }
            return .object(shuffled.shuffled(using: &random))
        case .array(let elements):
            let shuffledElements = elements.map { JSONNode(shuffle($0.value, using: &random)) }
            let reorderable: Set<String> = ["entities", "attributes", "relationships"]
            return .array(key.map(reorderable.contains) == true ? shuffledElements.shuffled(using: &random) : shuffledElements)
        case .string, .number, .bool, .null:
            return value
        }
    }
}

