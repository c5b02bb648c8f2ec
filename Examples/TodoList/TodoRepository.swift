import Foundation
import Strata

/// The data-access object of the to-do list: every read and write of the app goes through it,
/// so the rest of the app never sees a context or a predicate. `Todo`, `Tag` and `Location` are
/// generated from Schemas/TodoList.json at every build (StrataGeneratorPlugin); predicates and
/// sort orders use their key paths, which the compiler checks.
final class TodoRepository {
    private let context: ManagedObjectContext

    init(context: ManagedObjectContext) {
        self.context = context
    }

    /// A tag by name, created when missing.
    func tag(named name: String) throws -> Tag {
        if let existing = try context.fetch(Tag.self, where: \.name == name).first { return existing }
        let tag = context.insert(Tag.self)
        tag.name = name
        return tag
    }

    func location(named name: String, latitude: Double? = nil, longitude: Double? = nil) throws -> Location {
        if let existing = try context.fetch(Location.self, where: \.name == name).first { return existing }
        let location = context.insert(Location.self)
        location.name = name
        location.latitude = latitude
        location.longitude = longitude
        return location
    }

    @discardableResult
    func add(_ title: String, priority: Int16 = 0, tags: [String] = [], at locationName: String? = nil) throws -> Todo {
        let todo = context.insert(Todo.self)
        todo.title = title
        todo.createdAt = Date()
        todo.priority = priority
        todo.tags = Set(try tags.map(tag(named:)))
        if let locationName { todo.location = try location(named: locationName) }
        try context.save()
        return todo
    }

    func complete(_ title: String) throws {
        guard let todo = try context.fetch(Todo.self, where: \.title == title).first else { return }
        todo.done = true
        try context.save()
    }

    /// Open to-dos, most important first.
    func open() throws -> [Todo] {
        try context.fetch(Todo.self, where: \Todo.done == false, sortedBy: [FetchSortDescriptor(\Todo.priority, ascending: false), FetchSortDescriptor(\Todo.title)])
    }

    func tagged(_ name: String) throws -> [Todo] {
        try context.fetch(Todo.self, where: FetchPredicate(format: "ANY tags.name ==[c] %@", name), sortedBy: [FetchSortDescriptor("title")])
    }

    func remove(_ title: String) throws {
        for todo in try context.fetch(Todo.self, where: \.title == title) { context.delete(todo) }
        try context.save()
    }
}
