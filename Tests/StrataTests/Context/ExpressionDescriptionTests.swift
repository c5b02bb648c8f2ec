import Foundation
import Strata
import Testing

/// The columns of dictionary fetches: their names and expressions, and the result types they
/// convert values to.
@Suite struct ExpressionDescriptionTests {
    @Test func buildersNameColumnsByTheirKeyPaths() {
        #expect(ExpressionDescription.key("author.name").name == "author.name")
        #expect(ExpressionDescription.key("author.name", as: "author").expression == .keyPath(["author", "name"]))
        #expect(ExpressionDescription.count().expression == .keyPath(["@count"]))
        #expect(ExpressionDescription.count("price").name == "@count.price")
        #expect(ExpressionDescription.sum("publisher.revenue").expression == .keyPath(["@sum", "publisher", "revenue"]))
        #expect(ExpressionDescription.average("price", as: "mean").name == "mean")
        #expect(ExpressionDescription.minimum("year").name == "@min.year")
        #expect(ExpressionDescription.maximum("year").name == "@max.year")
        #expect(ExpressionDescription(keyPath: "@avg.price") == .average("price"))
        #expect(AggregateFunction(PredicateFunction.average) == .average)
        #expect(AggregateFunction(PredicateFunction.median) == .median)
        #expect(AggregateFunction(PredicateFunction.stddev) == .standardDeviation)
        #expect(AggregateFunction(PredicateFunction.lowercase) == nil)
        #expect(ExpressionDescription.median("price").name == "@median.price")
        #expect(ExpressionDescription.standardDeviation("price", as: "spread").expression == .keyPath(["@stddev", "price"]))
        var request = FetchRequest(entityName: "Book")
        request.propertiesToFetch = ["title", "@count"]
        #expect(request.expressionsToFetch == [.key("title"), .count()])
        #expect(request.propertiesToFetch == ["title", "@count"])
    }

    /// Each stored age of the test model's people returned as another type.
    @Test(arguments: [
        (AttributeType.double, PropertyValue.attribute(.double(30))),
        (.decimal, .attribute(.decimal(30))),
        (.int16, .attribute(.integer(30))),
        (.bool, .attribute(.bool(true))),
        (.float, .attribute(.float(30))),
    ])
    func resultTypesConvertNumbers(_ type: AttributeType, _ expected: PropertyValue) throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        context.person("Ann").age = 30
        try context.save()
        var request = FetchRequest(entityName: "Person")
        request.expressionsToFetch = [ExpressionDescription(name: "age", expression: .key("age"), resultType: type)]
        #expect(try context.fetchDictionaries(request) == [["age": expected]])
    }

    @Test func averagesConvertTowardZeroAndOutOfRangeIsNil() throws {
        let context = ManagedObjectContext(coordinator: TestModel.coordinator())
        for (name, age) in [("Ann", Int16(30)), ("Bob", 31), ("Cat", 32_000), ("Dan", 32_000)] { context.person(name).age = age }
        try context.save()
        var request = FetchRequest(entityName: "Person", predicate: .key("age") < 100)
        request.expressionsToFetch = [ExpressionDescription(name: "mean", expression: .key("@avg.age"), resultType: .int16)]
        #expect(try context.fetchDictionaries(request) == [["mean": .attribute(.integer(30))]])
        request.predicate = nil
        request.expressionsToFetch = [ExpressionDescription(name: "total", expression: .key("@sum.age"), resultType: .int16)]
        #expect(try context.fetchDictionaries(request) == [["total": .attribute(nil)]])
        request.expressionsToFetch = [ExpressionDescription(name: "name", expression: .key("@max.firstName"), resultType: .int64)]
        #expect(throws: StrataError(.invalidPredicate, "the column 'name' has the value \"Dan\", which cannot be returned as int64")) {
            try context.fetchDictionaries(request)
        }
    }
}
