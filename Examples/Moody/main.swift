import Foundation
import Strata
import StrataSQLite
import Synchronization

// The Moody example of the Core Data book: moods with their colours (a transformable attribute),
// recorded in countries, which belong to continents; countries and continents are geographic
// regions (an abstract parent entity), unique by code. The app's first version wrote a store
// with model version 1; this version opens it with version 3 and the container migrates it
// through version 2 (Schemas/Moody-v1.json … -v3.json), with a stage for what inference cannot
// fill in (each mood's continent).
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

    // Version 1 of the app, which had no generated classes for this model: objects by key.
    print("Version 1 of the app records four moods in a store with model version 1:")
    let old = try PersistentContainer(schema: v1, stores: [StoreDescription(type: .sqlite, url: storeURL)], storeTypes: storeTypes)
    old.coordinator.attributeTransformers.register(MoodColors(), name: "MoodColors")
    let oldContext = old.newBackgroundContext()
    func region(_ entity: String, _ name: String, _ code: String) throws -> ManagedObject {
        let region = try oldContext.insertObject(entityName: entity)
        region["name"] = name
        region["code"] = code
        return region
    }
    let europe = try region("Continent", "Europe", "EU"), asia = try region("Continent", "Asia", "AS")
    let countries = [try region("Country", "France", "FR"), try region("Country", "Japan", "JP"), try region("Country", "Germany", "DE")]
    for (country, continent) in zip(countries, [europe, asia, europe]) { country.setObject(continent, forKey: "continent") }
    for (day, country, colors) in [(1, 0, ["#FF0000", "#00FF00"]), (2, 1, ["#0000FF"]), (3, 0, ["#FFCC00"]), (4, 2, ["#808080", "#FFFFFF"])] {
        let mood = try oldContext.insertObject(entityName: "Mood")
        mood["date"] = Date(timeIntervalSince1970: 1_704_067_200 + Double(day - 1) * 86_400)
        mood["colors"] = colors
        mood.setObject(countries[country], forKey: "country")
    }
    try oldContext.save()
    print("  \(try oldContext.count(for: FetchRequest(entityName: "Mood"))) moods in \(try oldContext.count(for: FetchRequest(entityName: "Country"))) countries")

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
        print("  \(region.code)  \(region.name) (\(kind))")
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
