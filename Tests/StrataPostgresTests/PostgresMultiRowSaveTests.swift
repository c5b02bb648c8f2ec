import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// Saves insert many rows a statement (arrays in the binary format, pipelined) and fetches read
/// rows in the binary format: the same records as one row at a time, the same errors.
@Suite struct PostgresMultiRowSaveTests {
    /// Products and bundles (one table) and makers, in runs that change entity, more of them
    /// than one INSERT takes.
    private func records(_ coordinator: PersistentStoreCoordinator, _ store: PostgresStore) throws -> [StoreRecord] {
        let total = PostgresStore.rowsPerInsert + 3
        let keys = try store.allocatePrimaryKeys(rootEntity: "Product", count: total)
        let makers = try store.allocatePrimaryKeys(rootEntity: "Maker", count: 2)
        var records: [StoreRecord] = []
        for (index, key) in keys.enumerated() {
            let entity = index < 3 || index == total - 1 ? "Bundle" : "Product"
            var values: [String: AttributeValue] = [
                "sku": .string("S\(index)"), "small": .integer(Int64(index % 100)), "ratio": .double(Double(index) / 7),
                "price": .decimal(Decimal(index) / 100),
            ]
            if index % 2 == 0 { values["name"] = .string("name \(index)") }
            var record = StoreRecord(objectID: try coordinator.objectID(entityName: entity, primaryKey: key), attributes: AttributeValues(values))
            // Many-to-many members untouched: no statement a record for them.
            record.lazyToMany = ["labels", "similar"]
            if entity == "Bundle" { record.attributes["discount"] = .double(-0.0) }
            if index % 1000 == 0 { record.toOne["maker"] = try coordinator.objectID(entityName: "Maker", primaryKey: makers[0]) }
            records.append(record)
            if index == 2 {
                for maker in makers {
                    records.append(StoreRecord(objectID: try coordinator.objectID(entityName: "Maker", primaryKey: maker), attributes: ["name": .string("M\(maker)")]))
                }
            }
        }
        return records
    }

    @Test func aSaveOfMoreRecordsThanOneInsertTakesIsReadBackWhole() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let coordinator = try place.coordinator(try Models.shop())
        let store = coordinator.stores[0] as! PostgresStore
        let saved = try records(coordinator, store)
        let versions = try store.save(StoreChangeset(inserted: saved))
        #expect(versions.count == saved.count)
        #expect(Set(versions.values) == [1])
        let fetched = try store.fetch(StoreFetchRequest(entityNames: ["Product", "Bundle", "Maker"]))
        var byID: [ObjectID: StoreRecord] = [:]
        for record in fetched { byID[record.objectID] = record }
        #expect(byID.count == saved.count)
        for record in saved {
            let read = byID[record.objectID]
            #expect(read?.attributes.dictionary == record.attributes.dictionary, "\(record.objectID)")
            #expect(read?.toOne == record.toOne, "\(record.objectID)")
            #expect(read?.version == 1)
        }
        // -0.0 kept to the bit.
        let bundle = try #require(byID[saved[0].objectID])
        if case .double(let discount)? = bundle.attributes["discount"] { #expect(discount.bitPattern == (-0.0).bitPattern) } else { Issue.record("no discount") }
    }

    @Test func aDuplicateKeyInAMultiRowInsertIsNamedAndNothingIsSaved() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let coordinator = try place.coordinator(try Models.shop())
        let store = coordinator.stores[0] as! PostgresStore
        var saved = try records(coordinator, store)
        let duplicate = saved[10]
        saved.append(duplicate)
        #expect {
            try store.save(StoreChangeset(inserted: saved))
        } throws: { error in
            (error as? StrataError)?.code == .validationFailed
                && (error as? StrataError)?.message == "an object with primary key \(duplicate.objectID.primaryKey!) already exists in the 'Product' hierarchy"
        }
        #expect(try store.fetch(StoreFetchRequest(entityNames: ["Product", "Bundle", "Maker"])).isEmpty)
    }

    /// A value not of its attribute's type goes to the server as text, as it always did: the
    /// server's reading of it is what is stored.
    @Test func aValueNotOfItsAttributesTypeIsSentAsText() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let coordinator = try place.coordinator(try Models.shop())
        let store = coordinator.stores[0] as! PostgresStore
        let keys = try store.allocatePrimaryKeys(rootEntity: "Product", count: 3)
        let saved = try keys.enumerated().map { index, key in
            StoreRecord(objectID: try coordinator.objectID(entityName: "Product", primaryKey: key),
                        attributes: ["sku": .string("S\(index)"), "large": index == 1 ? .string("12") : .integer(7)])
        }
        _ = try store.save(StoreChangeset(inserted: saved))
        let large = try store.fetch(StoreFetchRequest(entityNames: ["Product"])).map { $0.attributes["large"] }
        #expect(large == [.integer(7), .integer(12), .integer(7)])
    }

    @Test func numericsInTheBinaryFormatReadAsTheirText() {
        func text(_ words: [UInt16]) -> String? {
            let bytes = words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return bytes.withUnsafeBytes { PostgresValueCoding.numericText($0) }
        }
        // count, weight, sign, scale, digits (base 10000).
        #expect(text([0, 0, 0, 0]) == "0")
        #expect(text([0, 0, 0, 2]) == "0.00")
        #expect(text([2, 1, 0, 0, 12, 3400]) == "123400")
        #expect(text([3, 0, 0x4000, 5, 12, 3456, 7000]) == "-12.34567")
        #expect(text([1, 0xFFFF, 0, 4, 500]) == "0.0500")
        #expect(text([1, 0xFFFE, 0, 8, 1234]) == "0.00001234")
        #expect(text([0, 0, 0xC000, 0]) == "NaN")
        #expect(text([0, 0, 0xD000, 0]) == "Infinity")
        #expect(text([1, 0, 0, 0]) == nil)
    }
}
