/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bound on the extended regular expression a user gives (app's
 * --metric), checked before regcomp() sees it. glibc builds a repeated
 * part once per count, so x{255} is 255 copies and nested counts
 * multiply ((x{255}){255} is 65,025); and two duplication symbols in a
 * row (x++, x*{2}), whose meaning POSIX leaves undefined, cost it time
 * and memory exponential in their number: 20 '+' in a row took 26 s and
 * all the memory of the fuzzer that found it. A pattern is refused when
 * it is longer than FL_REGEX_MAX_LEN, repeats a repetition, counts past
 * POSIX's RE_DUP_MAX minimum (255), or comes to more than
 * FL_REGEX_MAX_PARTS parts once its counts are multiplied out; what a
 * program's output is searched for needs none of that.
 */
#ifndef FUTEXLAB_REGEX_BOUND_H
#define FUTEXLAB_REGEX_BOUND_H

#define FL_REGEX_MAX_LEN 256
#define FL_REGEX_MAX_PARTS 4096
#define FL_REGEX_MAX_COUNT 255

/* 0 when text is within the bound, else -1 with why set. */
int fl_regex_bounded(const char *text, const char **why);

#endif
