/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing inside a run directory through its descriptor. A directory
 * being resumed came from outside (a shared results folder, a guest, a
 * colleague) and may hold links and FIFOs planted under the names the
 * run writes: nothing here follows a link or opens anything but a
 * regular file. A file is replaced whole: written under a temporary name
 * created afresh (O_EXCL, O_NOFOLLOW), synced, and renamed over the
 * name, so a link planted there is replaced, never written through, and
 * a kill leaves the old file or the new one, never half of one.
 */
#ifndef FUTEXLAB_RUNDIR_WRITE_AT_H
#define FUTEXLAB_RUNDIR_WRITE_AT_H

#include <stddef.h>
#include <stdio.h>

/* dirfd/name replaced by the len bytes of data, synced; shown is the
 * path messages give. 0, or -1 with "SHOWN: why" in err. */
int fl_write_at(int dirfd, const char *name, const char *shown,
		const void *data, size_t len, char *err, size_t errlen);

/*
 * The same, unless dirfd/name holds those bytes already, as a regular
 * file of one link that fl_fd_trusted() trusts (a file a resume rewrote
 * with the rows it kept, when it kept them all): that file is left as it
 * is, nothing written. 0, or -1 with err as fl_write_at().
 */
int fl_write_at_changed(int dirfd, const char *name, const char *shown,
			const void *data, size_t len, char *err,
			size_t errlen);

/* dirfd/name, a regular file of one link (not a hard link to a file
 * elsewhere), opened to append rows to; NULL with err. */
FILE *fl_append_at(int dirfd, const char *name, const char *shown,
		   char *err, size_t errlen);

/* dirfd/name created afresh (O_EXCL: none there before, no link
 * followed), its header line written, opened to append; NULL with
 * errno. The header's write is not checked: a full disk is said by the
 * first write that must last. */
FILE *fl_create_at(int dirfd, const char *name, const char *header);

/* The folder dirfd/name, created if missing, opened without following a
 * link (one there is refused); the descriptor, or -1 with err. */
int fl_folder_at(int dirfd, const char *name, const char *shown,
		 char *err, size_t errlen);

/* dirfd/name gone: a file or link unlinked, a folder emptied of its
 * files and removed, never following a link. 0 (also when there was
 * nothing), or -1 with err. */
int fl_remove_at(int dirfd, const char *name, const char *shown,
		 char *err, size_t errlen);

/* 1 when dirfd/name exists (whatever it is, a link not followed). */
int fl_exists_at(int dirfd, const char *name);

#endif
