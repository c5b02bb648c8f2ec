// Hand-written code for the generated class Person (Person.strata.swift, made at every build
// from Schemas/People.json): an extension in a file of its own, which generation never touches.
extension Person {
    /// "Katherine Johnson".
    var fullName: String { "\(firstName) \(lastName)" }
}
