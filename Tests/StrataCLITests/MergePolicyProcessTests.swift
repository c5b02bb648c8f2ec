import Foundation
import Strata
import StrataTestKit
import Testing

/// The merge policies across two processes on one store file: this process reads a person,
/// another (`strata update`) changes her, then this process saves its own changes under each
/// policy; and a new object whose unique email another process gave a stored one is saved as
/// an update of that one (an upsert).
@Suite("Merge policies across processes")
struct MergePolicyProcessTests {
    /// People with a unique email (and teams and skills, which these tests leave empty).
    static let model = MergePolicyChecks.modelJSON
    static let policies = MergePolicyChecks.policies

    /// A store with Ann (age 40) made by `strata load`, and a context of this process that has
    /// read her.
    static func scene(_ ext: String, _ policy: ManagedObjectContext.MergePolicy) throws -> (Workspace, ManagedObjectContext, ManagedObject) {
        let workspace = try Workspace(["people.json": model])
        try workspace.load("people.\(ext)", schema: "people.json", data: [("data.json", """
            { "objects": { "Person": [ { "@id": 1, "email": "ann@example.com", "name": "Ann", "age": 40 },
                                        { "@id": 2, "email": "bob@example.com", "name": "Bob" } ] } }
            """)])
        let context = ManagedObjectContext(coordinator: try workspace.coordinator("people", ext, schema: "people.json"))
        context.mergePolicy = policy
        let ann = try context.fetch(FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "email == 'ann@example.com'")))
        try #require(ann.count == 1)
        #expect(ann[0]["age"] as? Int64 == 40)
        return (workspace, context, ann[0])
    }

    /// Ann as the file holds her now, read by another `strata` process.
    static func stored(_ workspace: Workspace, _ ext: String) throws -> [String: Any] {
        let objects = try workspace.dumpedObjects("people.\(ext)")
        let ann = objects["Person"]?.first { $0["email"] as? String == "ann@example.com" }
        return try #require(ann)
    }

    /// The other process sets age 50; this one sets age 60 and nickname Annie.
    @Test(arguments: ["sqlite", "xml", "bplist"], policies)
    func conflictingEditsOfTheSameAndOfDifferentProperties(_ ext: String, _ policy: ManagedObjectContext.MergePolicy) throws {
        let (workspace, context, ann) = try Self.scene(ext, policy)
        let updated = try workspace.run("update", "people.\(ext)", "Person", "--where", "email == 'ann@example.com'", "--set", "age=50", "--set", "name=Anne")
        try #require(updated.status == 0, "\(updated.stderr)")
        ann["age"] = 60
        ann["nickname"] = "Annie"
        if policy == .error {
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .mergeConflict)
            let stored = try Self.stored(workspace, ext)
            #expect(stored["age"] as? Int == 50)
            #expect(stored["nickname"] as? String == nil)
            return
        }
        try context.save()
        let expected: (name: String, age: Int, nickname: String?) = switch policy {
        case .mergeByPropertyObjectTrump: ("Anne", 60, "Annie")
        case .mergeByPropertyStoreTrump: ("Anne", 50, "Annie")
        case .overwrite: ("Ann", 60, "Annie")
        default: ("Anne", 50, nil)
        }
        let stored = try Self.stored(workspace, ext)
        #expect(stored["name"] as? String == expected.name, "\(policy)")
        #expect(stored["age"] as? Int == expected.age, "\(policy)")
        #expect(stored["nickname"] as? String == expected.nickname, "\(policy)")
        #expect(ann["age"] as? Int64 == Int64(expected.age), "\(policy)")
        let checked = try workspace.run("check", "people.\(ext)")
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
    }

    /// The other process gives Bob the email this process's new person has: the save updates
    /// Bob's row (now ann2@) instead of failing, under every policy but `.error`.
    @Test(arguments: ["sqlite", "xml", "bplist"], policies)
    func aNewObjectWhoseUniqueValuesAnotherProcessSavedUpdatesThatObject(_ ext: String, _ policy: ManagedObjectContext.MergePolicy) throws {
        let (workspace, context, _) = try Self.scene(ext, policy)
        let new = try context.insertObject(entityName: "Person")
        new["email"] = "ann2@example.com"
        new["nickname"] = "Second"
        let updated = try workspace.run("update", "people.\(ext)", "Person", "--where", "email == 'bob@example.com'", "--set", "email=ann2@example.com")
        try #require(updated.status == 0, "\(updated.stderr)")
        if policy == .error {
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validationFailed)
            #expect(error?.failures.map(\.code) == [.notUnique])
            return
        }
        try context.save()
        let people = try workspace.dumpedObjects("people.\(ext)")["Person"] ?? []
        #expect(people.count == 2, "\(policy): \(people)")
        let merged = people.first { $0["email"] as? String == "ann2@example.com" }
        #expect(merged?["name"] as? String == "Bob", "\(policy)")
        #expect(merged?["nickname"] as? String == "Second", "\(policy)")
    }
}
