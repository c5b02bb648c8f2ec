import ArgumentParser
import Foundation
import Strata

/// `strata delete`: deletes the objects a predicate matches, with delete rules, in one save.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the objects of an entity that match a predicate, applying delete rules, in one save.",
        discussion: """
            Example: strata delete todo.sqlite Todo --where 'done == YES'
            A deny rule that refuses the delete, or any other failure, exits 1 and leaves the store \
            unchanged.
            """
    )

    @Option(help: "The store type (sqlite, xml, binary); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Argument(help: "The entity whose objects to delete; its subentities are included.")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in the NSPredicate format language (required; use TRUEPREDICATE to delete all).")
    var predicate: String

    func run() throws {
        try runReportingErrors {
            try StoreAccess.refuseReadOnlyStore(store, type: type, command: "delete")
            let coordinator = try StoreAccess.openExisting(store, type: type)
            let context = ManagedObjectContext(coordinator: coordinator)
            let request = FetchRequest(entityName: entity, predicate: try parsePredicate(predicate))
            let matches = try context.fetch(request)
            for object in matches { context.delete(object) }
            let deleted = context.deletedObjects.count
            try context.save()
            let cascaded = deleted - matches.count
            Console.print("deleted \(matches.count) \(entity) object\(matches.count == 1 ? "" : "s")\(cascaded > 0 ? " and \(cascaded) more by cascade" : "")")
        }
    }
}
