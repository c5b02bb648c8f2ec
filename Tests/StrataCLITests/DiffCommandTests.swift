import Foundation
import Strata
import Testing

/// The first version of a small shop model.
private let shopV1 = """
    {
      "name": "Shop",
      "version": "1",
      "entities": [
        { "name": "Item",
          "attributes": [
            { "name": "title", "type": "string" },
            { "name": "text", "type": "string", "optional": true },
            { "name": "stock", "type": "int16", "default": 0 },
            { "name": "sku", "type": "int32" }
          ],
          "relationships": [
            { "name": "tags", "destination": "Tag", "inverse": "items", "toMany": true }
          ] },
        { "name": "Tag",
          "attributes": [ { "name": "label", "type": "string" } ],
          "relationships": [ { "name": "items", "destination": "Item", "inverse": "tags", "toMany": true } ] },
        { "name": "Coupon", "attributes": [ { "name": "code", "type": "string" } ] }
      ]
    }
    """

/// The second version: a renamed entity and attribute, a widened and a changed type, a new
/// required attribute, a to-many that becomes to-one, an index, a removed entity.
private let shopV2 = """
    {
      "name": "Shop",
      "version": "2",
      "entities": [
        { "name": "Product", "renamingIdentifier": "Item",
          "attributes": [
            { "name": "title", "type": "string", "indexed": true },
            { "name": "summary", "type": "string", "optional": true, "renamingIdentifier": "text" },
            { "name": "stock", "type": "int64", "default": 0 },
            { "name": "sku", "type": "string" },
            { "name": "price", "type": "decimal" }
          ],
          "relationships": [
            { "name": "tag", "destination": "Tag", "inverse": "products", "optional": true, "renamingIdentifier": "tags" }
          ] },
        { "name": "Tag",
          "attributes": [ { "name": "label", "type": "string" } ],
          "relationships": [ { "name": "products", "destination": "Product", "inverse": "tag", "toMany": true, "renamingIdentifier": "items" } ] }
      ]
    }
    """

/// `shopV1` with an index and a default value: changes that do not touch the version hash.
private let shopV1Indexed = shopV1
    .replacingOccurrences(of: #""type": "string" },"#, with: #""type": "string", "indexed": true },"#)
    .replacingOccurrences(of: #""default": 0"#, with: #""default": 5"#)

@Suite("strata diff")
struct DiffCommandTests {
    @Test func changedModelsExitOneWithEveryChange() throws {
        let workspace = try Workspace(["v1.json": shopV1, "v2.json": shopV2])
        let run = try workspace.run("diff", "v1.json", "v2.json")
        #expect(run.stderr == "")
        #expect(run.status == 1)
        try golden.expect(run.stdout, matches: "diff-Shop.txt")
    }

    @Test func sameVersionHashExitsZeroAndStillListsTheChanges() throws {
        let workspace = try Workspace(["v1.json": shopV1, "v1b.json": shopV1Indexed])
        let run = try workspace.run("diff", "v1.json", "v1b.json")
        #expect(run.stdout == """
            Item.title: now indexed
            Item.stock: default 0 → 5
            Shop 1 → Shop 1: 2 changes; same version hash: a store of either model opens with the other, no migration needed

            """)
        #expect(run.stderr == "")
        #expect(run.status == 0)

        let identical = try workspace.run("diff", "v1.json", "v1.json")
        #expect(identical.stdout == "Shop 1 → Shop 1: no changes; same version hash: a store of either model opens with the other, no migration needed\n")
        #expect(identical.status == 0)
    }

    @Test func json() throws {
        let workspace = try Workspace(["v1.json": shopV1, "v2.json": shopV2])
        let run = try workspace.run("diff", "--format", "json", "v1.json", "v2.json")
        #expect(run.status == 1)
        #expect(run.stderr == "")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let source = try #require(object["source"] as? [String: Any])
        let destination = try #require(object["destination"] as? [String: Any])
        let v1 = try Schema(contentsOf: workspace.file("v1.json"))
        let v2 = try Schema(contentsOf: workspace.file("v2.json"))
        #expect(source["name"] as? String == "Shop")
        #expect(source["version"] as? String == "1")
        #expect(source["versionHash"] as? String == v1.versionHash)
        #expect(destination["version"] as? String == "2")
        #expect(destination["versionHash"] as? String == v2.versionHash)
        #expect(object["sameVersion"] as? Bool == false)
        #expect(object["inferable"] as? Bool == false)
        let changes = try #require(object["changes"] as? [[String: Any]])
        let expected = SchemaDiff(from: v1, to: v2).changes
        #expect(changes.count == expected.count)
        for (json, change) in zip(changes, expected) {
            #expect(json["kind"] as? String == change.kind.rawValue)
            #expect(json["entity"] as? String == change.entity)
            #expect(json["property"] as? String == change.property)
            #expect(json["detail"] as? String == change.detail)
            #expect(json["inferability"] as? String == change.inferability.name)
            #expect(json["reason"] as? String == change.inferability.explanation)
        }
        // One change checked field by field, null property included.
        let skuType = try #require(changes.first { $0["property"] as? String == "sku" })
        #expect(skuType["kind"] as? String == "typeChanged")
        #expect(skuType["entity"] as? String == "Product")
        #expect(skuType["detail"] as? String == "type int32 → string")
        #expect(skuType["inferability"] as? String == "notInferable")
        #expect(skuType["reason"] as? String == "only int16 → int32 → int64 and float → double are inferred; convert int32 to string in a custom stage")
        let removed = try #require(changes.last)
        #expect(removed["kind"] as? String == "entityRemoved")
        #expect(removed["entity"] as? String == "Coupon")
        #expect(removed["property"] is NSNull)
        #expect(removed["reason"] is NSNull)
    }

    @Test func anInvalidModelExitsTwoWithItsDiagnostics() throws {
        let workspace = try Workspace(["v1.json": shopV1, "Broken.json": brokenModel])
        let run = try workspace.run("diff", "v1.json", "Broken.json")
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == """
            \(brokenLine)
            Broken.json: invalid, 1 error

            """)
    }

    @Test func unreadableAndMalformedFilesExitTwo() throws {
        let workspace = try Workspace(["Bad.json": #"{"name": "Shop",}"#])
        let run = try workspace.run("diff", "Missing.json", "Bad.json")
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == """
            Missing.json: error: cannot read the file: no such file
            Missing.json: unreadable
            Bad.json:1:17: error: malformed JSON: trailing comma before '}'; remove the last ','
            Bad.json: invalid, 1 error

            """)
        let json = try workspace.run("diff", "--format", "json", "Bad.json", "Bad.json")
        #expect(json.status == 2)
        #expect(json.stdout == "")
    }

    @Test func usageErrorsExitTwo() throws {
        let workspace = try Workspace(["v1.json": shopV1])
        let missingArgument = try workspace.run("diff", "v1.json")
        #expect(missingArgument.status == 2)
        #expect(missingArgument.stderr.contains("Missing expected argument '<new>'"))
        let badFormat = try workspace.run("diff", "--format", "yaml", "v1.json", "v1.json")
        #expect(badFormat.status == 2)
        #expect(badFormat.stdout == "")
    }
}
