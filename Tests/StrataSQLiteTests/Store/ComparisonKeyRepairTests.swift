import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Shadow columns left stale by hand edits: ``SQLiteStore/layoutCheck()`` names each one, and
/// ``SQLiteStore/refreshComparisonKeys()`` rewrites them as a save would.
@Suite struct ComparisonKeyRepairTests {
    static let model = """
    { "name": "Keys", "version": "1", "entities": [
      { "name": "Thing", "attributes": [
          { "name": "s", "type": "string", "optional": true },
          { "name": "dec", "type": "decimal", "optional": true },
          { "name": "link", "type": "uri", "optional": true } ] },
      { "name": "Sub", "parent": "Thing" } ] }
    """

    /// A Thing (key 1) and a Sub (key 2, in the same table) with good values, then edited by
    /// SQL: the Sub's string made non-NFC, the Thing's decimal changed, and (not stale: the
    /// reader refuses it, and a check reports that instead) the Sub's decimal made no number.
    func makeStore(_ directory: TemporaryDirectory) throws -> (URL, Schema) {
        let schema = try Fixtures.schema(json: Self.model)
        let url = directory.file("keys.sqlite")
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            let id = { (entity: String, key: Int64) in ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: key) }
            _ = try store.save(StoreChangeset(inserted: [
                StoreRecord(objectID: id("Thing", 1), attributes: ["s": .string("a"), "dec": .decimal(1), "link": .uri(URL(string: "https://example.com/a")!)]),
                StoreRecord(objectID: id("Sub", 2), attributes: ["s": .string("b"), "dec": .decimal(2)]),
            ]))
        }
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        try database.execute("""
            UPDATE "Thing" SET "s" = 'e' || char(769) WHERE "_pk" = 2;
            UPDATE "Thing" SET "dec" = '-0.5' WHERE "_pk" = 1;
            UPDATE "Thing" SET "dec" = 'abc' WHERE "_pk" = 2;
            """)
        return (url, schema)
    }

    @Test func theCheckNamesEachStaleKeyWithTheRowsEntity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        let input = try SQLiteStoreFactory().checkInput(at: url, schema: schema)
        let stale = input.problems.filter { $0.code == .staleComparisonKey }
        #expect(stale.map(\.place) == ["Thing/p1.dec", "Sub/p2.s"])
        #expect(stale.map(\.message) == [
            #"the shadow column _dec_key holds the text "25001", but for the value, the text "-0.5", it should hold the text "05004~" (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store"#,
            "the shadow column _s_nfc holds NULL, but for the value, the text \"e\u{301}\", it should hold the text \"\u{E9}\" (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store",
        ])
    }

    @Test func refreshRewritesTheStaleKeysOnlyAndIsRefusedWhenReadOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (url, schema) = try makeStore(directory)
        let before = try bytes(of: url)
        let readOnly = try SQLiteStore(url: url, schema: schema, options: [SQLiteStore.readOnlyOption: "true"])
        let error = #expect(throws: StrataError.self) { try readOnly.refreshComparisonKeys() }
        #expect(error?.code == .storeIO)
        #expect(try bytes(of: url) == before)

        let store = try SQLiteStore(url: url, schema: schema)
        #expect(try store.refreshComparisonKeys() == 2)
        #expect(try RawSQLite(url).rows(#"SELECT "_pk", "_s_nfc", "_dec_key", "_link_nfc" FROM "Thing" ORDER BY "_pk""#) == [
            "1|NULL|05004~|NULL", "2|\u{E9}|25002|NULL",
        ])
        #expect(try store.refreshComparisonKeys() == 0)
        let input = try SQLiteStoreFactory().checkInput(at: url, schema: schema)
        #expect(input.problems.filter { $0.code == .staleComparisonKey } == [])
    }
}
