import Foundation
import Strata
import Testing

@Suite struct SortDescriptorTests {
    /// Sorts values with one descriptor's comparison.
    private func sorted(_ values: [PredicateValue], _ descriptor: FetchSortDescriptor) -> [PredicateValue] {
        values.sorted { descriptor.compare($0, $1) < 0 }
    }

    @Test func nilComesFirstAscendingAndLastDescending() {
        let values: [PredicateValue] = [.integer(2), .null, .integer(-1), .double(1.5), .null]
        #expect(sorted(values, FetchSortDescriptor("x")) == [.null, .null, .integer(-1), .double(1.5), .integer(2)])
        #expect(sorted(values, FetchSortDescriptor("x", ascending: false)) == [.integer(2), .double(1.5), .integer(-1), .null, .null])
        #expect(FetchSortDescriptor("x").compare(.null, .null) == 0)
        #expect(FetchSortDescriptor("x").compare(.null, .string("")) == -1)
    }

    @Test func numbersAcrossTypesAndNaN() {
        let values: [PredicateValue] = [.double(.nan), .decimal(Decimal(string: "2.5")!), .integer(3), .double(-.infinity), .bool(true), .double(2)]
        // (Spelled out, because a NaN case never equals itself.)
        func spelled(_ value: PredicateValue) -> String {
            switch value {
            case .double(let d): "double \(d)"
            case .bool(let b): "bool \(b)"
            case .decimal(let d): "decimal \(d)"
            case .integer(let i): "integer \(i)"
            default: "other"
            }
        }
        #expect(sorted(values, FetchSortDescriptor("x")).map(spelled)
            == ["double -inf", "bool true", "double 2.0", "decimal 2.5", "integer 3", "double nan"])
        #expect(FetchSortDescriptor("x").compare(.double(.nan), .double(.nan)) == 0)
        #expect(FetchSortDescriptor("x").compare(.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == 1)
    }

    @Test func datesAndOtherKinds() {
        let early = Date(timeIntervalSince1970: -1_000), late = Date(timeIntervalSince1970: 1_000)
        #expect(sorted([.date(late), .date(early)], FetchSortDescriptor("d")) == [.date(early), .date(late)])
        let a = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, b = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
        #expect(sorted([.uuid(b), .uuid(a)], FetchSortDescriptor("u")) == [.uuid(a), .uuid(b)])
        #expect(sorted([.data(Data([2])), .data(Data([1, 9]))], FetchSortDescriptor("b")) == [.data(Data([1, 9])), .data(Data([2]))])
    }

    @Test func stringComparisons() {
        let titles = ["file10", "File2", "file2", "émile", "Zola", "apple", "Émile", "file1"]
        func order(_ comparison: FetchSortDescriptor.StringComparison, ascending: Bool = true) -> [String] {
            sorted(titles.map { .string($0) }, FetchSortDescriptor("t", ascending: ascending, comparison: comparison)).map {
                if case .string(let s) = $0 { return s }
                return "?"
            }
        }
        #expect(order(.default) == ["File2", "Zola", "apple", "file1", "file10", "file2", "Émile", "émile"])
        #expect(order(.caseInsensitive) == ["apple", "file1", "file10", "File2", "file2", "Zola", "Émile", "émile"])
        #expect(order(.localizedStandard) == ["apple", "Émile", "émile", "file1", "File2", "file2", "file10", "Zola"])
        #expect(order(.localizedStandard, ascending: false) == ["Zola", "file10", "file2", "File2", "file1", "émile", "Émile", "apple"])
    }

    @Test func keyPathComponents() {
        #expect(FetchSortDescriptor("author.name").keyPathComponents == ["author", "name"])
        #expect(FetchSortDescriptor("title").keyPathComponents == ["title"])
        let descriptor = FetchSortDescriptor("title")
        #expect(descriptor.ascending)
        #expect(descriptor.comparison == .default)
    }

    @Test func contextsSortWithTiesInIDOrder() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        let names = ["b", "a", "b", "c", "a"]
        let people = names.map { context.person($0) }
        try context.save()
        let sorted = try context.fetch(Person.self, sortedBy: [FetchSortDescriptor("firstName", ascending: false)])
        #expect(sorted.map(\.firstName) == ["c", "b", "b", "a", "a"])
        #expect(sorted.map(\.objectID) == [people[3], people[0], people[2], people[1], people[4]].map(\.objectID))
    }
}
