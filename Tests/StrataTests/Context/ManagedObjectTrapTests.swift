import Foundation
import Strata
import Testing

/// Misuse traps with a message that says what is wrong (run in a child process).
@Suite struct ManagedObjectTrapTests {
    @Test func readingATransformableOfAnObjectWhoseContextIsGone() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = TestModel.coordinator()
            var settings: Settings?
            do {
                let context = ManagedObjectContext(coordinator: coordinator)
                settings = Settings(context: context)
                settings?.prefs = Prefs(theme: "t", fontSize: 1, flags: [:])
                context.reset()
            }
            _ = settings?.prefs
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("is no longer in a context"), "\(output)")
    }

    @Test func aTransformableWithoutItsTransformer() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = PersistentStoreCoordinator(schema: TestModel.schema, classes: [Settings.self])
            _ = try? coordinator.addStore(.inMemory())
            let context = ManagedObjectContext(coordinator: coordinator)
            Settings(context: context).prefs = Prefs(theme: "t", fontSize: 1, flags: [:])
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("no value transformer named 'Prefs' is registered for Settings.prefs"), "\(output)")
    }

    @Test func aValueOfTheWrongType() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = ManagedObjectContext(coordinator: TestModel.coordinator())
            context.person("Ann")["age"] = "old"
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("Person.age is a int16 attribute; it cannot hold a String"), "\(output)")
    }
}
