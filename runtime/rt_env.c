/*
 * rt_env.c: where this process sits in the job. Rank, world size and local
 * rank come from the launcher's environment (Open MPI's mpirun sets
 * OMPI_COMM_WORLD_*; srun sets SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID;
 * other PMI launchers PMI_RANK/PMI_SIZE; torchrun RANK/WORLD_SIZE/LOCAL_RANK). MPI's own rank is authoritative
 * once MPI is up; the engine checks the two agree (under torchrun, where MPI
 * sees a world of one, the caller's collectives' group is: rt_engine.c). The local rank picks the GPU, so
 * one process per GPU needs no per-node configuration; where ranks share a
 * GPU (more ranks than GPUs on a node), rt_env_shared_device finds them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "runtime/rt_internal.h"

/* Parse a non-negative integer from variable name; -1 if unset, -2 if bad. */
static int _env_int(const char *(*getenv_fn)(const char *), const char *name, long *out)
{
	const char *s = getenv_fn(name);
	if (s == NULL || *s == '\0')
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > 1000000)
		return -2;
	*out = v;
	return 0;
}

int rt_env_read(rt_env_t *env, const char *(*getenv_fn)(const char *), char *err, size_t errlen)
{
	static const struct {
		const char *source, *rank, *size, *local;
	} launchers[] = {
		/* mpirun inside an allocation inherits the batch step's SLURM_PROCID
         * (0 everywhere), so Open MPI's own variables win when present. */
		{ "openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK" },
		{ "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID" },
		{ "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID" },
		/* torchrun and other env:// launchers (no MPI of their own) */
		{ "torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK" },
	};
	env->rank = 0;
	env->world = 1;
	env->local_rank = 0;
	env->source = "none";
	for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
		long rank = 0, size = 0, local = 0;
		int rr = _env_int(getenv_fn, launchers[i].rank, &rank);
		int rs = _env_int(getenv_fn, launchers[i].size, &size);
		if (rr == -1 && rs == -1)
			continue;
		if (rr != 0 || rs != 0 || size < 1 || rank >= size) {
			snprintf(err, errlen, "environment: %s=%s / %s=%s is not a valid rank/size pair",
				 launchers[i].rank,
				 getenv_fn(launchers[i].rank) ? getenv_fn(launchers[i].rank) : "(unset)",
				 launchers[i].size,
				 getenv_fn(launchers[i].size) ? getenv_fn(launchers[i].size) : "(unset)");
			return -1;
		}
		int rl = _env_int(getenv_fn, launchers[i].local, &local);
		if (rl == -2) {
			snprintf(err, errlen, "environment: %s=%s is not a local rank", launchers[i].local,
				 getenv_fn(launchers[i].local));
			return -1;
		}
		env->rank = (int)rank;
		env->world = (int)size;
		env->local_rank = rl == 0 ? (int)local : 0;
		env->source = launchers[i].source;
		return 0;
	}
	return 0;
}

int rt_env_pick_device(int local_rank)
{
#ifdef HAVE_CUDA
	/* backend_cuda(device) selects it; here only the choice: local ranks
     * share the node's GPUs round-robin (one process per GPU is the norm). */
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
		return local_rank;
	return local_rank % ndev;
#else
	return local_rank;
#endif
}

int rt_env_shared_device(const char *keys, int world, size_t keylen, int *first, int *second)
{
	/* once at start, world ranks: the quadratic scan costs less than the
	 * all-gather that brought the keys */
	for (int b = 1; b < world; b++)
		for (int a = 0; a < b; a++)
			if (strncmp(keys + (size_t)a * keylen, keys + (size_t)b * keylen, keylen) == 0) {
				*first = a;
				*second = b;
				return 1;
			}
	return 0;
}
