// glibc calls that Swift's Glibc module does not import.
#include <malloc.h>      // malloc_trim: hand freed heap pages back to the kernel when idle
#include <sys/random.h>  // getrandom: many WebSocket masking keys per system call
