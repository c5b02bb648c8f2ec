import Foundation
import Strata
import StrataCoreData
import Testing

/// The two halves of Core Data interop agree: each fixture store read with the model imported
/// from the Xcode file that wrote it holds exactly what it holds read with the model written by
/// hand from that file.
@Suite struct ImportedModelStoreTests {
    @Test(arguments: [
        ("alemar11__CoreDataPlus__SampleModel_v1.xml", "alemar11__CoreDataPlus__SampleModel_V1.sqlite", CoreDataModels.sampleModelV1),
        ("alemar11__CoreDataPlus__SampleModel_v2.xml", "alemar11__CoreDataPlus__SampleModel_V2.sqlite", CoreDataModels.sampleModelV2),
        ("alemar11__CoreDataPlus__SampleModel3.xml", "alemar11__CoreDataPlus__SampleModel3_V1.sqlite", CoreDataModels.sampleModel3),
    ])
    func aStoreReadsAlikeWithTheImportedModel(_ model: String, _ store: String, _ handWritten: String) throws {
        let imported = try XCDataModelImporter.importContents(
            Data(contentsOf: CoreDataFixtures.model(model)), versionName: "v", modelName: "SampleModel")
        let byHand = try Schema(data: Data(handWritten.utf8))
        let (withImported, _) = try openCoreDataStore(CoreDataFixtures.store(store), schema: imported.schema)
        let (withHandWritten, _) = try openCoreDataStore(CoreDataFixtures.store(store), schema: byHand)
        let dump = try DataExporter.dump(withImported)
        #expect(dump == (try DataExporter.dump(withHandWritten)))
        #expect(dump.contains("\"@id\": 1,"))
    }
}
