internal import Foundation

/// What a Core Data XML store says about itself in `<databaseInfo>`.
///
/// ```xml
/// <databaseInfo>
///     <version>134481920</version>
///     <UUID>4B6B6CD3-CB10-47A2-932E-A394526E9ECB</UUID>
///     <nextObjectID>111</nextObjectID>
///     <metadata><plist version="1.0"><dict>…</dict></plist></metadata>
/// </databaseInfo>
/// ```
public struct CoreDataXMLStoreInfo: Sendable, Hashable {
    /// `<version>`: the version of Core Data's XML store format (134481920 in every file seen).
    public var formatVersion: Int64?
    /// `<UUID>`: the store's identifier (Core Data's `NSStoreUUID`).
    public var storeUUID: String?
    /// `<nextObjectID>`: the number of the last object ID Core Data handed out (`z111` → 111).
    public var nextObjectID: Int64?
    /// The `<metadata>` property list's dictionary: `NSStoreModelVersionHashes` (entity name →
    /// Core Data's 32-byte version hash), `NSStoreModelVersionIdentifiers`,
    /// `NSPersistenceFrameworkVersion` and any keys the app set. Empty when the file has none.
    public var metadata: [String: CoreDataPropertyList]

    public init(formatVersion: Int64? = nil, storeUUID: String? = nil, nextObjectID: Int64? = nil, metadata: [String: CoreDataPropertyList] = [:]) {
        self.formatVersion = formatVersion
        self.storeUUID = storeUUID
        self.nextObjectID = nextObjectID
        self.metadata = metadata
    }

    /// The entity names Core Data wrote the store with, in their exact case (the keys of
    /// `NSStoreModelVersionHashes`; the `<object type>`s are upper-cased).
    public var entityNames: [String] {
        guard case .dictionary(let hashes) = metadata["NSStoreModelVersionHashes"] else { return [] }
        return hashes.keys.sorted()
    }

    /// The metadata as a Strata store's custom metadata: each key with its value's
    /// ``CoreDataPropertyList/text``. A conversion copies these keys into the new store.
    public var customMetadata: [String: String] {
        metadata.mapValues(\.text)
    }
}
