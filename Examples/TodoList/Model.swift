import Foundation
import Strata

/// The entities of Schemas/TodoList.json as typed classes.
final class Todo: ManagedObject {
    override class var entityName: String { "Todo" }

    @Attribute("title") var title: String
    @Attribute("createdAt") var createdAt: Date
    @Attribute("priority") var priority: Int16
    @Attribute("done") var done: Bool
    @Attribute("notes") var notes: String?
    @ToMany("tags") var tags: Set<Tag>
    @Relationship("location") var location: Location?

    override func awakeFromInsert() {
        createdAt = Date()
    }
}

final class Tag: ManagedObject {
    override class var entityName: String { "Tag" }

    @Attribute("name") var name: String
    @ToMany("todos") var todos: Set<Todo>
}

final class Location: ManagedObject {
    override class var entityName: String { "Location" }

    @Attribute("name") var name: String
    @Attribute("latitude") var latitude: Double?
    @Attribute("longitude") var longitude: Double?
    @ToMany("todos") var todos: Set<Todo>
}


