import Foundation
import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataXML

// The to-do list example: todos with tags (many-to-many) and a location (one-to-many), through a
// repository, with the classes generated from the model at every build (StrataGeneratorPlugin
// reads the model strata.json names). It runs on the store its configuration file names — in memory by default — and on
// any other store without a code change, with a live list of the open to-dos and an edit sheet
// in a child context:
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

    // A live list: a results controller keeps the open to-dos current and tells its delegate
    // what changed, in the order a table view applies it.
    let printer = ListPrinter()
    let live = ResultsController(
        request: FetchRequest(
            entityName: "Todo", predicate: \Todo.done == false,
            sortDescriptors: [FetchSortDescriptor(\Todo.priority, ascending: false), FetchSortDescriptor(\Todo.title)]),
        context: context)
    live.delegate = printer
    try live.performFetch()
    print("\nLive list: \(live.fetchedObjects.count) open")

    // An edit sheet: a child context of the list's context. Its save hands the new to-do to the
    // list's context only; the list sees it at once, and the store when that context saves.
    let sheet = ManagedObjectContext(parent: context)
    let draft = sheet.insert(Todo.self)
    draft.title = "Call the plumber"
    draft.priority = 2
    draft.createdAt = Date()
    draft.tags = [try TodoRepository(context: sheet).tag(named: "home")]
    print("\nThe sheet saves into the list's context:")
    try sheet.save()
    // Titles are unique: on a store that keeps the first run's to-dos, the plumber is there
    // already, and this policy makes the new one an update of it (an upsert) instead of a
    // refused save.
    context.mergePolicy = .mergeByPropertyObjectTrump
    try context.save()

    // A sheet dropped without saving changes nothing.
    do {
        let discarded = ManagedObjectContext(parent: context)
        let report = try discarded.fetch(Todo.self, where: \.title == "Write the report")[0]
        report.title = "Burn the report"
    }
    print("\nA dropped sheet leaves the list as it was: \(context.hasChanges ? "changed" : "unchanged")")
} catch {
    // Bad configuration, an unreadable store, a refused save: say what and where, exit 1.
    FileHandle.standardError.write(Data("todo-example: \(error)\n".utf8))
    exit(1)
}

/// Prints what a live list's delegate hears: the rows to insert, delete and move.
final class ListPrinter: ResultsControllerDelegate {
    func resultsController(_ controller: ResultsController, didChange diff: ResultsDiff, from old: ResultsSnapshot) {
        for change in diff.deleted { print("  - row \(change.path.item)") }
        for change in diff.inserted {
            let todo = controller.object(at: change.path)
            print("  + row \(change.path.item): \(todo["title"] as? String ?? "")")
        }
        for move in diff.moved { print("  ~ row \(move.from.item) → \(move.to.item)") }
        if !diff.updated.isEmpty { print("  * \(diff.updated.count) updated") }
    }
}
