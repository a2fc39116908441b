#include <sqlite3.h>

/// Registers intrapush's SQL functions on a connection:
/// `intrapush_contains(needle, ignore_case, text, …)` is 1 when any of the texts (NULLs skipped)
/// contains needle (at most 1,024 bytes; a longer one gives NULL). ignore_case folds ASCII
/// letters only, like LIKE. `intrapush list --grep` scans a million rows with it.
int intrapush_register_functions(sqlite3 *db);

/// Process-wide SQLite settings, before the first connection opens (sqlite3_config is variadic,
/// which Swift cannot call): turns off the allocation statistics, whose global mutex every
/// SQLite malloc and free otherwise takes. Returns SQLITE_OK, or SQLITE_MISUSE when SQLite was
/// already initialised (then nothing changes).
int intrapush_configure_sqlite(void);
