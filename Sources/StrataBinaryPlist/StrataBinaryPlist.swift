// The StrataBinaryPlist module; see its issue.
