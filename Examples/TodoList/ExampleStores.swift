import Strata
import StrataBinaryPlist
import StrataPostgres
import StrataSQLite
import StrataXML

/// The store types the example can run on.
enum ExampleStores {
    /// (PostgreSQL's client library is loaded only when a `postgres://` store is opened.)
    static var registry: StoreTypeRegistry {
        StoreTypeRegistry([SQLiteStoreFactory(), XMLStoreFactory(), BinaryPlistStoreFactory(), PostgresStoreFactory()])
    }
}
