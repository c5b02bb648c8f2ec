import Foundation
import Strata
import StrataCoreData
import StrataSQLite
import StrataTestKit
import Testing

/// The Core Data fixture stores read with their models, checked against plain SQL.
struct CoreDataSQLiteStoreTests {
    /// Every row of every table, read with plain SQL from a read-only connection, is one object
    /// with the same key, entity, version, attribute values and relationships.
    @Test(arguments: CoreDataModels.fixtures)
    func everyRowIsReadAsPlainSQLShowsIt(_ fixture: CoreDataModels.Fixture) throws {
        let schema = try fixture.schema
        let (_, store) = try openCoreDataStore(fixture.url, schema: schema)
        let entityRows = try sqlRows(fixture.url, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        var entityOfNumber: [Int64: EntityDescription] = [:]
        for row in entityRows {
            guard case .integer(let number)? = row["Z_ENT"], case .text(let name)? = row["Z_NAME"] else { continue }
            entityOfNumber[number] = schema.entities.first { $0.name == name || $0.renamingIdentifier == name }
        }
        var rowCount = 0
        for root in schema.entities where root.parentName == nil {
            let table = "Z" + root.name.uppercased()
            for row in try sqlRows(fixture.url, "SELECT * FROM \(table)") {
                rowCount += 1
                guard case .integer(let key)? = row["Z_PK"], case .integer(let number)? = row["Z_ENT"],
                      case .integer(let version)? = row["Z_OPT"] else {
                    Issue.record("\(table): a row without integer Z_PK, Z_ENT, Z_OPT")
                    continue
                }
                let entity = try #require(entityOfNumber[number])
                let id = try #require(try store.fetch(StoreFetchRequest(entityNames: [entity.name])).first { $0.objectID.primaryKey == key }?.objectID)
                let record = try #require(try store.records(for: [id])[id])
                #expect(record.version == version)
                for attribute in entity.attributes where !attribute.isTransient {
                    let stored = row["Z" + attribute.name.uppercased()] ?? .null
                    #expect(record.attributes[attribute.name] == Self.expected(stored, attribute.type), "\(entity.name) \(key) \(attribute.name)")
                }
                for relationship in entity.relationships {
                    if !relationship.isToMany {
                        let foreignKey = row["Z" + relationship.name.uppercased()] ?? .null
                        #expect(record.toOne[relationship.name]?.primaryKey == Self.integer(foreignKey), "\(entity.name) \(key) \(relationship.name)")
                    } else {
                        let destination = try #require(schema.entity(named: relationship.destination))
                        let inverse = try #require(relationship.inverse)
                        let members = try sqlRows(
                            fixture.url,
                            "SELECT Z_PK FROM Z\(destination.rootName.uppercased()) WHERE Z\(inverse.uppercased()) = \(key) ORDER BY Z_PK")
                        #expect((record.toMany[relationship.name] ?? []).map { $0.primaryKey } == members.map { Self.integer($0["Z_PK"]!) })
                    }
                }
            }
        }
        let concrete = schema.entities.filter { !$0.isAbstract }.map(\.name)
        #expect(try store.count(StoreFetchRequest(entityNames: concrete)) == rowCount)
        #expect(rowCount > 0)
    }

    /// What a stored value must read as, by the attribute's type.
    static func expected(_ value: SQLValue, _ type: AttributeType) -> AttributeValue? {
        switch (type, value) {
        case (_, .null): nil
        case (.string, .text(let text)): .string(text)
        case (.int16, .integer(let number)), (.int32, .integer(let number)), (.int64, .integer(let number)): .integer(number)
        case (.bool, .integer(let number)): .bool(number != 0)
        case (.date, .real(let seconds)): .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.binary, .blob(let data)), (.transformable, .blob(let data)): .binary(data)
        case (.uuid, .blob(let data)): .uuid(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        default: .string("unexpected \(value) for \(type)")
        }
    }

    static func integer(_ value: SQLValue) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }

    @Test func valuesOfTheSampleModelStores() throws {
        let (_, v1) = try openCoreDataStore(CoreDataModels.fixtures[0].url, schema: try CoreDataModels.fixtures[0].schema)
        let person = try #require(try v1.fetch(StoreFetchRequest(entityNames: ["Person"])).first)
        #expect(person.objectID.primaryKey == 1)
        #expect(person.attributes["firstName"] == .string("Victoria"))
        #expect(person.attributes["updatedAt"] == .date(Date(timeIntervalSinceReferenceDate: 639503569.638733)))
        #expect(person.attributes["id"] == .uuid(UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115")!))
        let owner = try #require(try v1.fetch(StoreFetchRequest(entityNames: ["Person"])).first { $0.objectID.primaryKey == 17 })
        #expect(owner.toMany["cars"]?.count == 100)
        let expensive = try v1.fetch(StoreFetchRequest(entityNames: ["ExpensiveSportCar"]))
        #expect(expensive.map { $0.objectID.primaryKey } == [14, 53, 87, 95, 99])
        // The V2 store keeps the entity's old name in Z_PRIMARYKEY; the model renamed it.
        let (_, v2) = try openCoreDataStore(CoreDataModels.fixtures[1].url, schema: try CoreDataModels.fixtures[1].schema)
        let luxury = try v2.fetch(StoreFetchRequest(entityNames: ["LuxuryCar"]))
        #expect(luxury.map { $0.objectID.primaryKey } == [14, 53, 87, 95, 99])
        #expect(luxury.first?.attributes["model"] == .string("570GT"))
        #expect(v2.storeIdentifier == "753753D3-A961-4901-AB05-8CC48B1D3853")
    }

    @Test func valuesOfTheRecipesStore() throws {
        let fixture = CoreDataModels.fixtures[3]
        let (coordinator, store) = try openCoreDataStore(fixture.url, schema: try fixture.schema)
        let recipe = try #require(try store.fetch(StoreFetchRequest(entityNames: ["Recipe"])).first)
        #expect(recipe.attributes["name"] == .string("Chocolate Cake"))
        #expect(recipe.toOne["image"]?.primaryKey == 2)
        #expect(recipe.toOne["type"]?.primaryKey == 5)
        #expect(recipe.toMany["ingredients"]?.map { $0.primaryKey } == [4, 5, 8, 9, 10, 12, 18, 19, 20])
        let images = try store.fetch(StoreFetchRequest(entityNames: ["Image"]))
        #expect(images.first { $0.objectID.primaryKey == 2 }?.toOne["recipe"]?.primaryKey == 1)
        // Fetches with predicates and sorts run on the loaded objects.
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Recipe")
        request.predicate = try FetchPredicate(format: "type.name != nil AND ANY ingredients.name BEGINSWITH[c] %@", "s")
        request.sortDescriptors = [FetchSortDescriptor("name", ascending: false)]
        let names = try context.fetch(request).map { $0["name"] as? String }
        #expect(!names.isEmpty)
        #expect(names == names.sorted { ($0 ?? "") > ($1 ?? "") })
    }

    /// `NSStoreModelVersionHashes` are the hashes Core Data computed for the models: those of the
    /// compiled model's VersionInfo.plist (the fixture README's claim).
    @Test func storedHashesAreThoseOfTheCompiledModel() throws {
        let versionInfo = try Data(contentsOf: CoreDataFixtures.model("alemar11__CoreDataPlus__SampleModel.momd.VersionInfo.plist"))
        let plist = try #require(try PropertyListSerialization.propertyList(from: versionInfo, format: nil) as? [String: Any])
        let versions = try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        let factory = CoreDataSQLiteStoreFactory()
        let v1 = try factory.summary(at: CoreDataModels.fixtures[0].url)
        let v2 = try factory.summary(at: CoreDataModels.fixtures[1].url)
        #expect(v1.entityVersionHashes == versions["SampleModel"])
        #expect(v2.entityVersionHashes == versions["SampleModel2"])
        #expect(v1.entityVersionHashes.count == 4)
        #expect(v1.frameworkVersion == "1044")
        #expect(v2.modelVersionIdentifiers == ["2"])
        #expect(v1.entities.map(\.name) == ["Car", "SportCar", "ExpensiveSportCar", "Person"])
        #expect(v1.entities.map(\.objectCount) == [115, 5, 5, 20])
        let metadata = try factory.metadata(at: CoreDataModels.fixtures[0].url)
        #expect(metadata.storeIdentifier == "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(metadata.entityVersionHashes["Car"] == "nlVVKQchWCING6zS+Ao9rUkZ90oyqovp7iKmp7QSbI8=")
        #expect(metadata.storeType == .coreDataSQLite)
    }

    /// Recognising, reading metadata, opening and fetching leave every fixture file as it was
    /// and create none beside it (no `-wal`, `-shm`, lock or temporary file).
    @Test func readingChangesNoFile() throws {
        let directory = CoreDataFixtures.root.appendingPathComponent("stores")
        let before = try directorySnapshot(directory)
        for fixture in CoreDataModels.fixtures {
            #expect(try allStoreTypes.type(of: fixture.url) == .coreDataSQLite)
            _ = try CoreDataSQLiteStoreFactory().metadata(at: fixture.url)
            let (coordinator, _) = try openCoreDataStore(fixture.url, schema: try fixture.schema)
            _ = try DataExporter.dump(coordinator)
        }
        #expect(try directorySnapshot(directory) == before)
    }

    /// A Core Data file is told by its tables whatever its name, before Strata's SQLite type
    /// (registered first here) claims it; a Strata SQLite store stays one.
    @Test func recognisedByContent() throws {
        let temporary = try TemporaryDirectory(prefix: "coredata-tests")
        let directory = temporary.url
        let renamed = directory.appendingPathComponent("app-data.bin")
        try FileManager.default.copyItem(at: CoreDataModels.fixtures[2].url, to: renamed)
        let registry = StoreTypeRegistry([SQLiteStoreFactory(), CoreDataSQLiteStoreFactory()])
        #expect(try registry.type(of: renamed) == .coreDataSQLite)
        #expect(try registry.type(of: CoreDataModels.fixtures[3].url) == .coreDataSQLite)
        let strata = directory.appendingPathComponent("strata.sqlite")
        let coordinator = PersistentStoreCoordinator(schema: try CoreDataModels.fixtures[2].schema, storeTypes: registry)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: strata))
        #expect(try registry.type(of: strata) == .sqlite)
        // Strata's SQLite type names the right type for a Core Data file given to it.
        let wrongType = PersistentStoreCoordinator(schema: try CoreDataModels.fixtures[2].schema, storeTypes: registry)
        let error = #expect(throws: StrataError.self) { try wrongType.addStore(StoreDescription(type: .sqlite, url: renamed)) }
        #expect(error?.message.contains("open it as type 'coredata'") == true)
    }

    @Test func aModelThatDiffersIsRefusedNamingTheDifference() throws {
        let v1 = CoreDataModels.fixtures[0], v2 = CoreDataModels.fixtures[1]
        let extraColumn = #expect(throws: StrataError.self) { try openCoreDataStore(v1.url, schema: try v2.schema) }
        #expect(extraColumn?.code == .incompatibleModel)
        #expect(extraColumn?.message.contains("table ZCAR has column ZCOLOR") == true)
        let missingColumn = #expect(throws: StrataError.self) { try openCoreDataStore(v2.url, schema: try v1.schema) }
        #expect(missingColumn?.message.contains("entity Car: color has no column ZCOLOR in table ZCAR") == true)
        let otherModel = #expect(throws: StrataError.self) { try openCoreDataStore(v1.url, schema: try CoreDataModels.fixtures[2].schema) }
        #expect(otherModel?.message.contains("entity User is not in the store") == true)
        let retyped = try Schema(data: Data(CoreDataModels.sampleModel3.replacingOccurrences(of: "\"name\", \"type\": \"string\"", with: "\"name\", \"type\": \"int32\"").utf8))
        let typeError = #expect(throws: StrataError.self) { try openCoreDataStore(CoreDataModels.fixtures[2].url, schema: retyped) }
        #expect(typeError?.message.contains("attribute name is int32 in the model, but its column ZUSER.ZNAME is VARCHAR") == true)
    }

    @Test func writesAreRefusedAndChangeNothing() throws {
        let fixture = CoreDataModels.fixtures[2]
        let before = try Data(contentsOf: fixture.url)
        let (coordinator, store) = try openCoreDataStore(fixture.url, schema: try fixture.schema)
        let context = ManagedObjectContext(coordinator: coordinator)
        let user = try context.insertObject(entityName: "User")
        user["name"] = "Zed"
        let saveError = #expect(throws: StrataError.self) { try context.save() }
        #expect(saveError?.message.contains("a Core Data store is read-only in Strata") == true)
        #expect(throws: StrataError.self) { try store.setCustomMetadata(["key": "value"]) }
        #expect(throws: StrataError.self) { try CoreDataSQLiteStoreFactory().open(url: URL(fileURLWithPath: "/nonexistent/new.sqlite"), schema: try fixture.schema, configurationName: nil, options: [:]) }
        #expect(try Data(contentsOf: fixture.url) == before)
    }

    /// Converting a Core Data store into every Strata store type keeps every object: the dumps
    /// are byte-identical.
    @Test(arguments: CoreDataModels.fixtures, ["sqlite", "xml", "binary"])
    func convertsIntoEveryStoreType(_ fixture: CoreDataModels.Fixture, _ type: String) throws {
        let temporary = try TemporaryDirectory(prefix: "coredata-tests")
        let directory = temporary.url
        let schema = try fixture.schema
        let destination = directory.appendingPathComponent("copy.\(type == "binary" ? "plist" : type)")
        let summary = try StoreConverter.convert(
            from: fixture.url, type: .coreDataSQLite, schema: schema, to: destination, type: StoreType(rawValue: type), storeTypes: allStoreTypes)
        let (source, _) = try openCoreDataStore(fixture.url, schema: schema)
        let copy = PersistentStoreCoordinator(schema: schema, storeTypes: allStoreTypes)
        try copy.addStore(StoreDescription(type: StoreType(rawValue: type), url: destination))
        #expect(try DataExporter.dump(copy) == (try DataExporter.dump(source)))
        #expect(summary.objectCounts.values.reduce(0, +) > 0)
    }

    @Test func corruptAndForeignFilesGetClearErrors() throws {
        let temporary = try TemporaryDirectory(prefix: "coredata-tests")
        let directory = temporary.url
        let schema = try CoreDataModels.fixtures[2].schema
        func openError(_ name: String, _ bytes: Data) throws -> StrataError? {
            let url = directory.appendingPathComponent(name)
            try bytes.write(to: url)
            return #expect(throws: StrataError.self) { try openCoreDataStore(url, schema: schema) }
        }
        let garbage = try openError("garbage.sqlite", Data("this is not a database at all, only text".utf8))
        #expect(garbage?.code == .corruptStore)
        #expect(garbage?.message.contains("not a SQLite database") == true)
        let truncated = try openError("truncated.sqlite", try Data(contentsOf: CoreDataModels.fixtures[2].url).prefix(5000))
        #expect(truncated?.code == .corruptStore)
        #expect(truncated?.message.contains("truncated") == true)
        // A SQLite database that is not a Core Data store.
        let plain = directory.appendingPathComponent("plain.sqlite")
        do {
            let database = try Database(path: plain.path, mode: .init(readOnly: false, create: true))
            try database.execute("CREATE TABLE t (x)")
        }
        let foreign = #expect(throws: StrataError.self) { try openCoreDataStore(plain, schema: schema) }
        #expect(foreign?.message.contains("not a Core Data store: it has no Z_METADATA table") == true)
        // A row whose Z_ENT names no entity of its table's hierarchy.
        let damaged = directory.appendingPathComponent("damaged.sqlite")
        try FileManager.default.copyItem(at: CoreDataModels.fixtures[2].url, to: damaged)
        do {
            let database = try Database(path: damaged.path, mode: .init(readOnly: false, create: false))
            try database.execute("UPDATE ZUSER SET Z_ENT = 7 WHERE Z_PK = 3")
        }
        let badEntity = #expect(throws: StrataError.self) { try openCoreDataStore(damaged, schema: schema) }
        #expect(badEntity?.code == .corruptStore)
        #expect(badEntity?.message.contains("table ZUSER, the row with Z_PK 3: its Z_ENT 7 is no entity of the User hierarchy") == true)
    }
}
