import Strata
import StrataBinaryPlist
import StrataSQLite
import StrataXML

/// The store types the example can run on.
enum ExampleStores {
    static var registry: StoreTypeRegistry {
        StoreTypeRegistry([SQLiteStoreFactory(), XMLStoreFactory(), BinaryPlistStoreFactory()])
    }
}
