import Foundation
import Strata
import StrataSQLite
import Testing

/// A process that has a SQLite store open must keep its locks on the file whatever else it does
/// with the file. POSIX advisory locks belong to the process, and closing *any* descriptor of
/// the file drops all of them (https://sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_):
/// then another process's last connection believes it is the last one, checkpoints and deletes
/// the `-wal` and `-shm` this process is still using, and what this process saves afterwards
/// goes into a deleted log — lost.
@Suite("A process keeps its SQLite locks")
struct SharedLockTests {
    @Test func openingTheStoreAgainInTheSameProcessKeepsItsLocks() throws {
        let workspace = try Workspace([:], schemas: ["TodoList"])
        let schema = try Schema(contentsOf: workspace.file("TodoList.json"))
        let url = workspace.file("todo.sqlite")
        let first = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        try first.addStore(StoreDescription(type: .sqlite, url: url))
        let context = ManagedObjectContext(coordinator: first)
        try context.insertObject(entityName: "Tag")["name"] = "one"
        try context.save()
        // Things an app does with a store it has open: reads its metadata, opens it again in
        // another coordinator, plans a migration (which tells its type from its first bytes).
        _ = try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        let second = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        try second.addStore(StoreDescription(type: .sqlite, url: url))
        _ = try StoreMigrator(storeTypes: StoreTypeRegistry([SQLiteStoreFactory()])).plan(forStoreAt: url, versions: SchemaVersions([schema]))

        // Another process opens, reads and closes the store.
        let counted = try workspace.run("query", "todo.sqlite", "Tag", "--count")
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(counted.stdout == "1\n")
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "the other process took itself for the last connection and removed the log this one uses")

        try context.insertObject(entityName: "Tag")["name"] = "two"
        try context.save()
        let after = try workspace.run("query", "todo.sqlite", "Tag", "--count")
        #expect(after.stdout == "2\n", "\(after.stderr)")
    }
}
