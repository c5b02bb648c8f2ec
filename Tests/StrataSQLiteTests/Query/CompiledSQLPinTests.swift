import Foundation
import Strata
import StrataTestKit
import Testing
import StrataSQL
@testable import StrataSQLite

/// The SQL the compiler writes for SQLite, pinned: a few statements in full, and a digest of
/// every statement (SELECT, COUNT, bound values) of the generated requests of
/// ``PredicatePropertyTests`` and ``DictionaryPropertyTests`` for one seed. Moving the compiler
/// (into StrataSQL, behind a dialect) must not change one byte of it.
@Suite struct CompiledSQLPinTests {
    static func compiled(_ format: String, sortedBy sort: [FetchSortDescriptor] = [], limit: Int = 0, offset: Int = 0) throws -> String {
        let (sqlite, _, _) = try LibraryGraph.stores(seed: 1)
        var compiler = sqlite.compiler()
        let fetch = try compiler.fetch(
            table: try #require(sqlite.layout.tables["Item"]), entityNames: ["Item"], predicate: try FetchPredicate(format: format),
            sortDescriptors: sort, limit: limit, offset: offset)
        return fetch.select + " | " + fetch.count + " | " + fetch.arguments.map { "\($0)" }.joined(separator: ", ")
    }

    @Test func fewStatementsInFull() throws {
        let cases: [(String, [FetchSortDescriptor], String)] = [
            ("count > 2 AND ratio < 7.5 AND NOT flag == YES", [FetchSortDescriptor("ratio", ascending: false)],
                #"SELECT t."_pk", t."_entity", t."_version", t."name", t."count", t."small", t."ratio", t."weight", t."price", t."flag", t."when", t."blob", t."uid", t."link", t."extra", t."owner", t."next", t."_next_entity" FROM "Item" AS t WHERE t."_entity" IN (?1) AND (t."count" > ?2 AND t."ratio" < ?4 AND NOT coalesce(t."flag" = ?5, 0)) ORDER BY t."ratio" DESC, t."_entity", t."_pk" LIMIT ?6 OFFSET ?7"#
                    + " | " + #"SELECT count(*) FROM (SELECT 1 FROM "Item" AS t WHERE t."_entity" IN (?1) AND (t."count" > ?2 AND t."ratio" < ?4 AND NOT coalesce(t."flag" = ?5, 0)) LIMIT ?6 OFFSET ?7)"#
                    + " | " + #"text("Item"), integer(2), real(7.5), real(7.5), integer(1), integer(5), integer(2)"#),
            ("name BEGINSWITH[cd] 'ab' OR ANY tags.label == 'x' OR price > 1.5", [FetchSortDescriptor("name")],
                #"SELECT t."_pk", t."_entity", t."_version", t."name", t."count", t."small", t."ratio", t."weight", t."price", t."flag", t."when", t."blob", t."uid", t."link", t."extra", t."owner", t."next", t."_next_entity" FROM "Item" AS t WHERE t."_entity" IN (?1) AND (strata_compare(8, 3, 5, t."name", 5, ?2) OR EXISTS (SELECT 1 FROM "Item.tags" AS l1 JOIN "Tag" AS m2 ON m2."_pk" = l1."destination" WHERE l1."source" = t."_pk" AND coalesce(m2."_label_nfc", m2."label") = ?4) OR strata_compare(4, 0, 4, t."price", 3, ?5)) ORDER BY coalesce(t."_name_nfc", t."name"), t."_entity", t."_pk" LIMIT ?6 OFFSET ?7"#
                    + " | " + #"SELECT count(*) FROM (SELECT 1 FROM "Item" AS t WHERE t."_entity" IN (?1) AND (strata_compare(8, 3, 5, t."name", 5, ?2) OR EXISTS (SELECT 1 FROM "Item.tags" AS l1 JOIN "Tag" AS m2 ON m2."_pk" = l1."destination" WHERE l1."source" = t."_pk" AND coalesce(m2."_label_nfc", m2."label") = ?4) OR strata_compare(4, 0, 4, t."price", 3, ?5)) LIMIT ?6 OFFSET ?7)"#
                    + " | " + #"text("Item"), text("ab"), text("x"), text("x"), real(1.5), integer(5), integer(2)"#),
            ("owner.name == 'ann' AND owner.age BETWEEN {1, 9} AND parts.@count > 1 AND uid != nil", [],
                #"SELECT t."_pk", t."_entity", t."_version", t."name", t."count", t."small", t."ratio", t."weight", t."price", t."flag", t."when", t."blob", t."uid", t."link", t."extra", t."owner", t."next", t."_next_entity" FROM "Item" AS t LEFT JOIN "Owner" AS j1 ON j1."_pk" = t."owner" WHERE t."_entity" IN (?1) AND (coalesce(j1."_name_nfc", j1."name") = ?3 AND (j1."age" >= ?4 AND j1."age" <= ?5) AND (SELECT count(*) FROM "Part" AS m2 WHERE m2."item" = t."_pk") > ?6 AND t."uid" IS NOT NULL) ORDER BY t."_pk" LIMIT ?7 OFFSET ?8"#
                    + " | " + #"SELECT count(*) FROM (SELECT 1 FROM "Item" AS t LEFT JOIN "Owner" AS j1 ON j1."_pk" = t."owner" WHERE t."_entity" IN (?1) AND (coalesce(j1."_name_nfc", j1."name") = ?3 AND (j1."age" >= ?4 AND j1."age" <= ?5) AND (SELECT count(*) FROM "Part" AS m2 WHERE m2."item" = t."_pk") > ?6 AND t."uid" IS NOT NULL) LIMIT ?7 OFFSET ?8)"#
                    + " | " + #"text("Item"), text("ann"), text("ann"), integer(1), integer(9), integer(1), integer(5), integer(2)"#),
        ]
        for (format, sort, expected) in cases {
            #expect(try Self.compiled(format, sortedBy: sort, limit: 5, offset: 2) == expected)
        }
    }

    /// FNV-1a, 64 bits: a digest that is the same in every process.
    static func digest(_ texts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for text in texts {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0xff
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// The bound values as text, `now()` (the time the request was compiled) as `now`.
    static func describe(_ arguments: [SQLValue]) -> String {
        let now = Date().timeIntervalSinceReferenceDate
        return arguments.map { (value) -> String in
            if case .real(let seconds) = value, abs(seconds - now) < 3_600 { return "now" }
            return "\(value)"
        }.joined(separator: ",")
    }

    @Test func everyGeneratedStatementOfOneSeed() throws {
        let seed: UInt64 = 1
        let (sqlite, _, graph) = try LibraryGraph.stores(seed: seed)
        let schema = try LibraryFixture.schema()
        let table = try #require(sqlite.layout.tables["Item"])
        var texts: [String] = []
        for request in PredicateGenerator.fetchRequests(
            seed: seed, items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID), count: PredicatePropertyTests.predicatesPerSeed
        ) {
            var compiler = sqlite.compiler()
            if let fetch = try? compiler.fetch(
                table: table, entityNames: request.entityNames, predicate: request.predicate, sortDescriptors: request.sortDescriptors,
                limit: request.fetchLimit, offset: request.fetchOffset) {
                texts += [fetch.select, fetch.count, Self.describe(fetch.arguments)]
            } else {
                texts.append("unsupported")
            }
        }
        var predicates = PredicateGenerator(
            random: SeededGenerator(seed: seed &* 104_729), items: graph.items.map(\.objectID), owners: graph.owners.map(\.objectID))
        var dictionaries = DictionaryGenerator(random: SeededGenerator(seed: seed &* 7_919))
        for _ in 0..<DictionaryPropertyTests.requestsPerSeed {
            let entities = dictionaries.random.pick([["Item", "SpecialItem"], ["Item", "SpecialItem"], ["SpecialItem"], ["Item"]])
            let entity = try #require(schema.entity(named: entities == ["SpecialItem"] ? "SpecialItem" : "Item"))
            let shape = dictionaries.request()
            var fetch = StoreFetchRequest(entityNames: entities, sortDescriptors: shape.isGrouped ? shape.sort : predicates.sortDescriptors() + shape.sort)
            if dictionaries.random.chance(0.7) { fetch.predicate = predicates.predicate() }
            if dictionaries.random.chance(0.2) { fetch.fetchLimit = Int.random(in: 1...6, using: &dictionaries.random) }
            if dictionaries.random.chance(0.15) { fetch.fetchOffset = Int.random(in: 0...4, using: &dictionaries.random) }
            let plan = try DictionaryPlan(
                schema: schema, entity: entity, properties: shape.columns, groupBy: shape.groupBy, having: shape.having,
                distinct: shape.distinct, sortDescriptors: fetch.sortDescriptors)
            var compiler = sqlite.compiler()
            if let compiled = try? compiler.dictionaries(table: table, entityNames: entities, request: StoreDictionaryRequest(fetch: fetch, plan: plan)) {
                texts += [compiled.sql, Self.describe(compiled.arguments)]
            } else {
                texts.append("unsupported")
            }
        }
        #expect(Self.digest(texts) == 24_669_051_586_938_491)
        #expect(texts.count == 3_600)
    }
}
