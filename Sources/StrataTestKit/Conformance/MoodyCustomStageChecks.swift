import Foundation
import Strata
import Synchronization
import Testing

/// The Moody versions of `Schemas/` (Docs/MoodyVersions.md) migrated by the library with a
/// custom stage on every file store type: v3 adds `Mood.continent`, which no inference can fill;
/// the stage's `didMigrate` sets it from the mood's country.
package struct MoodyCustomStageChecks {
    package init() {}

    /// The package's `Schemas/`, read from the source tree (which a package that depends on
    /// Strata has too, in its checkout).
    static let schemas = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Conformance
        .deletingLastPathComponent() // StrataTestKit
        .deletingLastPathComponent() // Sources
        .deletingLastPathComponent() // package root
        .appendingPathComponent("Schemas")
    static let v1 = Models.moody(1)
    static let v2 = Models.moody(2)
    static let v3 = Models.moody(3)

    /// Every kind kept in a file: migration works on store files.

    /// v2 → v3's stage: each mood's continent is its country's.
    static let continentStage = MigrationStage.custom(from: v2, to: v3, didMigrate: { context in
        for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
            let country = mood.object(forKey: "country")
            mood.setObject(country?.object(forKey: "continent"), forKey: "continent")
        }
    })

    /// A store of `schema` (v1 or v2: the date attribute is `date` or `recordedAt`) holding
    /// Europe (France, Germany), Asia (Japan) and four moods: 1 and 3 in France, 2 in Japan,
    /// 4 with no country. The store is closed (removed from the fixture's coordinator) when this
    /// returns, as a migration wants it.
    static func makeStore(_ kind: StoreKind, _ schema: Schema) throws -> StoreFixture {
        let fixture = try StoreFixture(kind, schema, transformers: ["MoodColors": CodableAttributeTransformer<[String]>()])
        let context = fixture.context()
        let europe = try context.make("Continent", ["name": "Europe", "code": "EU", "numberOfCountries": Int64(2)])
        let asia = try context.make("Continent", ["name": "Asia", "code": "AS", "numberOfCountries": Int64(1)])
        let france = try context.make("Country", ["name": "France", "code": "FR"])
        let germany = try context.make("Country", ["name": "Germany", "code": "DE"])
        let japan = try context.make("Country", ["name": "Japan", "code": "JP"])
        france.setObject(europe, forKey: "continent")
        germany.setObject(europe, forKey: "continent")
        japan.setObject(asia, forKey: "continent")
        let dateKey = schema.entity(named: "Mood")!.attribute(named: "date") == nil ? "recordedAt" : "date"
        for (day, country) in [(1, france), (2, japan), (3, france), (4, nil)] {
            let mood = try context.make("Mood", [dateKey: Date(timeIntervalSince1970: 1_704_067_200 + Double(day) * 86_400), "colors": ["#FF0000"]])
            mood.setObject(country, forKey: "country")
        }
        try context.save()
        fixture.coordinator.removeStore(fixture.store)
        return fixture
    }

    /// Each mood's continent, by the mood's primary key (nil for none), read with v3.
    static func continents(_ fixture: StoreFixture) throws -> [Int64: String?] {
        let context = ManagedObjectContext(coordinator: try fixture.reopen(with: v3))
        var result: [Int64: String?] = [:]
        for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
            result[mood.objectID.primaryKey ?? -1] = mood.object(forKey: "continent")?["name"] as? String
        }
        return result
    }

    static let expectedContinents: [Int64: String?] = [1: "Europe", 2: "Asia", 3: "Europe", 4: nil]

    package func aCustomStageReadsTransformableValuesWithTheStagesTransformers(_ kind: StoreKind) throws {
        let fixture = try Self.makeStore(kind, Self.v2)
        let url = try #require(fixture.description.url)
        let seen = Mutex<[[String]]>([])
        let stage = MigrationStage.custom(
            from: Self.v2, to: Self.v3, transformers: ["MoodColors": CodableAttributeTransformer<[String]>()],
            willMigrate: { context in
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    let colors = mood["colors"] as? [String] ?? []
                    seen.withLock { $0.append(colors) }
                }
            })
        _ = try StoreMigrator(storeTypes: kind.storeTypes).migrateStore(at: url, versions: SchemaVersions([Self.v2, Self.v3]), stages: [stage])
        #expect(seen.withLock { $0 } == Array(repeating: ["#FF0000"], count: 4))
    }

    package func aCustomStageFillsTheNewRelationship(_ kind: StoreKind) throws {
        let fixture = try Self.makeStore(kind, Self.v2)
        let url = try #require(fixture.description.url)
        let identifier = try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: kind.storeTypes).storeIdentifier
        let migrator = StoreMigrator(storeTypes: kind.storeTypes)
        let report = try migrator.migrateStore(at: url, versions: SchemaVersions([Self.v2, Self.v3]), stages: [Self.continentStage])
        #expect(report.steps.map(\.summary) == ["\(SchemaVersions.label(Self.v2)) → \(SchemaVersions.label(Self.v3)) (custom stage)"])
        #expect(report.steps.map(\.isCustom) == [true])

        #expect(try Self.continents(fixture) == Self.expectedContinents)
        let context = ManagedObjectContext(coordinator: try fixture.reopen(with: Self.v3))
        let europe = try #require(try context.fetch(FetchRequest(entityName: "Continent")).first { $0["name"] as? String == "Europe" })
        #expect(europe.objects(forKey: "moods").compactMap(\.objectID.primaryKey).sorted() == [1, 3])
        let metadata = try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: kind.storeTypes)
        #expect(metadata.modelVersionHash == Self.v3.versionHash)
        #expect(metadata.storeIdentifier == identifier)
    }

    /// v1 → v2 inferred (the rename keeps the dates), then v2 → v3 with the stage, in one
    /// migration; the second run finds the store current.
    package func threeVersionsStagedWithACustomLastStep(_ kind: StoreKind) throws {
        let fixture = try Self.makeStore(kind, Self.v1)
        let url = try #require(fixture.description.url)
        let versions = try SchemaVersions([Self.v1, Self.v2, Self.v3])
        let migrator = StoreMigrator(storeTypes: kind.storeTypes)
        let report = try migrator.migrateStore(at: url, versions: versions, stages: [Self.continentStage])
        #expect(report.steps.map(\.isCustom) == [false, true])
        #expect(try Self.continents(fixture) == Self.expectedContinents)

        let context = ManagedObjectContext(coordinator: try fixture.reopen(with: Self.v3))
        let moods = try context.fetch(FetchRequest(entityName: "Mood", sortDescriptors: [FetchSortDescriptor("recordedAt")]))
        let days: [Double] = [1, 2, 3, 4]
        let expectedDates: [Double?] = days.map { 1_704_067_200 + $0 * 86_400 }
        let dates: [Double?] = moods.map { ($0["recordedAt"] as? Date)?.timeIntervalSince1970 }
        #expect(dates == expectedDates)
        #expect(moods.map { $0["isFavorite"] as? Bool } == [false, false, false, false])

        #expect(try migrator.migrateStore(at: url, versions: versions, stages: [Self.continentStage]).wasAlreadyCurrent)
    }

    /// A stage that throws cancels everything: the store file is byte-identical and still v2.
    package func aFailingStageLeavesTheStoreAsItWas(_ kind: StoreKind) throws {
        struct Broken: Error {}
        let fixture = try Self.makeStore(kind, Self.v2)
        let url = try #require(fixture.description.url)
        let before = try Data(contentsOf: url)
        let failing = MigrationStage.custom(from: Self.v2, to: Self.v3, didMigrate: { context in
            for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                mood.setObject(mood.object(forKey: "country")?.object(forKey: "continent"), forKey: "continent")
            }
            throw Broken()
        })
        let error = #expect(throws: StrataError.self) {
            try StoreMigrator(storeTypes: kind.storeTypes).migrateStore(at: url, versions: SchemaVersions([Self.v2, Self.v3]), stages: [failing])
        }
        #expect(error?.code == .migrationFailed)
        #expect(try Data(contentsOf: url) == before)
        #expect(try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: kind.storeTypes).modelVersionHash == Self.v2.versionHash)
    }
}

extension Models {
    /// `Schemas/Moody-v<version>.json`.
    static func moody(_ version: Int) -> Schema {
        let url = MoodyCustomStageChecks.schemas.appendingPathComponent("Moody-v\(version).json")
        do {
            return try Schema(contentsOf: url)
        } catch {
            fatalError("\(url.path) does not load: \(error)")
        }
    }
}
