public import Foundation
public import Strata

extension BinaryPlistStoreFactory: StoreIntegrityChecking {
    /// The whole file as ``BinaryPlistStoreFormat`` reads it, key counters as written.
    public func checkInput(at url: URL, schema: Schema) throws(StrataError) -> StoreCheckInput {
        try AtomicStoreFactory(format: BinaryPlistStoreFormat()).checkInput(at: url, schema: schema)
    }
}
