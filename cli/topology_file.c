// SPDX-License-Identifier: GPL-2.0
/* --topology FILE for list and matrix --estimate: see topology_file.h. */
#include "cli/topology_file.h"

#include <fcntl.h>
#include <stdlib.h>

#include "rundir/regular.h"
#include "spec/topology.h"

/* An hwloc XML file of a 4096-CPU machine is a few MiB. */
#define MAX_TOPOLOGY_BYTES	(32u << 20)

int fl_topology_file(const char *cmd, const char *path,
		     struct fl_topology *t)
{
	char err[512], buf[256];
	const char *shown = fl_path_shown(path, buf, 160);
	char *text;
	size_t len;
	int rc;

	/* a link is refused: the file is read as the user named it */
	if (fl_read_regular(AT_FDCWD, path, shown, FL_NOFOLLOW,
			    MAX_TOPOLOGY_BYTES, &text, &len, err,
			    sizeof(err))) {
		fprintf(stderr, "futexlab %s: --topology: %s\n", cmd, err);
		return -1;
	}
	rc = fl_topology_from_xml(text, len, shown, t, err, sizeof(err));
	free(text);
	if (rc)
		fprintf(stderr, "futexlab %s: --topology: %s\n", cmd, err);
	return rc;
}

void fl_print_distances(FILE *f, const struct fl_distances *d, int indent)
{
	if (!d->n) {
		fprintf(f, "%*snuma distances unknown (no table)\n", indent,
			"");
		return;
	}
	fprintf(f, "%*snuma distances (row: from the node's CPUs, column: to "
		"the node's memory)\n%*s  node", indent, "", indent, "");
	for (unsigned int j = 0; j < d->n; j++)
		fprintf(f, " %3u", j);
	fprintf(f, "\n");
	for (unsigned int i = 0; i < d->n; i++) {
		fprintf(f, "%*s  %4u", indent, "", i);
		for (unsigned int j = 0; j < d->n; j++)
			fprintf(f, " %3u", d->d[i][j]);
		fprintf(f, "\n");
	}
}

void fl_print_topology(FILE *f, const struct fl_topology *t)
{
	fprintf(f, "  cpus           %u, %u NUMA node(s), %u package(s)\n",
		t->ncpus, t->nnodes, t->npackages);
	for (unsigned int n = 0; n < t->nnodes; n++)
		fprintf(f, "    node %-3u     %u cpus\n", n, t->node_ncpus[n]);
	for (unsigned int p = 0; p < t->npackages; p++)
		fprintf(f, "    package %-3u  %u cpus\n", p,
			t->package_ncpus[p]);
	fprintf(f, "  thread words   cpus = %u, node-cpus = %u, package-cpus "
		"= %u\n", t->ncpus, fl_topology_node_cpus(t),
		fl_topology_package_cpus(t));
	fl_print_distances(f, &t->distances, 2);
}
