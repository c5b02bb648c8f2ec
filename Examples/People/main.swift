import Foundation
import Strata
import StrataBinaryPlist

// The people example: a list of people archived in a binary store (one binary property list,
// written whole and atomically at each save, like Core Data's binary store) and restored from
// it by a new container, as an app does on its next launch.
//
//     swift run people-example

let storeTypes = StoreTypeRegistry([BinaryPlistStoreFactory()])
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-people-\(getpid())")
let archive = folder.appendingPathComponent("people.strata")
defer { try? FileManager.default.removeItem(at: folder) }

/// A container on the archive: the configuration file names the model and a binary store;
/// `STRATA_STORE` puts the store in a temporary folder.
func openArchive() throws -> PersistentContainer {
    let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("strata.json")
    return try PersistentContainer(
        configurationFile: configuration, storeTypes: storeTypes, classes: PeopleModel.classes,
        environment: [StrataConfiguration.environmentVariable: "binary:\(archive.path)"])
}

do {
    print("Archive three people:")
    let context = try openArchive().newBackgroundContext()
    for (first, last) in [("Katherine", "Johnson"), ("Dorothy", "Vaughan"), ("Mary", "Jackson")] {
        let person = context.insert(Person.self)
        person.firstName = first
        person.lastName = last
        print("  \(person.fullName)")
    }
    try context.save()
    let size = try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? Int ?? 0
    print("Saved: one binary property list of \(size) bytes, beginning '\(String(decoding: try Data(contentsOf: archive).prefix(6), as: UTF8.self))'")

    print("\nRestore them with a new container, sorted by last name:")
    let restored = try openArchive().newBackgroundContext()
    let people = try restored.fetch(Person.self, sortedBy: \.lastName, \.firstName)
    for person in people { print("  \(person.fullName)") }

    print("\nRemove Dorothy, save, restore again:")
    for person in people where person.firstName == "Dorothy" { restored.delete(person) }
    try restored.save()
    print("  \(try openArchive().newBackgroundContext().fetch(Person.self, sortedBy: \.lastName).map(\.fullName).joined(separator: ", "))")
} catch {
    FileHandle.standardError.write(Data("people-example: \(error)\n".utf8))
    exit(1)
}
