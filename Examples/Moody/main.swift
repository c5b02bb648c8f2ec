import Foundation
import Strata
import StrataSQLite
import Synchronization

// The Moody example of the Core Data book: moods with their colours (a transformable attribute),
// recorded in countries, which belong to continents; countries and continents are geographic
// regions (an abstract parent entity), unique by code. The app's first version wrote a store
// with model version 1; this version opens it with version 3 and the container migrates it
// through version 2 (Schemas/Moody-v1.json … -v3.json), with a stage for what inference cannot
// fill in (each mood's continent). The classes are generated from version 3 at every build.
//
//     swift run moody-example

let storeTypes = StoreTypeRegistry([SQLiteStoreFactory()])
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let schemas = here.appendingPathComponent("../../Schemas").standardizedFileURL
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-moody-\(getpid())")
let storeURL = folder.appendingPathComponent("moody.sqlite")
defer { try? FileManager.default.removeItem(at: folder) }

do {
    let v1 = try Schema(contentsOf: schemas.appendingPathComponent("Moody-v1.json"))
    let v2 = try Schema(contentsOf: schemas.appendingPathComponent("Moody-v2.json"))
    let v3 = try Schema(contentsOf: schemas.appendingPathComponent("Moody-v3.json"))

    // Version 1 of the app, which had no generated classes for this model: it loaded its data
    // file (Strata's JSON data format) into a store written with model version 1.
    print("Version 1 of the app loads Examples/Data/moody-v1.json into a store with model version 1:")
    let old = try PersistentContainer(schema: v1, stores: [StoreDescription(type: .sqlite, url: storeURL)], storeTypes: storeTypes)
    let importer = DataImporter(context: old.newBackgroundContext())
    try importer.add(contentsOf: here.appendingPathComponent("../Data/moody-v1.json"), file: "moody-v1.json")
    let counts = try importer.save()
    print("  " + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
    for store in old.coordinator.stores { old.coordinator.removeStore(store) }   // the old app quits

    // This version: the configuration names model version 3 and the earlier versions; opening
    // the store migrates it, 1 → 2 inferred (date renamed recordedAt, isFavorite added), 2 → 3
    // with a stage that sets each mood's new continent from its country.
    print("\nThis version opens it with model version 3, migrating 1 → 2 → 3:")
    let lastLine = Mutex("")
    let continentStage = MigrationStage.custom(from: v2, to: v3, didMigrate: { context in
        for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
            mood.setObject(mood.object(forKey: "country")?.object(forKey: "continent"), forKey: "continent")
        }
    })
    let container = try PersistentContainer(
        configurationFile: here.appendingPathComponent("strata.json"), storeTypes: storeTypes,
        classes: MoodyModel.classes, stages: [continentStage],
        environment: [StrataConfiguration.environmentVariable: "sqlite:\(storeURL.path)"],
        progress: { event in
            let line = "  step \(event.step) of \(event.stepCount): \(event.activity)"
            if lastLine.withLock({ last in defer { last = line }; return last != line }) { print(line) }
        })
    MoodyModel.registerTransformers(in: container.coordinator)
    let context = container.newBackgroundContext()

    print("\nMoods, newest first, with their colours, country and continent (typed classes):")
    for mood in try context.fetch(Mood.self, sortedBy: [FetchSortDescriptor(\Mood.recordedAt, ascending: false)]) {
        let day = ISO8601DateFormatter().string(from: mood.recordedAt).prefix(10)
        print("  \(day)  \(mood.colors.joined(separator: " "))  \(mood.country?.name ?? "-"), \(mood.continent?.name ?? "-")")
    }

    print("\nGeographic regions (the abstract parent: countries and continents together):")
    for region in try context.fetch(GeographicRegion.self, sortedBy: \.code) {
        let kind = region is Continent ? "continent" : "country"
        print("  \(region.code)  \(region.name) (\(kind), moods: \(region.numberOfMoods))")
    }

    print("\nMark the latest mood in France a favourite (isFavorite came with version 2):")
    let france = try context.fetch(Country.self, where: \.code == "FR")[0]
    let latest = france.moods.max { $0.recordedAt < $1.recordedAt }!
    latest.isFavorite = true
    try context.save()
    print("  favourites: \(try context.fetch(Mood.self, where: \.isFavorite == true).count)")

    print("\nA second country with the code FR is refused (codes are unique):")
    let copy = context.insert(Country.self)
    copy.name = "France again"
    copy.code = "FR"
    copy.continent = france.continent
    do {
        try context.save()
    } catch {
        print("  \(error)")
        context.rollback()
    }
} catch {
    FileHandle.standardError.write(Data("moody-example: \(error)\n".utf8))
    exit(1)
}
