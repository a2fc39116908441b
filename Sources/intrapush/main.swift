import IntrapushCore
#if canImport(Glibc)
import Glibc
#endif

// The companion CLI (list, show, follow, status, …) is not written yet; say so plainly rather
// than pretend. Until then the database can be read with sqlite3 (see README).
StandardError.writeLine("intrapush: the command-line tool is not available yet; read the database with sqlite3 (see README)")
exit(69)  // EX_UNAVAILABLE
