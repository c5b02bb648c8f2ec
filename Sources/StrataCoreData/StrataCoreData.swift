/// Core Data's own files on every platform: models drawn in Xcode (`.xcdatamodel`,
/// `.xcdatamodeld`) become Strata schemas, and stores written by Core Data (SQLite and XML) are
/// read in place and can be converted into any Strata store.
public enum StrataCoreData {}
