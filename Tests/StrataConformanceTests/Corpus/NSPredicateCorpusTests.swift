import Foundation
@testable import Strata
import StrataTestKit
import Testing

/// Every case of the NSPredicate corpus (``NSPredicateCorpus``) through Strata's parser and
/// evaluator, and — for a dictionary of an entity's attributes — through a fetch on the SQLite
/// and XML stores: each answers exactly as its source expects on all of them, or is one of the
/// known rejections, which must indeed not answer so (a rejection Strata outgrows is removed).
@Suite struct NSPredicateCorpusTests {
    /// The entity a dictionary case is stored as: every key the store cases use.
    static let rowModel = Models.load("""
        { "name": "Corpus", "entities": [ { "name": "Row", "attributes": [
          { "name": "name", "type": "string", "optional": true }, { "name": "key", "type": "string", "optional": true },
          { "name": "title", "type": "string", "optional": true }, { "name": "age", "type": "int64", "optional": true },
          { "name": "a", "type": "int64", "optional": true }, { "name": "b", "type": "int64", "optional": true },
          { "name": "coinValue", "type": "int64", "optional": true }, { "name": "speed", "type": "int64", "optional": true } ] } ] }
        """)
    static let rowKeys: Set<String> = ["name", "key", "title", "age", "a", "b", "coinValue", "speed"]

    /// What a case answered: nil where it was refused (a parse or evaluation error).
    struct Answers {
        var evaluator: Bool?
        /// By store kind; empty when the case is not a row of the model.
        var stores: [String: Bool?] = [:]

        func agree(with expected: Bool?) -> Bool {
            evaluator == expected && stores.values.allSatisfy { $0 == expected }
        }
    }

    static func answers(_ corpusCase: CorpusCase, stores: [StoreKind]) -> Answers {
        guard let predicate = try? FetchPredicate(format: corpusCase.format, argumentArray: corpusCase.arguments) else { return Answers() }
        var answers = Answers()
        switch corpusCase.subject {
        case .dictionary(let values):
            answers.evaluator = try? predicate.evaluate(with: values)
            if Set(values.keys).isSubset(of: rowKeys) {
                for kind in stores { answers.stores[kind.name] = storeAnswer(predicate, values, kind) }
            }
        case .value(let value):
            let bound = predicate.rewritten { expression, _ in
                if case .evaluatedObject = expression { return .constant(value.predicateValue) }
                return nil
            }
            answers.evaluator = try? bound.evaluate(with: [:])
        case .none:
            answers.evaluator = try? predicate.evaluate(with: [:])
        }
        return answers
    }

    /// Whether a fetch with the predicate finds the row of `values`, saved in a new store.
    static func storeAnswer(_ predicate: FetchPredicate, _ values: [String: any PredicateArgument], _ kind: StoreKind) -> Bool? {
        do {
            let fixture = try StoreFixture(kind, rowModel)
            let context = fixture.context()
            let row = try context.insertObject(entityName: "Row")
            for (key, value) in values { row[key] = value }
            try context.save()
            let found = try fixture.context().count(for: FetchRequest(entityName: "Row", predicate: predicate))
            return found == 1
        } catch {
            return nil
        }
    }

    @Test func everyCaseAnswersAsItsSourceOrIsAKnownRejection() throws {
        var answered = 0, rejected = 0, onStores = 0
        var disagreeing: [String] = []
        var outgrown: [String] = []
        for corpusCase in NSPredicateCorpus.cases {
            let answers = Self.answers(corpusCase, stores: [.sqlite, StoreKind.all.first { $0.name == "xml" }!])
            let agrees = answers.agree(with: corpusCase.expected)
            if !answers.stores.isEmpty && agrees { onStores += 1 }
            if NSPredicateCorpus.rejected[corpusCase.name] != nil {
                rejected += 1
                if agrees { outgrown.append(corpusCase.name) }
            } else if agrees {
                answered += 1
            } else {
                disagreeing.append("\(corpusCase.name) expected \(corpusCase.expected.map(String.init) ?? "a refusal"), got \(answers)")
            }
        }
        #expect(disagreeing == [])
        #expect(outgrown == [], "answered now: remove from NSPredicateCorpus.rejected")
        #expect(answered + rejected == NSPredicateCorpus.cases.count)
        // The counts the README quotes.
        #expect(NSPredicateCorpus.cases.count == 142)
        #expect(rejected == 22)
        #expect(onStores == 34, "answered on SQLite and XML too")
    }

    @Test func everyRejectionNamesACase() {
        let names = Set(NSPredicateCorpus.cases.map(\.name))
        #expect(NSPredicateCorpus.rejected.keys.filter { !names.contains($0) } == [])
    }
}
