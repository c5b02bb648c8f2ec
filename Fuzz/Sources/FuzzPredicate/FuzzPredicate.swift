import Foundation
import FuzzSupport
import Strata
import StrataSQLite

/// The same small graph (the TodoList example and its CLI golden data) in an in-memory store
/// and in a SQLite store, so a parsed predicate runs through both the evaluator and the SQL
/// compiler.
private struct Fixture {
    let schema: Schema
    let memory: ManagedObjectContext
    let sqlite: ManagedObjectContext

    init() {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        do {
            schema = try Schema(contentsOf: root.appendingPathComponent("Schemas/TodoList.json"))
            let data = try Data(contentsOf: root.appendingPathComponent("Tests/StrataCLITests/Golden/TodoList.dump.json"))
            let file = FuzzInputFile(name: "predicate.sqlite")
            file.write([])
            unlink(file.url.path)
            memory = try Self.context(schema, .inMemory(), data)
            sqlite = try Self.context(schema, StoreDescription(type: .sqlite, url: file.url), data)
        } catch {
            fatalError("cannot set up the predicate fixture: \(error)")
        }
    }

    static func context(_ schema: Schema, _ store: StoreDescription, _ data: Data) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreProbe.registry)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let importer = DataImporter(context: context)
        importer.add(data, file: "TodoList.dump.json")
        try importer.finish()
        try context.save()
        return context
    }
}

nonisolated(unsafe) private let fixture = Fixture()

/// Arguments for `%@`, `%K` and friends, of every kind the parser substitutes.
private let arguments: [PredicateValue] = ["title", 2, "Buy*", 2.5, [1, 2], "tags.name", true, nil]

/// Any text: `FetchPredicate(format:)` must parse it or throw a `PredicateSyntaxError` with a
/// column inside the text. What parses must print back as text that parses to the same printed
/// form, and fetching with it from every entity, in memory and in SQLite, must work or throw.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let format = String(decoding: fuzzInput(start, count), as: UTF8.self)
    let predicate: FetchPredicate
    do {
        predicate = try FetchPredicate(format: format, argumentArray: arguments.map { $0 as any PredicateArgument })
    } catch {
        precondition((1...format.count + 1).contains(error.column), "column \(error.column) outside the text: \(error)")
        precondition(!error.message.isEmpty)
        return 0
    }
    let printed = predicate.description
    do {
        let reparsed = try FetchPredicate(format: printed)
        precondition(reparsed.description == printed, "printed form changes when parsed back: \(printed) → \(reparsed)")
    } catch {
        preconditionFailure("parsed, but its printed form \(printed) does not: \(error)")
    }
    for entity in fixture.schema.entities {
        let request = FetchRequest(entityName: entity.name, predicate: predicate)
        _ = try? fixture.memory.fetch(request)
        _ = try? fixture.sqlite.count(for: request)
        _ = try? fixture.sqlite.fetchObjectIDs(request)
    }
    return 0
}

@main
enum FuzzPredicate {
    static func main() {
        runLibFuzzer(fuzzPredicate)
    }
}
