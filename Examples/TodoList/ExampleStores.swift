import Strata
import StrataBinaryPlist
import StrataBinaryPlist

/// The store types the example can run on.
enum ExampleStores {
    static var registry: StoreTypeRegistry {
        StoreTypeRegistry([
            BinaryPlistStoreFactory(),
        ])
    }
}
