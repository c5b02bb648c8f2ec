import Foundation
import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataXML

extension Workspace {
    /// A coordinator of this process on the workspace's store `name.ext` (`sqlite`, `xml` or
    /// `bplist`), opened with the model file `schema`: the other side of a test in which `strata`
    /// processes change the same file.
    func coordinator(_ name: String, _ ext: String, schema: String) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(
            schema: try Schema(contentsOf: file(schema)),
            storeTypes: StoreTypeRegistry([SQLiteStoreFactory(), XMLStoreFactory(), BinaryPlistStoreFactory()]))
        let type: StoreType = ext == "sqlite" ? .sqlite : ext == "xml" ? .xml : .binaryPlist
        try coordinator.addStore(StoreDescription(type: type, url: file("\(name).\(ext)")))
        return coordinator
    }
}
