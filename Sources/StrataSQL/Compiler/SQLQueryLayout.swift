package import Strata

/// What the compiler needs to know of an SQL store's tables (``TablePlan``'s tables as a store
/// laid them out): each store's layout conforms.
package protocol SQLQueryLayout: Sendable {
    var schema: Schema { get }
    /// The table of the inheritance hierarchy whose root is `root`.
    func queryTable(forRoot root: String) -> (any SQLQueryTable)?
    /// Where the members of `entity`'s to-many `relationship` are kept.
    func toManyStorage(of entity: String, _ relationship: String) -> ToManyStorage?
}

/// The table of one inheritance hierarchy, as the compiler reads it.
package protocol SQLQueryTable: Sendable {
    /// The table name: the root entity's name.
    var name: String { get }
    var entityNames: [String] { get }
    /// Whether rows keep their concrete entity in `"_entity"`.
    var hasEntityColumn: Bool { get }
    /// The type of the attribute kept in the column `name`, nil when it is not an attribute.
    func attributeType(_ name: String) -> AttributeType?
    /// The SQL that compares an attribute's values in the evaluator's order (a shadow column's
    /// expression), or nil when the column itself does or there is none.
    func comparisonKey(_ attribute: String, alias: String?) -> String?
    /// The columns a record is read from after `_pk`, `_entity` and `_version`, in order.
    var recordColumns: [String] { get }
}
