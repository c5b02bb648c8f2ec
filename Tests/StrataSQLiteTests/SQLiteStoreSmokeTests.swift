import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

@Test func todoRoundTripThroughAContext() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let schema = try Fixtures.schema("TodoList")
    let url = directory.file("todos.sqlite")
    do {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        let todo = try context.insertObject(entityName: "Todo")
        todo["title"] = "Buy milk"
        todo["createdAt"] = Date(timeIntervalSince1970: 0)
        let tag = try context.insertObject(entityName: "Tag")
        tag["name"] = "home"
        todo.addObject(tag, forKey: "tags")
        try context.save()
    }
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
    try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
    let context = ManagedObjectContext(coordinator: coordinator)
    let fetched = try context.fetch(FetchRequest(entityName: "Todo", predicate: .comparison(Comparison(.key("tags.name"), .equal, .constant("home")))))
    #expect(fetched.count == 1)
    #expect(fetched.first?["title"] as? String == "Buy milk")
    #expect(fetched.first?.objects(forKey: "tags").map { $0["name"] as? String } == ["home"])
}
