/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_resume (tests/fuzz/fuzz_resume.c): the scratch folder each input's
 * partial directory is built in, spoiled and checked, and what its files
 * share: resume_build.c builds the directory, resume_spoils.c spoils it
 * as the input's bytes say, resume_checks.c describes what a resume left.
 */
#ifndef FUTEXLAB_FUZZ_RESUME_SCRATCH_H
#define FUTEXLAB_FUZZ_RESUME_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#define NAME "20261206T000000Z-fuzz"
#define PARTIAL ".partial-" NAME "-1-0"

/* SCRATCH (made once per process) and its partial directory */
extern char scratch[64];
extern char partial[200];

/* resume_build.c: a whole partial directory, as a kill leaves it */
void put(const char *dir, const char *name, const char *text, size_t len);
void put_str(const char *dir, const char *name, const char *text);
void remove_tree(const char *path);
void build(void);

/* resume_spoils.c: up to one spoil per call, taking the input's bytes */
struct input {
	const uint8_t *p;
	size_t n;
};

void spoil(struct input *in);

/* resume_checks.c: what a resume left */
char *snapshot(const char *path);
int only(const char *dir, const char *const *allowed, size_t n);
int finished_run_ok(const char *results);

#endif /* FUTEXLAB_FUZZ_RESUME_SCRATCH_H */
