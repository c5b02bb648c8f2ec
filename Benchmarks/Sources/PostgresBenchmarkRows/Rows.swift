import Foundation

/// One row's values, the same for every contender (the SQLite benchmark's entity: two short
/// strings, a note, two integers, two doubles, a bool, a date as seconds, a 32-bit code).
public struct Row: Sendable {
    public var id: Int64
    public var title: String
    public var category: String
    public var quantity: Int64
    public var rank: Int64
    public var price: Double
    public var weight: Double
    public var active: Bool
    public var createdAt: Double
    public var notes: String
    public var code: Int32

    public init(_ i: Int) {
        id = Int64(i + 1)
        title = "Item \(i)"
        category = ["alpha", "beta", "gamma", "delta"][i % 4]
        quantity = Int64((i * 7919) % 1000)
        rank = Int64(i)
        price = Double(i % 1000) * 1.25
        weight = Double(i) / 3
        active = i % 3 != 0
        createdAt = Double(i) * 60
        notes = "note \(i % 100)"
        code = Int32(i % 100_000)
    }
}

/// Wall-clock and process CPU milliseconds.
public struct Timing: Sendable {
    public var wall: Double
    public var cpu: Double

    public init(wall: Double, cpu: Double) {
        self.wall = wall
        self.cpu = cpu
    }
}

func now(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
}

/// The wall-clock and process CPU time of `body`: the server's work is part of what a client
/// waits for, and the client's own CPU time is what the client library costs.
public func measure(_ body: () throws -> Void) rethrows -> Timing {
    let wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID)
    try body()
    return Timing(wall: now(CLOCK_MONOTONIC) - wall, cpu: now(CLOCK_PROCESS_CPUTIME_ID) - cpu)
}

public func measure(_ body: () async throws -> Void) async rethrows -> Timing {
    let wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID)
    try await body()
    return Timing(wall: now(CLOCK_MONOTONIC) - wall, cpu: now(CLOCK_PROCESS_CPUTIME_ID) - cpu)
}
