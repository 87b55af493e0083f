// SPDX-License-Identifier: GPL-2.0
/* A machine's shape, from hwloc and libnuma or from hwloc XML: see
 * topology.h; and this machine's hwloc topology, loaded once
 * (hwloc_here.h). */
#include "spec/topology.h"

#include <fcntl.h>
#include <hwloc.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spec/hwloc_here.h"

hwloc_topology_t fl_hwloc_here(void)
{
	static hwloc_topology_t topo;
	static int loaded;

	if (!loaded) {
		if (hwloc_topology_init(&topo))
			return NULL;
		if (hwloc_topology_load(topo)) {
			hwloc_topology_destroy(topo);
			return NULL;
		}
		loaded = 1;
	}
	return topo;
}

void fl_numa_distances(struct fl_distances *d, unsigned int nnodes)
{
	memset(d, 0, sizeof(*d));
	if (numa_available() != 0 || nnodes == 0 || nnodes > FL_MAX_NODES)
		return;
	d->n = nnodes;
	for (unsigned int i = 0; i < nnodes; i++)
		for (unsigned int j = 0; j < nnodes; j++) {
			int v = numa_distance((int)i, (int)j);

			/* 0 is libnuma's "unknown"; a SLIT entry is a byte */
			d->d[i][j] = v > 0 && v <= 255 ? (unsigned char)v : 0;
		}
}

/* Each object of type's CPUs into counts (at most max objects): the
 * count of objects, or -1 when there are more than max. */
static int count_cpus(hwloc_topology_t topo, hwloc_obj_type_t type,
		      unsigned int *counts, unsigned int max)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);

	if (n < 0 || (unsigned int)n > max)
		return -1;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
		int w = o && o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 0;

		counts[i] = w > 0 ? (unsigned int)w : 0;
	}
	return n;
}

void fl_topology_here(struct fl_topology *t)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	hwloc_topology_t topo = fl_hwloc_here();

	memset(t, 0, sizeof(*t));
	t->ncpus = online > 0 ? (unsigned int)online : 1;
	t->nnodes = 1;
	t->node_ncpus[0] = t->ncpus;
	if (topo) {
		int p = count_cpus(topo, HWLOC_OBJ_PACKAGE, t->package_ncpus,
				   FL_MAX_PACKAGES);

		t->npackages = p > 0 ? (unsigned int)p : 0;
	}
	if (numa_available() != 0)
		return;
	t->nnodes = (unsigned int)numa_max_node() + 1;
	if (t->nnodes > FL_MAX_NODES)
		t->nnodes = FL_MAX_NODES;
	for (unsigned int n = 0; n < t->nnodes; n++) {
		struct bitmask *cpus = numa_allocate_cpumask();

		t->node_ncpus[n] = numa_node_to_cpus((int)n, cpus) == 0 ?
				   numa_bitmask_weight(cpus) : 0;
		numa_free_cpumask(cpus);
	}
	fl_numa_distances(&t->distances, t->nnodes);
}

/* hwloc's NUMALatency matrix into t->distances, by the nodes' logical
 * indexes: 0, or -1 with err. */
static int xml_distances(hwloc_topology_t topo, const char *shown,
			 struct fl_topology *t, char *err, size_t errlen)
{
	struct hwloc_distances_s *dist = NULL;
	unsigned int nr = 1;
	int rc = 0;

	if (hwloc_distances_get_by_name(topo, "NUMALatency", &nr, &dist, 0) ||
	    nr == 0) {
		/* one node: its only distance is to itself */
		if (t->nnodes == 1)
			t->distances = (struct fl_distances){ .n = 1,
				.d = { { 10 } } };
		return 0;
	}
	if (dist->nbobjs != t->nnodes) {
		snprintf(err, errlen, "%s: its NUMALatency matrix has %u "
			 "objects for %u NUMA nodes", shown, dist->nbobjs,
			 t->nnodes);
		rc = -1;
	}
	for (unsigned int i = 0; !rc && i < dist->nbobjs; i++) {
		for (unsigned int j = 0; !rc && j < dist->nbobjs; j++) {
			hwloc_uint64_t v = dist->values[i * dist->nbobjs + j];
			unsigned int a = dist->objs[i]->logical_index;
			unsigned int b = dist->objs[j]->logical_index;

			if (dist->objs[i]->type != HWLOC_OBJ_NUMANODE ||
			    dist->objs[j]->type != HWLOC_OBJ_NUMANODE ||
			    a >= t->nnodes || b >= t->nnodes || v > 255) {
				snprintf(err, errlen, "%s: NUMALatency row "
					 "%u, column %u is not a distance "
					 "from 0 to 255 between NUMA nodes",
					 shown, i, j);
				rc = -1;
			} else {
				t->distances.d[a][b] = (unsigned char)v;
			}
		}
	}
	t->distances.n = rc ? 0 : t->nnodes;
	hwloc_distances_release(topo, dist);
	return rc;
}

/* The counts of t from a loaded topology: 0, or -1 with err. */
static int xml_counts(hwloc_topology_t topo, const char *shown,
		      struct fl_topology *t, char *err, size_t errlen)
{
	int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	int nodes = count_cpus(topo, HWLOC_OBJ_NUMANODE, t->node_ncpus,
			       FL_MAX_NODES);
	int packages = count_cpus(topo, HWLOC_OBJ_PACKAGE, t->package_ncpus,
				  FL_MAX_PACKAGES);

	if (pus < 1) {
		snprintf(err, errlen, "%s: no processing unit (PU) in the "
			 "topology", shown);
		return -1;
	}
	if (nodes < 1 || packages < 0) {
		snprintf(err, errlen, "%s: %s NUMA nodes or packages: at most "
			 "%d of each", shown, nodes < 1 && nodes >= 0 ? "no" :
			 "too many", FL_MAX_NODES);
		return -1;
	}
	t->ncpus = (unsigned int)pus;
	t->nnodes = (unsigned int)nodes;
	t->npackages = (unsigned int)packages;
	return 0;
}

/*
 * xml (NUL-terminated at len) into topo: 0 or -1. hwloc writes its own
 * complaints to stderr ("Topology does not contain any NUMA node,
 * aborting!", the XML parser's): a bad file gets one line, the
 * caller's, so stderr is /dev/null while hwloc reads it.
 */
static int load_quietly(hwloc_topology_t topo, const char *xml, size_t len)
{
	int saved, null, r;

	fflush(stderr);
	saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	/* hwloc wants the terminating NUL counted in the length */
	r = hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) ||
	    hwloc_topology_load(topo) ? -1 : 0;
	if (saved >= 0 && null >= 0) {
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
	}
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	return r;
}

int fl_topology_from_xml(const char *xml, size_t len, const char *shown,
			 struct fl_topology *t, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	int rc;

	memset(t, 0, sizeof(*t));
	if (len == 0 || len > (size_t)1 << 30 || memchr(xml, '\0', len)) {
		snprintf(err, errlen, "%s: not an hwloc XML topology (empty, "
			 "or binary)", shown);
		return -1;
	}
	if (hwloc_topology_init(&topo)) {
		snprintf(err, errlen, "%s: hwloc cannot start", shown);
		return -1;
	}
	if (load_quietly(topo, xml, len)) {
		/* processors and no memory: hwloc 2 refuses the file,
		 * and said why only on the stderr load_quietly() hid */
		int no_node = strstr(xml, "type=\"PU\"") &&
			      !strstr(xml, "type=\"NUMANode\"");

		snprintf(err, errlen, "%s: not an hwloc XML topology (hwloc "
			 "cannot load it%s)", shown, no_node ? ": it has no "
			 "NUMANode object, which hwloc 2 requires" : "");
		hwloc_topology_destroy(topo);
		return -1;
	}
	rc = xml_counts(topo, shown, t, err, errlen) ||
	     xml_distances(topo, shown, t, err, errlen) ? -1 : 0;
	hwloc_topology_destroy(topo);
	return rc;
}

static unsigned int most(const unsigned int *counts, unsigned int n)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < n; i++)
		if (counts[i] > m)
			m = counts[i];
	return m;
}

unsigned int fl_topology_node_cpus(const struct fl_topology *t)
{
	unsigned int m = most(t->node_ncpus, t->nnodes);

	return m ? m : (t->ncpus ? t->ncpus : 1);
}

unsigned int fl_topology_package_cpus(const struct fl_topology *t)
{
	unsigned int m = most(t->package_ncpus, t->npackages);

	return m ? m : fl_topology_node_cpus(t);
}
