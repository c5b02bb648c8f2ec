import FluentPostgresDriver
import Foundation
import PostgresBenchmarkRows

// Fluent (FluentKit 1.57.0, fluent-postgres-driver 2.14.0) on the PostgresBenchmarks rows:
// insert + save and fetch all, into the table `fluent_record` PostgresBenchmarks made on the
// server at STRATA_POSTGRES_URL. Prints `insert <wall ms> <cpu ms>` and `fetch <wall ms> <cpu ms>`.
// PostgresBenchmarks runs it in turn with the other contenders.

final class FluentRecord: Model, @unchecked Sendable {
    static let schema = "fluent_record"

    @ID(custom: "id", generatedBy: .user) var id: Int64?
    @Field(key: "title") var title: String
    @Field(key: "category") var category: String
    @Field(key: "quantity") var quantity: Int64
    @Field(key: "rank") var rank: Int64
    @Field(key: "price") var price: Double
    @Field(key: "weight") var weight: Double
    @Field(key: "active") var active: Bool
    @Field(key: "createdAt") var createdAt: Double
    @Field(key: "notes") var notes: String
    @Field(key: "code") var code: Int32

    init() {}

    init(_ row: Row) {
        id = row.id
        title = row.title
        category = row.category
        quantity = row.quantity
        rank = row.rank
        price = row.price
        weight = row.weight
        active = row.active
        createdAt = row.createdAt
        notes = row.notes
        code = row.code
    }
}

guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty else {
    print("FluentPostgresBenchmark: STRATA_POSTGRES_URL is not set")
    exit(1)
}
let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
let rows = (0..<count).map(Row.init)

let eventLoops = MultiThreadedEventLoopGroup.singleton
let databases = Databases(threadPool: NIOThreadPool.singleton, on: eventLoops)
databases.use(try .postgres(url: url), as: .psql)
let database = databases.database(.psql, logger: Logger(label: "bench"), on: eventLoops.any())!

// Fluent's batch create: one multi-row INSERT per 5,000 models (PostgreSQL takes at most 65,535
// parameters a statement), all in one transaction.
let insert = try await measure {
    try await database.transaction { database in
        var start = 0
        while start < rows.count {
            let end = min(start + 5000, rows.count)
            try await rows[start..<end].map(FluentRecord.init).create(on: database)
            start = end
        }
    }
}
var fetched = 0
let fetch = try await measure {
    fetched = try await FluentRecord.query(on: database).all().count
}
precondition(fetched == count, "Fluent fetched \(fetched) of \(count) rows")
await databases.shutdownAsync()
print("insert \(insert.wall) \(insert.cpu)")
print("fetch \(fetch.wall) \(fetch.cpu)")
