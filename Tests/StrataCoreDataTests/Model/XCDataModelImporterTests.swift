import Foundation
import Strata
import StrataCoreData
import Testing

/// The paths `XCDataModelImporter.importModel(at:)` takes: `.xcdatamodeld` bundles (made in a
/// temporary directory from the fixtures), `.xcdatamodel` directories and `contents` files.
@Suite("Importing Xcode model bundles and directories")
struct XCDataModelImporterTests {
    @Test("a .xcdatamodeld gives every version, in Xcode's order, and the current one from .xccurrentversion")
    func versionedBundle() throws {
        let directory = try ModelDirectory()
        let url = try directory.bundle("Model", versions: [
            ("Model 2", "objective-audio__CoreDataMigrationSample__Model_2.xml"),
            ("Model", "objective-audio__CoreDataMigrationSample__Model.xml"),
            ("Model 1", "objective-audio__CoreDataMigrationSample__Model_1.xml"),
        ], currentVersion: "objective-audio__CoreDataMigrationSample__Model.xccurrentversion.plist")
        let imported = try XCDataModelImporter.importModel(at: url)
        #expect(imported.isVersioned)
        #expect(imported.versions.map(\.versionName) == ["Model", "Model 1", "Model 2"])
        #expect(imported.currentVersionName == "Model 2")
        #expect(imported.current.versionName == "Model 2")
        #expect(imported.versions.map(\.schema.name) == ["Model", "Model", "Model"])
        #expect(imported.versions.map(\.schema.version) == [nil, "v1", "v2"])
        #expect(imported.current.schema.entity(named: "EntityA")?.attribute(named: "dummy")?.type == .string)
        #expect(imported.version(named: "Model 1")?.file == url.relativePath + "/Model 1.xcdatamodel/contents")
        #expect(imported.warnings.isEmpty)
        #expect(imported.versions.allSatisfy { $0.warnings.isEmpty })
    }

    @Test("the current version need not be the last; versions with numbers sort as numbers", arguments: [
        ("SampleModel", [("SampleModel3", "alemar11__CoreDataPlus__SampleModel_v3.xml"), ("SampleModel", "alemar11__CoreDataPlus__SampleModel_v1.xml"),
                         ("SampleModel2", "alemar11__CoreDataPlus__SampleModel_v2.xml")],
         "alemar11__CoreDataPlus__SampleModel.xccurrentversion.plist", ["SampleModel", "SampleModel2", "SampleModel3"], "SampleModel"),
        ("momcomTests", [("momcTests 2", "atomicbird__momcom__momcTests_2.xml"), ("momcTests", "atomicbird__momcom__momcTests_1.xml")],
         "atomicbird__momcom__momcomTests.xccurrentversion.plist", ["momcTests", "momcTests 2"], "momcTests 2"),
        ("SampleModel3", [("SampleModel3_v3", "alemar11__CoreDataPlus__SampleModel3_v3.xml"), ("SampleModel3", "alemar11__CoreDataPlus__SampleModel3.xml"),
                          ("SampleModel3_v2", "alemar11__CoreDataPlus__SampleModel3_v2.xml")],
         "alemar11__CoreDataPlus__SampleModel3.xccurrentversion.plist", ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"], "SampleModel3"),
    ])
    func currentVersion(_ name: String, _ versions: [(String, String)], _ plist: String, _ order: [String], _ current: String) throws {
        let directory = try ModelDirectory()
        let imported = try XCDataModelImporter.importModel(at: directory.bundle(name, versions: versions, currentVersion: plist))
        #expect(imported.versions.map(\.versionName) == order)
        #expect(imported.currentVersionName == current)
        #expect(imported.current.versionName == current)
    }

    @Test("a bundle's model name is made valid for Strata, with a warning, and kept the same for every version")
    func bundleModelName() throws {
        let directory = try ModelDirectory()
        let imported = try XCDataModelImporter.importModel(at: directory.bundle("momcomTests", versions: [
            ("momcTests", "atomicbird__momcom__momcTests_1.xml"), ("momcTests 2", "atomicbird__momcom__momcTests_2.xml"),
        ], currentVersion: "atomicbird__momcom__momcomTests.xccurrentversion.plist"))
        #expect(imported.versions.map(\.schema.name) == ["MomcomTests", "MomcomTests"])
        let warning = try #require(imported.current.warnings.first)
        #expect(warning.code == "modelRenamed")
        #expect(warning.message == "the model is named 'MomcomTests' after 'momcomTests': Strata model names start with an upper-case letter and use only ASCII letters, digits and '_'")
    }

    @Test("without .xccurrentversion, a single version is current; of several, the last by name, with a warning")
    func missingCurrentVersion() throws {
        let directory = try ModelDirectory()
        let single = try XCDataModelImporter.importModel(at: directory.bundle("Single", versions: [
            ("Single", "objcio__core-data__Chapter-1.1-Moody.xml"),
        ], currentVersion: nil))
        #expect(single.currentVersionName == "Single")
        #expect(single.warnings.isEmpty)
        let several = try XCDataModelImporter.importModel(at: directory.bundle("Moody", versions: [
            ("Moody", "objcio__core-data__Chapter-1.1-Moody.xml"), ("Moody 2", "objcio__core-data__Chapter-1.2-Moody-deny.xml"),
        ], currentVersion: nil))
        #expect(several.currentVersionName == "Moody 2")
        #expect(several.warnings.map(\.code) == ["noCurrentVersion"])
        #expect(several.warnings[0].message.hasSuffix("has no .xccurrentversion naming its current version; taking the last by name, 'Moody 2'"))
    }

    @Test("a .xccurrentversion naming a version the bundle lacks is an error naming it")
    func currentVersionNotInBundle() throws {
        let directory = try ModelDirectory()
        let url = try directory.bundle("Model", versions: [("Model", "objective-audio__CoreDataMigrationSample__Model.xml")],
                                       currentVersion: "objective-audio__CoreDataMigrationSample__Model.xccurrentversion.plist")
        let error = try #require(throws: SchemaError.self) { try XCDataModelImporter.importModel(at: url) }
        #expect(error.code == .invalidSchema)
        #expect(error.diagnostics.map(\.message) == [
            "the current version is 'Model 2.xcdatamodel', which '\(url.relativePath)' does not hold; it holds 'Model'",
        ])
    }

    @Test("a .xcdatamodel directory and its contents file import the same model, named after the bundle around them")
    func modelDirectoryAndContents() throws {
        let directory = try ModelDirectory()
        let bundle = try directory.bundle("Moody", versions: [("Moody", "objcio__core-data__Chapter-1.2-Moody-deny.xml")], currentVersion: nil)
        let model = bundle.appendingPathComponent("Moody.xcdatamodel")
        let fromDirectory = try XCDataModelImporter.importModel(at: model)
        let fromContents = try XCDataModelImporter.importModel(at: model.appendingPathComponent("contents"))
        #expect(!fromDirectory.isVersioned)
        #expect(fromDirectory.currentVersionName == "Moody")
        #expect(fromContents.currentVersionName == "Moody")
        #expect(fromDirectory.current.schema == fromContents.current.schema)
        #expect(fromDirectory.current.schema.name == "Moody")
        #expect(fromDirectory.current.file == model.relativePath + "/contents")
    }

    @Test("paths that are no model: missing, an empty bundle, a directory without a model, Xcode 3's format")
    func notAModel() throws {
        let directory = try ModelDirectory()
        let missing = try #require(throws: SchemaError.self) {
            try XCDataModelImporter.importModel(at: directory.url.appendingPathComponent("Nothing.xcdatamodeld"))
        }
        #expect(missing.code == .unreadableFile)
        #expect(missing.reason == "no such file or directory")

        try directory.write("Empty.xcdatamodeld/readme.txt", "")
        let empty = try #require(throws: SchemaError.self) {
            try XCDataModelImporter.importModel(at: directory.url.appendingPathComponent("Empty.xcdatamodeld"))
        }
        #expect(empty.code == .invalidSchema)
        #expect(empty.diagnostics.first?.message.hasSuffix("holds no model version: a .xcdatamodeld holds one .xcdatamodel directory per version") == true)

        try directory.write("Plain/notes.txt", "")
        let plain = try #require(throws: SchemaError.self) {
            try XCDataModelImporter.importModel(at: directory.url.appendingPathComponent("Plain"))
        }
        #expect(plain.diagnostics.first?.code == "notAModel")

        try directory.write("Old.xcdatamodel/elements", "")
        let old = try #require(throws: SchemaError.self) {
            try XCDataModelImporter.importModel(at: directory.url.appendingPathComponent("Old.xcdatamodel"))
        }
        #expect(old.diagnostics.first?.message.hasSuffix("is in the model format of Xcode 3, which has no 'contents' file; open and save it with a current Xcode first") == true)
    }

    @Test("isModel tells Xcode models from JSON model files")
    func recognisingModels() throws {
        let directory = try ModelDirectory()
        let json = try directory.write("Model.json", "  {\"name\": \"M\", \"entities\": []}")
        let xml = try directory.write("Model.xml", "\n<?xml version=\"1.0\"?><model/>")
        #expect(!XCDataModelImporter.isModel(at: json))
        #expect(XCDataModelImporter.isModel(at: xml))
        #expect(XCDataModelImporter.isModel(at: directory.url))
        #expect(XCDataModelImporter.isModel(at: directory.url.appendingPathComponent("Missing.xcdatamodeld")))
        #expect(!XCDataModelImporter.isModel(at: directory.url.appendingPathComponent("missing.json")))
    }
}
