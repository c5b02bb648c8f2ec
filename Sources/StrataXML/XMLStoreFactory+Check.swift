public import Foundation
public import Strata

extension XMLStoreFactory: StoreIntegrityChecking {
    /// The whole file as ``XMLStoreFormat`` reads it, key counters as written.
    public func checkInput(at url: URL, schema: Schema) throws(StrataError) -> StoreCheckInput {
        try AtomicStoreFactory(format: XMLStoreFormat()).checkInput(at: url, schema: schema)
    }
}
