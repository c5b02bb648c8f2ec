import Testing
import Foundation
@testable import Strata

@Test func smoke() throws {
    let schema = try Schema(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Schemas/TodoList.json"))
    let coordinator = PersistentStoreCoordinator(schema: schema)
    try coordinator.addStore(.inMemory())
    let context = ManagedObjectContext(coordinator: coordinator)
    let todo = try context.insertObject(entityName: "Todo")
    todo["title"] = "Buy milk"
    todo["createdAt"] = Date(timeIntervalSince1970: 0)
    let tag = try context.insertObject(entityName: "Tag")
    tag["name"] = "home"
    todo.addObject(tag, forKey: "tags")
    #expect(tag.objects(forKey: "todos").count == 1)
    try context.save()
    #expect(!todo.objectID.isTemporary)
    let other = ManagedObjectContext(coordinator: coordinator)
    let fetched = try other.fetch(FetchRequest(entityName: "Todo", predicate: .comparison(Comparison(.key("tags.name"), .equal, .constant("home")))))
    #expect(fetched.count == 1)
    #expect(fetched.first?["title"] as? String == "Buy milk")
    #expect(fetched.first?["priority"] as? Int64 == 0)
    let bad = try context.insertObject(entityName: "Todo")
    bad["title"] = "Buy milk"
    bad["priority"] = 9
    #expect(throws: StrataError.self) { try context.save() }
    do { try context.save() } catch { print(error) }
}
