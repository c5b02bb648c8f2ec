import Foundation
import Strata
import Testing

/// The transformer Fixtures/Library.json names for `Book.palette`: the generated property is a
/// `BookPalette.Value?`.
typealias BookPalette = CodableAttributeTransformer<[String]>

/// The classes in Generated/ (the generator's output, compiled by this target) at work: they fit
/// their model, hold every attribute type through a store, and give typed fetch requests.
@Suite struct GeneratedClassesTests {
    static func container() throws -> PersistentContainer {
        let container = try PersistentContainer(schema: try ModelGeneratorTests.schema(), classes: LibraryModel.classes)
        LibraryModel.registerTransformers(in: container.coordinator)
        return container
    }

    @Test func theGeneratedClassesFitTheirModel() throws {
        let schema = try ModelGeneratorTests.schema()
        try PersistentStoreCoordinator.checkClasses(LibraryModel.classes, against: schema)
        #expect(LibraryModel.versionHash == schema.versionHash)
        #expect(LibraryModel.classes.map(\.entityName) == schema.entities.map(\.name))
    }

    @Test func everyPropertyKeepsItsValueThroughASave() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let author = context.insert(Author.self)
        author.name = "Le Guin"
        let book = context.insert(Book.self)
        book.title = "The Dispossessed"
        book.identifier = UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!
        book.addedAt = Date(timeIntervalSince1970: 1_700_000_000)
        book.year = 1974
        book.pages = 387
        book.copiesSold = 5_000_000_000
        book.price = Decimal(string: "12.95")
        book.rating = 4.5
        book.weight = 0.25
        book.inPrint = true
        book.cover = Data([1, 2, 3])
        book.homepage = URL(string: "https://example.com/dispossessed")
        book.palette = ["#112233", "#445566"]
        book.default = "a keyword as a name"
        book.in = true
        book.author = author
        for number in [1, 2, 3] {
            let chapter = context.insert(Chapter.self)
            chapter.number = Int16(number)
            chapter.where = number == 1 ? "Anarres" : nil
            chapter.book = book
        }
        let magazine = context.insert(Magazine.self)
        magazine.title = "Amazing Stories"
        magazine.identifier = UUID()
        magazine.issue = 7
        try context.save()

        let reader = container.newBackgroundContext()
        let books = try reader.fetch(Book.self, where: \.year > 1900, sortedBy: \.title)
        let read = try #require(books.first)
        #expect(books.count == 1)
        #expect(read.title == "The Dispossessed")
        #expect(read.identifier == UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301"))
        #expect(read.addedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(read.year == 1974)
        #expect(read.pages == 387)
        #expect(read.copiesSold == 5_000_000_000)
        #expect(read.price == Decimal(string: "12.95"))
        #expect(read.rating == 4.5)
        #expect(read.weight == 0.25)
        #expect(read.inPrint)
        #expect(read.cover == Data([1, 2, 3]))
        #expect(read.homepage == URL(string: "https://example.com/dispossessed"))
        #expect(read.palette == ["#112233", "#445566"])
        #expect(read.default == "a keyword as a name")
        #expect(read.in)
        #expect(read.author?.name == "Le Guin")
        #expect(read.author?.books == [read])
        #expect(read.chapters.map(\.number) == [1, 2, 3])
        #expect(read.chapters.map(\.where) == ["Anarres", nil, nil])
        // Inheritance: Book and Magazine are Items, and a fetch of the abstract parent finds both.
        let items = try reader.fetch(Item.self, sortedBy: \.title)
        #expect(items.map(\.title) == ["Amazing Stories", "The Dispossessed"])
        #expect(items[0] is Magazine && items[1] is Book)
    }

    @Test func aFetchRequestFromKeyPathsIsTheOneItsFormatGives() throws {
        let request = Book.fetchRequest(where: \.year > 1900 && \.title != "Dune", sortedBy: \.title, \.pages)
        var expected = FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "year > 1900 AND title != 'Dune'"))
        expected.sortDescriptors = [FetchSortDescriptor("title"), FetchSortDescriptor("pages")]
        #expect(request == expected)
        #expect(Magazine.fetchRequest() == FetchRequest(entityName: "Magazine"))
        let descending = Book.fetchRequest(where: !(\.inPrint == true), sortedBy: [FetchSortDescriptor(\Book.year, ascending: false)])
        #expect(descending.predicate == (try FetchPredicate(format: "NOT inPrint == YES")))
        #expect(descending.sortDescriptors == [FetchSortDescriptor("year", ascending: false)])
    }
}
