internal import Strata

// Foundation has its own `Predicate` and `Expression`; in this module the names mean Strata's.
typealias Predicate = Strata.Predicate
typealias Expression = Strata.Expression
typealias SortDescriptor = Strata.SortDescriptor
