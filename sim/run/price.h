/*
 * price.h: prices per GPU-hour by GPU type (nodeox-sim --price) and what
 * GPU-hours cost at those prices (price.c). Any currency unit; the report
 * prints cost next to GPU-hours (doc/simulator.md, "Outputs").
 */
#ifndef SIM_PRICE_H
#define SIM_PRICE_H

#include <stddef.h>

#include "sim/model/cluster.h"

/* Parse "TYPE=COST[,TYPE=COST...]" items (one or more, as --price was given
 * each time) into price[t] for every GPU type t of c, in cluster order. The
 * type of untyped GPUs is named "(untyped)", as in the table. Every type of
 * c needs a price, at most one; a cost is a finite number >= 0. Returns 0,
 * or -1 with "--price: what is wrong" in err. */
int price_parse(const sim_cluster_t *c, const char *const *items, double *price, char *err, size_t errlen);

/* Cost of gpu_hours[t] GPU-hours of each type t at price[t]: the total,
 * and per type in by_type (if not NULL). */
double price_cost(const double *price, const double *gpu_hours, int ntypes, double *by_type);

/* The name a type has in --price, the table and the JSON. */
const char *price_type_name(const sim_cluster_t *c, int t);

#endif
