import ArgumentParser
import Foundation
import Strata

/// `strata delete`: deletes the objects a predicate matches, with delete rules, as one batch
/// delete (no object is loaded into a context; see `BatchDeleteRequest`).
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
            let result = try coordinator.execute(BatchDeleteRequest(entityName: entity, predicate: try parsePredicate(predicate)))
            let cascaded = result.cascadedCount
            Console.print("deleted \(result.count) \(entity) object\(result.count == 1 ? "" : "s")\(cascaded > 0 ? " and \(cascaded) more by cascade" : "")")
        }
    }
}
