import Foundation
import Strata
import StrataSQLite
import Testing

/// A SQLite store migrated in place while another `strata` process, which opened it with the
/// old model before, loads into it: the load either saved before the migration (its objects
/// are migrated with the rest), or is refused at its save ("migrated … by another process")
/// and writes nothing — or, when it was slow to start, at open ("written with model"). Never
/// a write of the old model into the migrated tables.
@Suite struct SQLiteMigrationProcessTests {
    @Test func aLoadWithTheOldModelBesideAMigration() throws {
        let batch = 300
        let workspace = try Workspace(
            ["old.json": ConcurrentProcessTests.tags("old", firstID: 1, count: 20),
             "new.json": ConcurrentProcessTests.tags("new", firstID: 1_001, count: batch)],
            schemas: ["TodoList"])
        let v1 = try Schema(contentsOf: workspace.file("TodoList.json"))
        let v2json = try String(contentsOf: workspace.file("TodoList.json"), encoding: .utf8)
            .replacingOccurrences(of: #"{ "name": "name", "type": "string", "minLength": 1 }"#, with: #"{ "name": "label", "type": "string", "minLength": 1, "renamingIdentifier": "name" }, { "name": "uses", "type": "int64", "default": 0 }"#)
            .replacingOccurrences(of: #""uniquenessConstraints": [["name"]]"#, with: #""uniquenessConstraints": [["label"]]"#)
        let v2 = try Schema(data: Data(v2json.utf8), file: "TodoList 2")
        let added = Set((0..<batch).map { "new\($0)" })
        for round in 1...2 {
            let store = "round\(round).sqlite"
            let seed = try workspace.run("load", "--schema", "TodoList.json", store, "old.json")
            try #require(seed.status == 0, "\(seed.stderr)")
            let url = workspace.file(store)
            let plan = try MigrationPlan(storeSchema: v1, versions: SchemaVersions([v1, v2]))
            let load = Locked<StrataRun?>(nil)
            let migration = Locked<Result<MigrationReport, StrataError>?>(nil)
            let group = DispatchGroup()
            // This process holds the write lock (a save waiting in its beforeCommit) while the
            // load starts, opens the store (reading needs no lock) and waits for the lock to
            // save, and while the migration starts and waits for it too; then lets both go.
            // Whichever takes the lock first, the load opened the store before the migration.
            let blocker = try SQLiteStore(url: url, schema: v1)
            let record = StoreRecord(
                objectID: ObjectID(entityName: "Tag", storeIdentifier: blocker.storeIdentifier, primaryKey: 900),
                attributes: AttributeValues(["name": .string("blocker")]))
            _ = try blocker.save(StoreChangeset(inserted: [record])) { () throws(StrataError) in
                DispatchQueue.global().async(group: group) {
                    let run = try? workspace.run("load", "--schema", "TodoList.json", store, "new.json")
                    load.withLock { $0 = run }
                }
                Thread.sleep(forTimeInterval: 0.3)
                DispatchQueue.global().async(group: group) {
                    let result = Result { () throws(StrataError) in try SQLiteStoreFactory().migrateStore(at: url, plan: plan, options: [:], progress: nil) }
                    migration.withLock { $0 = result }
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            group.wait()
            let report = try #require(migration.withLock { $0 }).get()
            #expect(!report.wasAlreadyCurrent, "round \(round)")
            let run = try #require(load.withLock { $0 })
            let objects = try workspace.dumpedObjects(store)
            let labels = Set((objects["Tag"] ?? []).compactMap { $0["label"] as? String })
            let old = Set((0..<20).map { "old\($0)" } + ["blocker"])
            if run.status == 0 {
                #expect(labels == old.union(added), "round \(round)")
            } else {
                #expect(run.stderr.contains("by another process since it was opened") || run.stderr.contains("which differs from model"), "round \(round): \(run.stderr)")
                #expect(labels == old, "round \(round)")
            }
            #expect(try SQLiteStoreFactory().metadata(at: url).modelVersionHash == v2.versionHash)
            let check = try workspace.run("check", store)
            #expect(check.status == 0, "round \(round): \(check.stdout) \(check.stderr)")
        }
    }
}

/// Commands that read a store take its model from the store: one that reads it just before
/// another process migrates the store opens it with the new model instead of failing.
@Suite("strata reading beside migrations")
struct ReadingBesideMigrationTests {
    @Test func readsBesideMigrationsBackAndForthAllSucceed() throws {
        let workspace = try Workspace(["tags.json": ConcurrentProcessTests.tags("t", firstID: 1, count: 50)], schemas: ["TodoList"])
        let seed = try workspace.run("load", "--schema", "TodoList.json", "todo.sqlite", "tags.json")
        try #require(seed.status == 0, "\(seed.stderr)")
        let v1 = try Schema(contentsOf: workspace.file("TodoList.json"))
        let v2json = try String(contentsOf: workspace.file("TodoList.json"), encoding: .utf8)
            .replacingOccurrences(of: #"{ "name": "name", "type": "string", "minLength": 1 }"#, with: #"{ "name": "name", "type": "string", "minLength": 1 }, { "name": "uses", "type": "int64", "default": 0 }"#)
        let v2 = try Schema(data: Data(v2json.utf8), file: "TodoList 2")
        let migrator = StoreMigrator(storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        let reads = Locked<[StrataRun]>([])
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for _ in 0..<40 {
                if let run = try? workspace.run("query", "todo.sqlite", "Tag", "--count") { reads.withLock { $0.append(run) } }
            }
        }
        // Back and forth while the reads run (v2 → v1 removes `uses`: an explicit step).
        for round in 0..<20 {
            let (from, to) = round.isMultiple(of: 2) ? (v1, v2) : (v2, v1)
            let plan = try MigrationPlan(storeSchema: from, versions: SchemaVersions([to]), unlisted: .throughEveryVersion)
            _ = try migrator.migrateStore(at: workspace.file("todo.sqlite"), plan: plan)
            Thread.sleep(forTimeInterval: 0.02)
        }
        group.wait()
        let runs = reads.withLock { $0 }
        #expect(runs.count == 40)
        for run in runs {
            #expect(run.status == 0 && run.stdout == "50\n", "\(run.stdout) \(run.stderr)")
        }
    }
}
