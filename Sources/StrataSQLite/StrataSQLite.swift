internal import CSQLite

func strataSQLiteVersion() -> String { String(cString: sqlite3_libversion()) }
