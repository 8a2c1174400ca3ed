/*
 * static_exp.h - `pascal-agent --static`: the paper's static cluster
 * experiment (section 5.2, Table "static") run through the agent's backend
 * (the sim's static path or the CUDA static phase kernel): M = SM count
 * workers, N blocks of 4, 8 and 16 KiB (N = 8192, doubled until 4 KiB
 * blocks overrun the whole L2: pascal_cluster_scan_blocks), the 11 cluster counts of
 * pascal/cluster_exp.h with equally spaced phases, H rounds each; measured K
 * (fills per round) against the gap law, exact SDCM-FA and Che, with the
 * MAPE of each. Prints one line per row, a "static json:" line and a
 * "static table:" line (the rows as a device registration takes them).
 */
#ifndef PASCAL_AGENT_STATIC_EXP_H
#define PASCAL_AGENT_STATIC_EXP_H

#include <stdio.h>

#include "../backend.h"
#include "args.h"

/* Run the experiment on `dev` (described by the backend already) and print
 * to `out`. Returns an agent exit code (AGENT_EXIT_BACKEND when a run fails,
 * the reason on stderr). */
int agent_static_experiment(const agent_args *args, const pascal_backend_ops *ops,
                            const pascal_backend_device *dev, FILE *out);

#endif
