#include "intrapush_search.h"

int intrapush_configure_sqlite(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
