// intrapush's SQL functions, in C so that the compiler vectorises the scanning loops (a plain C
// target is built with -O2 in release; code in a Swift module's header is not).
#define _GNU_SOURCE
#include "intrapush_search.h"
#include <stdlib.h>
#include <string.h>

// ASCII letters to lower case, other bytes as they are (UTF-8 multibyte sequences included).
// A plain loop that compilers vectorise.
static void intrapush_fold_ascii(const unsigned char *from, unsigned char *to, size_t length) {
    for (size_t index = 0; index < length; index++) {
        unsigned char byte = from[index];
        to[index] = (unsigned char)(byte - 'A') < 26u ? (byte | 0x20) : byte;
    }
}

// memmem that ignores ASCII case: folds the text into a buffer and searches it with glibc's
// vectorised memmem, much faster than strcasestr's byte-by-byte comparison.
static int intrapush_contains_folded(
    const unsigned char *text, size_t length, const unsigned char *folded_needle, size_t needle_length
) {
    unsigned char stack_buffer[2048];
    unsigned char *buffer = length <= sizeof stack_buffer ? stack_buffer : (unsigned char *)malloc(length);
    if (buffer == NULL) return 0;
    intrapush_fold_ascii(text, buffer, length);
    int found = memmem(buffer, length, folded_needle, needle_length) != NULL;
    if (buffer != stack_buffer) free(buffer);
    return found;
}

// `true` when the needle has an ASCII letter, the only bytes that folding changes.
static int intrapush_has_ascii_letter(const unsigned char *needle, size_t length) {
    for (size_t index = 0; index < length; index++) {
        if ((unsigned char)((needle[index] | 0x20) - 'a') < 26u) return 1;
    }
    return 0;
}

// SQL `intrapush_contains` (see the header). memmem on SQLite's own buffers is faster than LIKE,
// which matches character by character.
static void intrapush_contains(sqlite3_context *context, int argc, sqlite3_value **argv) {
    if (argc < 3) {
        sqlite3_result_error(context, "intrapush_contains(needle, ignore_case, text, …)", -1);
        return;
    }
    const unsigned char *needle = sqlite3_value_text(argv[0]);
    int needle_length = sqlite3_value_bytes(argv[0]);
    int ignore_case = sqlite3_value_int(argv[1]);
    if (needle == NULL || needle_length > 1024) {
        sqlite3_result_null(context);
        return;
    }
    unsigned char folded_needle[1024];
    // "告警" has no case: search it as it is instead of folding every text for nothing.
    ignore_case = ignore_case && intrapush_has_ascii_letter(needle, (size_t)needle_length);
    if (ignore_case) intrapush_fold_ascii(needle, folded_needle, (size_t)needle_length);
    for (int index = 2; index < argc; index++) {
        // sqlite3_value_text before sqlite3_value_bytes, so that the length is the text's.
        const unsigned char *text = sqlite3_value_text(argv[index]);
        if (text == NULL) continue;
        int length = sqlite3_value_bytes(argv[index]);
        int found = ignore_case
            ? intrapush_contains_folded(text, (size_t)length, folded_needle, (size_t)needle_length)
            : memmem(text, (size_t)length, needle, (size_t)needle_length) != NULL;
        if (found) {
            sqlite3_result_int(context, 1);
            return;
        }
    }
    sqlite3_result_int(context, 0);
}

int intrapush_register_functions(sqlite3 *db) {
    return sqlite3_create_function_v2(
        db, "intrapush_contains", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
        NULL, intrapush_contains, NULL, NULL, NULL);
}
