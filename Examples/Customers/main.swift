import Foundation
import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataXML

// The customers example: create, read, update and delete customers on the store type chosen
// for the run, as in the store-types chapter of Core Data's guide. The code is the same for
// every store; only the store description changes.
//
//     swift run customers-example --store sqlite     (or xml, binary, memory: the default)

let storeTypes = StoreTypeRegistry([SQLiteStoreFactory(), XMLStoreFactory(), BinaryPlistStoreFactory()])
let arguments = Array(CommandLine.arguments.dropFirst())
let kind = arguments.count == 2 && arguments[0] == "--store" ? arguments[1] : arguments.isEmpty ? "memory" : ""
guard ["sqlite", "xml", "binary", "memory"].contains(kind) else {
    FileHandle.standardError.write(Data("usage: customers-example [--store sqlite|xml|binary|memory]\n".utf8))
    exit(2)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-customers-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }

/// A container on the chosen store: `STRATA_STORE` in the environment given replaces the stores
/// of the configuration file.
func openContainer() throws -> PersistentContainer {
    let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("strata.json")
    let store = kind == "memory" ? "memory" : "\(kind):\(folder.path)/customers.\(kind)"
    return try PersistentContainer(
        configurationFile: configuration, storeTypes: storeTypes, classes: CustomersModel.classes,
        environment: [StrataConfiguration.environmentVariable: store])
}

func list(_ context: ManagedObjectContext) throws {
    for customer in try context.fetch(Customer.self, sortedBy: \.name) {
        print("  \(customer.name) <\(customer.email)>\(customer.age.map { ", \($0)" } ?? "")")
    }
}

do {
    let context = try openContainer().newBackgroundContext()
    print("Store: \(kind)")

    print("\nCreate three customers:")
    for (name, email, age) in [("Ada Lovelace", "ada@example.com", 36), ("Alan Turing", "alan@example.org", 41), ("Grace Hopper", "grace@example.net", nil)] {
        let customer = context.insert(Customer.self)
        customer.name = name
        customer.email = email
        customer.age = age.map(Int16.init)
    }
    try context.save()
    try list(context)

    print("\nUpdate: Alan's address is in Wilmslow.")
    let alan = try context.fetch(Customer.self, where: \.email == "alan@example.org")[0]
    alan.address = "Wilmslow"
    try context.save()
    print("  \(alan.name): \(alan.address ?? "-")")

    print("\nDelete Grace:")
    for grace in try context.fetch(Customer.self, where: \.name == "Grace Hopper") { context.delete(grace) }
    try context.save()
    try list(context)

    print("\nA second customer with Ada's email is refused:")
    let copy = context.insert(Customer.self)
    copy.name = "Ada King"
    copy.email = "ada@example.com"
    do {
        try context.save()
    } catch {
        print("  \(error)")
        context.rollback()
    }

    if kind != "memory" {
        print("\nRead back from the \(kind) file by a new container:")
        try list(try openContainer().newBackgroundContext())
    }
} catch {
    FileHandle.standardError.write(Data("customers-example: \(error)\n".utf8))
    exit(1)
}
