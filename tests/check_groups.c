/* Check bookkeeping and seeded random bytes (see check_groups.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "check_groups.h"

#include <stdarg.h>
#include <stdio.h>

/* Failures printed per group; the rest are only counted. */
#define MAX_REPORTED 5

static const char *group_name;
static int group_checks;
static int group_failures;
static int total_failures;

void
group_begin (const char *name)
{
  group_name = name;
  group_checks = 0;
  group_failures = 0;
}

void
group_end (void)
{
  if (group_failures == 0)
    printf ("ok   %-28s %6d checks\n", group_name, group_checks);
  else
    printf ("FAIL %-28s %6d of %d checks failed\n", group_name,
        group_failures, group_checks);
  fflush (stdout);
  total_failures += group_failures;
}

int
check (int ok, const char *format, ...)
{
  group_checks++;
  if (!ok) {
    group_failures++;
    if (group_failures <= MAX_REPORTED) {
      va_list args;
      printf ("  %s: ", group_name);
      va_start (args, format);
      vprintf (format, args);
      va_end (args);
      printf ("\n");
    }
  }
  return ok;
}

int
check_total_failures (void)
{
  return total_failures;
}

int
checks_summary (void)
{
  if (total_failures) {
    printf ("%d checks failed\n", total_failures);
    return 1;
  }
  printf ("all checks passed\n");
  return 0;
}

static uint64_t random_state;

void
random_seed (uint64_t seed)
{
  random_state = seed * 0x9E3779B97F4A7C15ull + 1;
}

uint8_t
random_byte (void)
{
  random_state ^= random_state >> 12;
  random_state ^= random_state << 25;
  random_state ^= random_state >> 27;
  return (uint8_t) ((random_state * 0x2545F4914F6CDD1Dull) >> 56);
}
