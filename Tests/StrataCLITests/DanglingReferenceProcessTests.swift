import Foundation
import Strata
import Testing

/// A process that read an object, while another process (`strata delete`) deletes it, then
/// saves a new reference to it: the save must fail with a merge conflict and leave a store that
/// `strata check` finds sound — never a reference to nothing. (A relationship without an
/// inverse: the deleting process cannot know of the reference.)
@Suite("A save does not refer to what another process deleted")
struct DanglingReferenceProcessTests {
    static let model = """
    { "name": "People", "entities": [
      { "name": "Person",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "mentor", "destination": "Person", "optional": true } ] } ] }
    """

    @Test(arguments: ["sqlite", "xml", "bplist"])
    func aReferenceToAnObjectAnotherProcessDeleted(_ ext: String) throws {
        let workspace = try Workspace(["people.json": Self.model])
        let context = ManagedObjectContext(coordinator: try workspace.coordinator("people", ext, schema: "people.json"))
        let ann = try context.insertObject(entityName: "Person")
        ann["name"] = "ann"
        let bob = try context.insertObject(entityName: "Person")
        bob["name"] = "bob"
        try context.save()

        let deleted = try workspace.run("delete", "people.\(ext)", "Person", "--where", "name == 'ann'")
        #expect(deleted.status == 0, "\(deleted.stderr)")

        bob.setObject(ann, forKey: "mentor")
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.description) == [
            "Person/p2.mentor: refers to Person/p1, which the store no longer holds (another save deleted it)",
        ])

        let checked = try workspace.run("check", "people.\(ext)")
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        let listed = try workspace.run("query", "people.\(ext)", "Person", "--count")
        #expect(listed.stdout == "1\n", "\(listed.stderr)")
    }
}
