import Foundation
import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataXML

// The to-do list example: todos with tags (many-to-many) and a location (one-to-many), through a
// repository, with the classes generated from the model at every build (StrataGeneratorPlugin
// reads the model strata.json names). It runs on the store its configuration file names — in memory by default — and on
// any other store without a code change:
//
//     swift run todo-example
//     STRATA_STORE=sqlite:/tmp/todos.sqlite swift run todo-example

do {
    let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("strata.json")
    let container = try PersistentContainer(
        configurationFile: configuration, storeTypes: ExampleStores.registry,
        classes: TodoListModel.classes)
    let store = container.storeDescriptions[0]
    print("Store: \(store.type)\(store.url.map { " at \($0.path)" } ?? "")")

    let context = container.newBackgroundContext()
    let todos = TodoRepository(context: context)

    if try todos.open().isEmpty {
        try todos.add("Buy milk", priority: 2, tags: ["home", "shopping"], at: "Corner shop")
        try todos.add("Buy stamps", priority: 1, tags: ["shopping"], at: "Post office")
        try todos.add("Water the plants", tags: ["home"])
        try todos.add("Write the report", priority: 3, tags: ["work"])
        try todos.complete("Buy stamps")
    }

    print("\nOpen, most important first:")
    for todo in try todos.open() {
        let tags = todo.tags.map(\.name).sorted().joined(separator: ", ")
        print("  [\(todo.priority)] \(todo.title)  (\(tags))\(todo.location.map { " @ \($0.name)" } ?? "")")
    }

    print("\nTagged 'shopping':")
    for todo in try todos.tagged("shopping") {
        print("  \(todo.done ? "✓" : "·") \(todo.title)")
    }

    do {
        try todos.add("", tags: ["home"])
    } catch let error as StrataError {
        print("\nAn empty title is refused:\n\(error)")
        context.rollback()
    }
} catch {
    // Bad configuration, an unreadable store, a refused save: say what and where, exit 1.
    FileHandle.standardError.write(Data("todo-example: \(error)\n".utf8))
    exit(1)
}
