/* SPDX-License-Identifier: GPL-2.0 */
/* The measured noise test_sequential_sim.c draws blocks from. */
#ifndef FUTEXLAB_SEQ_SIM_H
#define FUTEXLAB_SEQ_SIM_H

#define SEQ_SIM_MEASURED	300
#define SEQ_SIM_VISITS		475
#define SEQ_SIM_MATRIX		400

extern const double seq_sim_cost_busy[SEQ_SIM_MEASURED];
extern const double seq_sim_throughput_busy[SEQ_SIM_MEASURED];
extern const double seq_sim_cost_visits[SEQ_SIM_VISITS];
extern const double seq_sim_matrix_quiet[SEQ_SIM_MATRIX];

#endif
