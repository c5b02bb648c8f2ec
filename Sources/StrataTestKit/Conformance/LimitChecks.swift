import Foundation
package import Strata
import Testing

/// Predicates at and past the limits every store shares (``FetchPredicate/maximumKeyPathLength``,
/// ``FetchPredicate/maximumDepth``, the regex engine's), and what SQLite alone would refuse
/// (64 tables in a join, expression trees 1,000 deep): the same answers, or the same error, on
/// every store.
package struct LimitChecks {
    package init() {}

    package static let model = Models.load("""
    { "name": "Limits", "entities": [
      { "name": "Node",
        "attributes": [
          { "name": "n", "type": "int64" },
          { "name": "s", "type": "string", "optional": true },
          { "name": "code", "type": "string", "optional": true, "regex": "(a+)+c|a*!" } ],
        "relationships": [
          { "name": "parent", "destination": "Node", "inverse": "children", "optional": true },
          { "name": "children", "destination": "Node", "inverse": "parent", "toMany": true } ] }
    ] }
    """)

    /// A chain of `count` nodes: node 0 is the root (s = "root"), node i's parent is node i - 1.
    static func chain(_ kind: StoreKind, count: Int) throws -> StoreFixture {
        let fixture = try StoreFixture(kind, model)
        let context = fixture.context()
        var previous: ManagedObject?
        for n in 0..<count {
            let node = try context.make("Node", ["n": n])
            if n == 0 { node["s"] = "root" }
            if let previous { node["parent"] = previous }
            previous = node
        }
        try context.save()
        return fixture
    }

    static func numbers(_ fixture: StoreFixture, _ predicate: FetchPredicate) throws -> [Int64] {
        var request = FetchRequest(entityName: "Node", predicate: predicate)
        request.sortDescriptors = [FetchSortDescriptor("n")]
        return try fixture.context().fetch(request).map { $0["n"] as! Int64 }
    }

    /// Runs `body` on a thread with a 4 MB stack, half of Linux's default: predicates at the
    /// limits fit in it even in a debug build, whose frames are largest (256 nested SUBQUERYs
    /// need between 2 and 4 MB there; 512 KB, Apple platforms' secondary-thread size, is too
    /// small in a debug build even for 256 nested NOTs).
    static func onBoundedStack(_ body: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        let thread = Thread {
            do { try body() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        thread.stackSize = 4096 * 1024
        thread.start()
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    static func parents(_ hops: Int, then key: String) -> String {
        (Array(repeating: "parent", count: hops) + [key]).joined(separator: ".")
    }

    /// C1: SQLite joins one table per to-one step and takes at most 64; past that the store
    /// evaluates the request in memory, so the answer is the same everywhere.
    package func longToOneKeyPaths(_ kind: StoreKind) throws {
        let fixture = try Self.chain(kind, count: 80)
        for hops in [1, 62, 63, 64, 70, FetchPredicate.maximumKeyPathLength - 1] {
            let predicate = try FetchPredicate(format: "\(Self.parents(hops, then: "s")) == 'root'")
            #expect(try Self.numbers(fixture, predicate) == (hops < 80 ? [Int64(hops)] : []), "\(hops) hops")
            let count = try fixture.context().count(for: FetchRequest(entityName: "Node", predicate: predicate))
            #expect(count == (hops < 80 ? 1 : 0), "\(hops) hops")
        }
        let nilAtTheEnd = try FetchPredicate(format: "\(Self.parents(70, then: "s")) == nil")
        #expect(try Self.numbers(fixture, nilAtTheEnd) == (0..<80).filter { $0 != 70 }.map(Int64.init))
        // A sort key through 70 to-one steps.
        var request = FetchRequest(entityName: "Node", predicate: try FetchPredicate(format: "n >= 69"))
        request.sortDescriptors = [FetchSortDescriptor(Self.parents(69, then: "n"), ascending: false), FetchSortDescriptor("n")]
        #expect(try fixture.context().fetch(request).map { $0["n"] as! Int64 } == [79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69])
    }

    /// C1: past the limit (and 5,000 steps, which overflowed the SQL compiler's stack), one
    /// error on every store, naming the limit.
    package func keyPathsPastTheLimit(_ kind: StoreKind) throws {
        let fixture = try Self.chain(kind, count: 3)
        let limit = FetchPredicate.maximumKeyPathLength
        #expect(try Self.numbers(fixture, FetchPredicate(format: "\(Self.parents(limit - 1, then: "s")) == nil")) == [0, 1, 2])
        for hops in [limit, 5_000] {
            let predicate = try FetchPredicate(format: "\(Self.parents(hops, then: "s")) == nil")
            let message = "the key path 'parent.parent.parent.….parent.s' has \(hops + 1) components; a key path may have at most 100"
            #expect(throws: StrataError(.invalidPredicate, message)) { try Self.numbers(fixture, predicate) }
            #expect(throws: StrataError(.invalidPredicate, message)) {
                try fixture.context().count(for: FetchRequest(entityName: "Node", predicate: predicate))
            }
            var sorted = FetchRequest(entityName: "Node")
            sorted.sortDescriptors = [FetchSortDescriptor(Self.parents(hops, then: "n"))]
            #expect(throws: StrataError(.invalidPredicate, message.replacingOccurrences(of: "parent.s'", with: "parent.n'"))) {
                try fixture.context().fetch(sorted)
            }
            var dictionaries = FetchRequest(entityName: "Node")
            dictionaries.propertiesToFetch = [Self.parents(hops, then: "s")]
            #expect(throws: StrataError(.invalidPredicate, message)) { try fixture.context().fetchDictionaries(dictionaries) }
        }
    }

    /// C1: 999 ORed comparisons went over SQLite's expression depth (1,000); long runs of OR
    /// and AND now compile as balanced trees.
    package func longRunsOfOrAndAnd(_ kind: StoreKind) throws {
        let fixture = try Self.chain(kind, count: 10)
        let odd = (0..<999).map { "n == \($0 * 2 + 1)" }.joined(separator: " OR ")
        #expect(try Self.numbers(fixture, FetchPredicate(format: odd)) == [1, 3, 5, 7, 9])
        let notEven = (0..<999).map { "n != \($0 * 2)" }.joined(separator: " AND ")
        #expect(try Self.numbers(fixture, FetchPredicate(format: notEven)) == [1, 3, 5, 7, 9])
        // Nullable comparisons (through a relationship) in a long run, negated.
        let parentOdd = (0..<999).map { "parent.n == \($0 * 2 + 1)" }.joined(separator: " OR ")
        #expect(try Self.numbers(fixture, FetchPredicate(format: "NOT (\(parentOdd))")) == [0, 1, 3, 5, 7, 9])
        // 40,000 values to bind: more than SQLite takes in one statement.
        let values = (0..<40_000).map { PredicateValue.integer(Int64($0 * 3)) }
        #expect(try Self.numbers(fixture, .comparison(Comparison(.key("n"), .in, .constant(.array(values))))) == [0, 3, 6, 9])
    }

    /// Predicates built in code may nest ``FetchPredicate/maximumDepth`` levels; one more is
    /// the same error on every store.
    package func deepPredicatesBuiltInCode(_ kind: StoreKind) throws {
        try Self.onBoundedStack { try Self.deepPredicatesBuiltInCode(Self.chain(kind, count: 4)) }
    }

    static func deepPredicatesBuiltInCode(_ fixture: StoreFixture) throws {
        func nots(_ count: Int) -> FetchPredicate {
            var predicate = FetchPredicate.comparison(Comparison(.key("n"), .equal, .constant(1)))
            for _ in 0..<count { predicate = .not(predicate) }
            return predicate
        }
        let limit = FetchPredicate.maximumDepth
        #expect(try Self.numbers(fixture, nots(limit)) == [1])
        #expect(try Self.numbers(fixture, nots(limit - 1)) == [0, 2, 3])
        let message = tooDeep
        for depth in [limit + 1, 10 * limit] {
            #expect(throws: StrataError(.invalidPredicate, message)) { try Self.numbers(fixture, nots(depth)) }
        }
        var alternating = FetchPredicate.comparison(Comparison(.key("n"), .equal, .constant(2)))
        for level in 0..<limit { alternating = level % 2 == 0 ? .or([alternating, .false]) : .and([alternating, .true]) }
        #expect(try Self.numbers(fixture, alternating) == [2])
        #expect(throws: StrataError(.invalidPredicate, message)) { try Self.numbers(fixture, .and([alternating, .true])) }
    }

    /// SUBQUERYs nested to the limit (each one level): SQLite refuses a statement that deep,
    /// and the store answers in memory.
    package func subqueriesNestedToTheLimit(_ kind: StoreKind) throws {
        try Self.onBoundedStack { try Self.subqueriesNestedToTheLimit(Self.chain(kind, count: 4)) }
    }

    static func subqueriesNestedToTheLimit(_ fixture: StoreFixture) throws {
        func subqueries(_ count: Int) -> FetchPredicate {
            var predicate = FetchPredicate.comparison(Comparison(.variable("x", ["n"]), .equal, .constant(3)))
            for level in (0..<count).reversed() {
                let member = level == 0 ? FetchExpression.key("children") : .variable("x", ["children"])
                predicate = .comparison(Comparison(
                    .subquery(collection: member, variable: "x", predicate: predicate, keyPath: ["@count"]), .greaterThan, .constant(0)))
            }
            return predicate
        }
        // Node 0's children's children's children is node 3; deeper chains find nothing.
        #expect(try Self.numbers(fixture, subqueries(3)) == [0])
        #expect(try Self.numbers(fixture, subqueries(FetchPredicate.maximumDepth)) == [])
        #expect(throws: StrataError(.invalidPredicate, Self.tooDeep)) { try Self.numbers(fixture, subqueries(FetchPredicate.maximumDepth + 1)) }
    }

    /// Arithmetic built in code nests like the rest: to the limit it is answered (on SQLite, in
    /// SQL or in memory), one more level is the same error on every store.
    package func arithmeticNestedToTheLimit(_ kind: StoreKind) throws {
        try Self.onBoundedStack { try Self.arithmeticNestedToTheLimit(Self.chain(kind, count: 4)) }
    }

    static func arithmeticNestedToTheLimit(_ fixture: StoreFixture) throws {
        func plusOnes(_ count: Int) -> FetchExpression {
            var expression = FetchExpression.key("n")
            for _ in 0..<count { expression = expression + 1 }
            return expression
        }
        let limit = FetchPredicate.maximumDepth
        #expect(try Self.numbers(fixture, plusOnes(limit) == limit + 2) == [2])
        #expect(throws: StrataError(.invalidPredicate, Self.tooDeep)) { try Self.numbers(fixture, plusOnes(limit + 1) == 0) }
    }

    static let tooDeep = "the predicate nests more than 256 levels deep (AND, OR, NOT, SUBQUERY and arrays); flatten it, for example with IN instead of nested ORs"

    /// W1: ICU gives up on `(a+)+c` over 25 `a`s and reports no match, though `a*!` matches:
    /// a fetch throws instead of silently leaving the object out.
    package func matchesPastTheRegexEnginesLimits(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Self.model)
        let context = fixture.context()
        let hard = String(repeating: "a", count: 25) + "!"
        _ = try context.make("Node", ["n": 0, "s": hard])
        _ = try context.make("Node", ["n": 1, "s": "aaa!"])
        try context.save()
        let message = "MATCHES failed: the pattern \"(a+)+c|a*!\" could not be evaluated: the match exceeded the regular expression engine's limits (too much backtracking or nesting); simplify the pattern, for example by removing nested quantifiers such as (a+)+"
        let predicate = try FetchPredicate(format: "s MATCHES %@", "(a+)+c|a*!")
        #expect(throws: StrataError(.invalidPredicate, message)) { try Self.numbers(fixture, predicate) }
        if kind.name == "sqlite" {
            // A count is another statement.
            #expect(throws: StrataError(.invalidPredicate, message)) {
                try fixture.context().count(for: FetchRequest(entityName: "Node", predicate: predicate))
            }
        }
        #expect(try Self.numbers(fixture, FetchPredicate(format: "s MATCHES %@", "a*!")) == [0, 1])
        #expect(try Self.numbers(fixture, FetchPredicate(format: "n == 1 AND s MATCHES %@", "(a+)+c|a*!")) == [1])
    }

}
