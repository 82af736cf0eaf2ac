/* Check bookkeeping and seeded random bytes shared by the plain-C test
 * programs (test-core, test-edge-aware, test-superposition,
 * test-sigma-map).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Checks are counted in named groups: group_begin(), any number of check(),
 * group_end() prints one line per group (and the first failures in it);
 * check_total_failures() is the program's verdict, and checks_summary()
 * prints it and returns main()'s exit status.
 */
#ifndef CHECK_GROUPS_H
#define CHECK_GROUPS_H

#include <stdint.h>

void group_begin (const char *name);
void group_end (void);
/* Counts a check; prints the message (the first few per group) if !ok. */
int check (int ok, const char *format, ...)
    __attribute__((format (printf, 2, 3)));
int check_total_failures (void);
/* "N checks failed" (returns 1) or "all checks passed" (returns 0). */
int checks_summary (void);

/* Random data from a fixed seed (xorshift64*). */
void random_seed (uint64_t seed);
uint8_t random_byte (void);

#endif
