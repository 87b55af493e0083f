/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futexlab: the kernel API differences between the kernels the module is
 * built against (Debian 12's 6.12 and Debian unstable's 7.2), in one
 * place, so the other files call one name on every kernel.
 *
 * Each difference is decided by what the kernel's headers define, not by
 * LINUX_VERSION_CODE: a macro's presence is exact for every release in
 * between, where a version cutoff would be a guess from the two built
 * (and checkpatch, which `ninja lint` runs, rejects LINUX_VERSION_CODE).
 * Only 6.12 and 7.2 are built and tested (docs/kernels.md).
 */
#ifndef _FUTEXLAB_COMPAT_H
#define _FUTEXLAB_COMPAT_H

#include <linux/mm.h>
#include <linux/page-flags.h>

/*
 * The low bits of folio->mapping that say it points at no address_space:
 * PAGE_MAPPING_FLAGS (anon, movable) in 6.12; renamed FOLIO_MAPPING_FLAGS
 * (anon, KSM) when movable_ops pages stopped using the field.
 */
#ifdef FOLIO_MAPPING_FLAGS
#define FLK_MAPPING_FLAGS	FOLIO_MAPPING_FLAGS
#else
#define FLK_MAPPING_FLAGS	PAGE_MAPPING_FLAGS
#endif

/*
 * The file offset, in pages, of @page inside @folio. 6.12 calls it
 * page_to_pgoff(page), 7.2 page_pgoff(folio, page), and no release has
 * both forever; both compute the folio's index plus the page's place in
 * the folio (in PAGE_SIZE units, hugetlb folios included), which every
 * kernel with folios can.
 */
static inline pgoff_t flk_page_pgoff(struct folio *folio, struct page *page)
{
	return folio->index + folio_page_idx(folio, page);
}

#endif /* _FUTEXLAB_COMPAT_H */
