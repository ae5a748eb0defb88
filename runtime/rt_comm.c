/*
 * rt_comm.c: the collectives the runtime needs (sum all-reduce of float
 * buffers, all-gather of small records, broadcast, barrier), over MPI, and
 * over NCCL for device buffers when built with CUDA and NCCL (unless ranks
 * share a GPU, which NCCL refuses: then through MPI on host memory, as
 * without NCCL). Every call is
 * checked and names file:line on failure (mpiCheck / ncclCheck, as in
 * llm.c); MPI_COMM_WORLD uses MPI_ERRORS_RETURN so an error comes back to
 * the check instead of aborting somewhere inside the library. Each call is
 * armed with the fault watchdog (rt_fault.c) so a dead peer cannot hang us.
 *
 * Or over collectives the caller supplies (nodeox_comm_ops_t: nodeox.torch
 * under torchrun hands in torch.distributed's, Gloo or NCCL): once
 * rt_comm_use_ops has been called, every operation below goes to them and
 * MPI only stands by (a world of one, initialised and finalised). This file
 * is the one place the runtime talks to MPI or to the caller's collectives:
 * start, the node-local rank, abort and finish are here too.
 *
 * MPI collectives are started non-blocking and completed by polling with
 * short sleeps: a fast worker waiting for a slow one (the normal case with
 * mixed speeds) then leaves the CPU to the others instead of spinning in
 * the library's busy-wait, which matters when workers share cores (CPU
 * runs, emulation) and costs at most ~0.2 ms of latency per collective.
 */
#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(HAVE_CUDA) && defined(HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>
#define RT_COMM_NCCL 1
#endif

#include "runtime/rt_internal.h"

/* The caller's collectives (one engine per process), NULL for MPI. */
static const nodeox_comm_ops_t *comm_ops;
static int comm_rank = -1;

struct rt_comm {
	int rank, world;
	const nodeox_backend_t *be;
	double bytes;
	float *stage; /* host staging buffer for device memory without NCCL */
	size_t stage_n;
#ifdef RT_COMM_NCCL
	ncclComm_t nccl;
	cudaStream_t stream;
	int use_nccl;
#endif
};

void rt_comm_mpi_fail(int err, const char *expr, const char *file, int line)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	MPI_Error_string(err, msg, &len);
	int rank = -1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	rt_util_say(rank, "%s failed at %s:%d: %s (exit %d)", expr, file, line, msg, NODEOX_RT_EXIT_COMM);
	_exit(NODEOX_RT_EXIT_COMM);
}

/* A call of the caller's collectives returned -1 with err. */
static void _comm_ops_fail(const char *what, const char *err, const char *file, int line)
{
	fflush(stdout);
	rt_util_say(comm_rank, "%s %s failed at %s:%d: %s (exit %d)", comm_ops->name, what, file, line, err,
		    NODEOX_RT_EXIT_COMM);
	_exit(NODEOX_RT_EXIT_COMM);
}
#define opsCheck(what, call)                                        \
	do {                                                        \
		char ops_err_[512] = "";                            \
		if ((call) != 0)                                    \
			_comm_ops_fail(what, ops_err_, file, line); \
	} while (0)

void rt_comm_mpi_start(int *argc, char ***argv, int *rank, int *world)
{
	int provided = 0;
	mpiCheck(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
	mpiCheck(MPI_Comm_rank(MPI_COMM_WORLD, rank));
	mpiCheck(MPI_Comm_size(MPI_COMM_WORLD, world));
	comm_rank = *rank;
}

int rt_comm_mpi_node_rank(int rank)
{
	MPI_Comm node;
	int local = 0;
	mpiCheck(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
	mpiCheck(MPI_Comm_rank(node, &local));
	mpiCheck(MPI_Comm_free(&node));
	return local;
}

int rt_comm_use_ops(const nodeox_comm_ops_t *ops, int on_device, int *rank, int *world, char *err,
		    size_t errlen)
{
	if (ops->start(on_device, rank, world, err, errlen) != 0)
		return -1;
	comm_ops = ops;
	comm_rank = *rank;
	return 0;
}

const char *rt_comm_name(void)
{
	return comm_ops ? comm_ops->name : "MPI";
}

void rt_comm_abort(int code)
{
	fflush(stdout);
	fflush(stderr);
	if (comm_ops == NULL)
		MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code); /* this process: the launcher (torchrun) ends the others */
}

void rt_comm_finish(void)
{
	MPI_Finalize();
}

/* Complete req: spin briefly (cheap when peers are already there), then
 * test every 200 us, sleeping in between. */
static void _comm_wait(MPI_Request *req, const char *file, int line)
{
	const struct timespec nap = { 0, 200 * 1000 };
	for (long i = 0;; i++) {
		int done = 0;
		int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			rt_comm_mpi_fail(rc, "MPI_Test", file, line);
		if (done)
			return;
		if (i >= 64)
			nanosleep(&nap, NULL);
	}
}

#ifdef RT_COMM_NCCL
static void _comm_nccl_fail(ncclResult_t r, const char *expr, const char *file, int line)
{
	rt_util_say(comm_rank, "%s failed at %s:%d: %s (exit %d)", expr, file, line, ncclGetErrorString(r),
		    NODEOX_RT_EXIT_COMM);
	_exit(NODEOX_RT_EXIT_COMM);
}
#define ncclCheck(expr)                                                       \
	do {                                                                  \
		ncclResult_t nccl_rc_ = (expr);                               \
		if (nccl_rc_ != ncclSuccess)                                  \
			_comm_nccl_fail(nccl_rc_, #expr, __FILE__, __LINE__); \
	} while (0)
#define cudaCheck(expr)                                                                             \
	do {                                                                                        \
		cudaError_t cuda_rc_ = (expr);                                                      \
		if (cuda_rc_ != cudaSuccess) {                                                      \
			rt_util_say(comm_rank, "%s failed at %s:%d: %s", #expr, __FILE__, __LINE__, \
				    cudaGetErrorString(cuda_rc_));                                  \
			_exit(NODEOX_RT_EXIT_COMM);                                                 \
		}                                                                                   \
	} while (0)
#endif

#ifdef RT_COMM_NCCL
/* Whether two ranks run on one GPU (several ranks per GPU, or one GPU for a
 * test): NCCL refuses them ("Duplicate GPU detected"), so the device
 * buffers then go through MPI on host memory; rank 0 says so. Keys are
 * "host/PCI bus id", gathered from every rank once. */
static int _comm_shared_device(rt_comm_t *c)
{
	enum { KEY = 128 };
	char key[KEY] = "", host[64] = "", bus[32] = "";
	int dev = 0, a = 0, b = 0;
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "?");
	if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess)
		snprintf(bus, sizeof bus, "device %d", dev);
	snprintf(key, sizeof key, "%s/%s", host, bus);
	char *keys = calloc((size_t)c->world, KEY);
	if (keys == NULL) {
		rt_util_say(c->rank, "out of memory at %s:%d", __FILE__, __LINE__);
		exit(NODEOX_RT_EXIT_COMM);
	}
	rt_comm_allgather(c, key, keys, KEY, __FILE__, __LINE__);
	c->bytes = 0; /* set-up, not the training's traffic */
	int shared = rt_env_shared_device(keys, c->world, KEY, &a, &b);
	if (shared && c->rank == 0)
		rt_util_say(c->rank,
			    "ranks %d and %d share the GPU %s: NCCL needs one GPU per rank, so updates are "
			    "combined through MPI on host memory",
			    a, b, keys + (size_t)a * KEY);
	free(keys);
	return shared;
}
#endif

rt_comm_t *rt_comm_create(int rank, int world, const nodeox_backend_t *be)
{
	rt_comm_t *c = calloc(1, sizeof *c);
	if (c == NULL) {
		rt_util_say(rank, "out of memory at %s:%d", __FILE__, __LINE__);
		exit(NODEOX_RT_EXIT_COMM);
	}
	c->rank = rank;
	c->world = world;
	c->be = be;
	mpiCheck(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
#ifdef RT_COMM_NCCL
	if (be->on_device && comm_ops == NULL && !_comm_shared_device(c)) {
		/* (the caller's collectives bring their own NCCL) */
		ncclUniqueId id;
		if (rank == 0)
			ncclCheck(ncclGetUniqueId(&id));
		rt_comm_bcast(c, &id, sizeof id, 0, __FILE__, __LINE__);
		cudaCheck(cudaStreamCreate(&c->stream));
		rt_fault_arm("ncclCommInitRank", __FILE__, __LINE__);
		ncclCheck(ncclCommInitRank(&c->nccl, world, id, rank));
		rt_fault_disarm();
		c->use_nccl = 1;
	}
#endif
	return c;
}

void rt_comm_destroy(rt_comm_t *c)
{
	if (c == NULL)
		return;
#ifdef RT_COMM_NCCL
	if (c->use_nccl) {
		ncclCommDestroy(c->nccl);
		cudaStreamDestroy(c->stream);
	}
#endif
	free(c->stage);
	free(c);
}

void rt_comm_allreduce_sum(rt_comm_t *c, float *buf, size_t n, const char *file, int line)
{
	c->bytes += (double)n * sizeof(float);
	rt_fault_arm("all-reduce", file, line);
	if (comm_ops) {
		c->be->sync(); /* the backend's kernels have written buf */
		opsCheck("all-reduce", comm_ops->allreduce_sum(buf, n, NODEOX_COMM_F32, c->be->on_device,
							       ops_err_, sizeof ops_err_));
		rt_fault_disarm();
		return;
	}
#ifdef RT_COMM_NCCL
	if (c->use_nccl) {
		ncclCheck(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, c->nccl, c->stream));
		cudaCheck(cudaStreamSynchronize(c->stream));
		rt_fault_disarm();
		return;
	}
#endif
	float *host = buf;
	c->be->sync();
	if (c->be->on_device) {
		if (c->stage_n < n) {
			free(c->stage);
			c->stage = malloc(n * sizeof(float));
			if (c->stage == NULL) {
				rt_util_say(c->rank, "out of memory at %s:%d", __FILE__, __LINE__);
				_exit(NODEOX_RT_EXIT_COMM);
			}
			c->stage_n = n;
		}
		host = c->stage;
		c->be->copy_d2h(host, buf, n * sizeof(float));
	}
	/* MPI counts are int: reduce in chunks so any model size works. */
	const size_t chunk = (size_t)1 << 30;
	for (size_t off = 0; off < n; off += chunk) {
		int cnt = (int)(n - off < chunk ? n - off : chunk);
		MPI_Request req;
		mpiCheck(MPI_Iallreduce(MPI_IN_PLACE, host + off, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
					&req));
		_comm_wait(&req, file, line);
	}
	if (c->be->on_device)
		c->be->copy_h2d(buf, host, n * sizeof(float));
	rt_fault_disarm();
}

void rt_comm_allgather(rt_comm_t *c, const void *send, void *recv, size_t bytes, const char *file, int line)
{
	c->bytes += (double)bytes;
	rt_fault_arm("all-gather", file, line);
	if (comm_ops) {
		opsCheck("all-gather", comm_ops->allgather(send, recv, bytes, ops_err_, sizeof ops_err_));
		rt_fault_disarm();
		return;
	}
	MPI_Request req;
	mpiCheck(
		MPI_Iallgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, &req));
	_comm_wait(&req, file, line);
	rt_fault_disarm();
}

void rt_comm_allreduce_host_double(rt_comm_t *c, double *buf, size_t n, const char *file, int line)
{
	c->bytes += (double)(n * sizeof(double));
	rt_fault_arm("all-reduce (host doubles)", file, line);
	if (comm_ops) {
		opsCheck("all-reduce",
			 comm_ops->allreduce_sum(buf, n, NODEOX_COMM_F64, 0, ops_err_, sizeof ops_err_));
		rt_fault_disarm();
		return;
	}
	MPI_Request req;
	mpiCheck(MPI_Iallreduce(MPI_IN_PLACE, buf, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));
	_comm_wait(&req, file, line);
	rt_fault_disarm();
}

void rt_comm_bcast(rt_comm_t *c, void *buf, size_t bytes, int root, const char *file, int line)
{
	if (c->rank == root)
		c->bytes += (double)bytes;
	rt_fault_arm("broadcast", file, line);
	if (comm_ops) {
		opsCheck("broadcast", comm_ops->bcast(buf, bytes, root, ops_err_, sizeof ops_err_));
		rt_fault_disarm();
		return;
	}
	MPI_Request req;
	mpiCheck(MPI_Ibcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD, &req));
	_comm_wait(&req, file, line);
	rt_fault_disarm();
}

void rt_comm_barrier(rt_comm_t *c, const char *file, int line)
{
	(void)c;
	rt_fault_arm("barrier", file, line);
	if (comm_ops) {
		opsCheck("barrier", comm_ops->barrier(ops_err_, sizeof ops_err_));
		rt_fault_disarm();
		return;
	}
	MPI_Request req;
	mpiCheck(MPI_Ibarrier(MPI_COMM_WORLD, &req));
	_comm_wait(&req, file, line);
	rt_fault_disarm();
}

double rt_comm_bytes(const rt_comm_t *c)
{
	return c->bytes;
}

void rt_comm_set_bytes(rt_comm_t *c, double bytes)
{
	c->bytes = bytes;
}
