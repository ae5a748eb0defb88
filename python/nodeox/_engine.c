/*
 * _engine.c: nodeox._engine, the CPython extension under nodeox.torch. A
 * thin layer over the runtime's step API (runtime/nodeox_rt.h): it starts
 * the engine (MPI, the launcher's ranks, the watchdog, the Slurm
 * allocation's GPU speeds as nodeox-run reads them), describes the caller's
 * flat parameter and gradient buffers to it as a workload, and forwards the
 * calls of one training step. The buffers are the torch tensors' own memory
 * (addresses from Tensor.data_ptr()); nothing here copies them. Python
 * (nodeox/torch.py) holds the model, the data and the inner optimizer.
 *
 * One engine per process (MPI starts once). Calls that wait on peers or
 * sleep (emulated speeds) release the GIL.
 *
 * Under torchrun, init(comm=...) hands the engine Python's collectives
 * (nodeox/torch/_dist.py: torch.distributed, Gloo or NCCL) as a
 * nodeox_comm_ops_t: the functions below take the GIL, call the object's
 * method with the buffers' addresses and sizes (it wraps them as tensors,
 * without copies) and turn an exception into the engine's error text.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/nodeox_rt.h"
#include "runtime/rt_alloc.h"
#include "runtime/rt_speedrec.h"

static nodeox_rt_t *engine;
static rt_alloc_t engine_alloc; /* this rank's Slurm allocation (rt_alloc.h), for the speed record */
static nodeox_workload_t model; /* the caller's buffers, described */
static uint64_t model_pos;      /* samples consumed (checkpointed) */
static char model_name[64];
static char config_text[5][4096]; /* strings handed to the config */
static PyObject *engine_comm;     /* init(comm=...): the collectives' Python object, or NULL */

/* The pending exception as "Type: message" in err (cleared). */
static void _engine_comm_error(const char *method, char *err, size_t errlen)
{
	PyObject *type, *value, *tb;
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	PyObject *text = value ? PyObject_Str(value) : NULL;
	const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
	snprintf(err, errlen, "%s(): %s: %s", method, type ? ((PyTypeObject *)type)->tp_name : "error",
		 msg ? msg : "(no message)");
	Py_XDECREF(text);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
	PyErr_Clear();
}

/* engine_comm.method(*args built from fmt), with the GIL; its result
 * (new reference) or NULL with err. */
static PyObject *_engine_comm_call(const char *method, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	PyObject *args = Py_VaBuildValue(fmt, ap);
	va_end(ap);
	PyObject *fn = args ? PyObject_GetAttrString(engine_comm, method) : NULL;
	PyObject *r = fn ? PyObject_CallObject(fn, args) : NULL;
	Py_XDECREF(fn);
	Py_XDECREF(args);
	if (r == NULL)
		_engine_comm_error(method, err, errlen);
	return r;
}

static int _comm_start(int on_device, int *rank, int *world, char *err, size_t errlen)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r = _engine_comm_call("start", err, errlen, "(i)", on_device);
	int rc = r && PyArg_ParseTuple(r, "ii", rank, world) ? 0 : -1;
	if (r && rc != 0)
		_engine_comm_error("start", err, errlen);
	Py_XDECREF(r);
	PyGILState_Release(g);
	return rc;
}

static int _comm_allreduce(void *buf, size_t n, int dtype, int on_device, char *err, size_t errlen)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r =
		_engine_comm_call("allreduce", err, errlen, "(KKii)", (unsigned long long)(uintptr_t)buf,
				  (unsigned long long)n, dtype, on_device);
	Py_XDECREF(r);
	PyGILState_Release(g);
	return r ? 0 : -1;
}

static int _comm_allgather(const void *send, void *recv, size_t bytes, char *err, size_t errlen)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r =
		_engine_comm_call("allgather", err, errlen, "(KKK)", (unsigned long long)(uintptr_t)send,
				  (unsigned long long)(uintptr_t)recv, (unsigned long long)bytes);
	Py_XDECREF(r);
	PyGILState_Release(g);
	return r ? 0 : -1;
}

static int _comm_bcast(void *buf, size_t bytes, int root, char *err, size_t errlen)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r = _engine_comm_call("bcast", err, errlen, "(KKi)", (unsigned long long)(uintptr_t)buf,
					(unsigned long long)bytes, root);
	Py_XDECREF(r);
	PyGILState_Release(g);
	return r ? 0 : -1;
}

static int _comm_barrier(char *err, size_t errlen)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r = _engine_comm_call("barrier", err, errlen, "()");
	Py_XDECREF(r);
	PyGILState_Release(g);
	return r ? 0 : -1;
}

static const nodeox_comm_ops_t engine_comm_ops = {
	.name = "torch.distributed",
	.start = _comm_start,
	.allreduce_sum = _comm_allreduce,
	.allgather = _comm_allgather,
	.bcast = _comm_bcast,
	.barrier = _comm_barrier,
};

static uint64_t _engine_data_pos(nodeox_workload_t *w)
{
	(void)w;
	return model_pos;
}
static void _engine_data_seek(nodeox_workload_t *w, uint64_t pos)
{
	(void)w;
	model_pos = pos;
}
static void _engine_destroy(nodeox_workload_t *w)
{
	(void)w;
}

/* started: 1 needs a model attached, 2 also a round in progress (a step
 * after total_steps would end the process in the engine: say it here). */
static int _engine_need(int started)
{
	if (engine == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "nodeox.torch: call nxt.init() first");
		return -1;
	}
	if (started && model.params == NULL) {
		PyErr_SetString(PyExc_RuntimeError,
				"nodeox.torch: no model attached (create nxt.Rounds first)");
		return -1;
	}
	if (started == 2) {
		nodeox_rt_progress_t p;
		nodeox_rt_progress(engine, &p);
		if (!p.in_round) {
			PyErr_Format(PyExc_RuntimeError,
				     "nodeox.torch: step() after training ended (global step %ld reached "
				     "total_steps)",
				     p.global_step);
			return -1;
		}
	}
	return 0;
}

/* Open MPI loads its components with dlopen and expects libmpi's symbols to
 * be global; Python loads extensions RTLD_LOCAL. Promote the copy already
 * loaded (as mpi4py does). */
static void _engine_promote_mpi(void)
{
	Dl_info info;
	if (dladdr((void *)&MPI_Init_thread, &info) && info.dli_fname)
		dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

static const char *_engine_keep(int slot, const char *s)
{
	if (s == NULL)
		return NULL;
	snprintf(config_text[slot], sizeof config_text[slot], "%s", s);
	return config_text[slot];
}

/* init(backend, speeds or None, base_ms, fault_initial_s, fault_factor, fault_min_s, comm) */
static PyObject *engine_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "backend",      "speeds",      "base_ms", "fault_initial_s",
				 "fault_factor", "fault_min_s", "comm",    NULL };
	const char *backend = "cpu";
	PyObject *speeds = Py_None, *comm = Py_None;
	double base_ms = 20, f_init = 120, f_factor = 4, f_min = 15;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|sOddddO", names, &backend, &speeds, &base_ms, &f_init,
					 &f_factor, &f_min, &comm))
		return NULL;
	if (engine != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "nodeox.torch: init() called twice");
		return NULL;
	}
	if (!(base_ms > 0)) {
		PyErr_Format(PyExc_ValueError, "nodeox.torch.init: emulate_base_ms must be > 0, not %g",
			     base_ms);
		return NULL;
	}
	static nodeox_rt_config_t cfg;
	nodeox_rt_config_defaults(&cfg);
	cfg.backend = _engine_keep(0, backend);
	cfg.api = "nodeox.torch"; /* the engine's messages name the Python API */
	cfg.emulate_base_ms = base_ms;
	cfg.fault_initial_s = f_init;
	cfg.fault_factor = f_factor;
	cfg.fault_min_s = f_min;
	cfg.quiet = 1;
	if (speeds != Py_None) {
		PyObject *seq = PySequence_Fast(
			speeds, "nodeox.torch.init: emulate_speeds must be a list of numbers");
		if (seq == NULL)
			return NULL;
		Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
		if (n < 1 || n > NODEOX_RT_MAX_WORKERS) {
			Py_DECREF(seq);
			PyErr_Format(PyExc_ValueError,
				     "nodeox.torch.init: emulate_speeds has %zd entries (1..%d)", n,
				     NODEOX_RT_MAX_WORKERS);
			return NULL;
		}
		for (Py_ssize_t i = 0; i < n; i++) {
			double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
			if (PyErr_Occurred() || !(v > 0) || v > 1e6) {
				Py_DECREF(seq);
				PyErr_Clear();
				PyErr_Format(
					PyExc_ValueError,
					"nodeox.torch.init: emulate_speeds item %zd is not a positive number",
					i + 1);
				return NULL;
			}
			cfg.emulate_speeds[i] = v;
		}
		cfg.n_emulate_speeds = (int)n;
		Py_DECREF(seq);
	}
	if (comm != Py_None) { /* kept for the engine's life: the collectives call it */
		Py_INCREF(comm);
		Py_XDECREF(engine_comm);
		engine_comm = comm;
		cfg.comm_ops = &engine_comm_ops;
	}
	_engine_promote_mpi();
	rt_alloc_t alloc; /* GPU type and speed of the Slurm allocation, before MPI starts */
	rt_alloc_probe(&alloc, &cfg);
	engine = nodeox_rt_init(NULL, NULL, &cfg);
	rt_alloc_apply(engine, &alloc);
	engine_alloc = alloc;
	int rank = nodeox_rt_rank(engine);
	double speed = nodeox_rt_speed(engine, rank);
	return Py_BuildValue("{s:i,s:i,s:i,s:d,s:s,s:s,s:s}", "rank", rank, "world", nodeox_rt_world(engine),
			     "local_rank", nodeox_rt_local_rank(engine), "speed", speed, "backend",
			     nodeox_rt_backend(engine)->name, "gpu_type", alloc.gpu_type, "comm",
			     nodeox_rt_comm_name(engine));
}

/* attach(params, grads, n, **settings): describe the flat buffers (addresses
 * of n float32 each, backend memory) and start the engine on them. */
static PyObject *engine_attach(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "params",
				 "grads",
				 "n",
				 "mode",
				 "combine",
				 "local_steps",
				 "outer_lr",
				 "outer_momentum",
				 "plan",
				 "round_ms",
				 "sync_warmup",
				 "total_steps",
				 "warmup_steps",
				 "lr_min_ratio",
				 "batch_size",
				 "shard_size",
				 "checkpoint_dir",
				 "checkpoint_every",
				 "resume",
				 "verbose",
				 "name",
				 NULL };
	unsigned long long p_addr = 0, g_addr = 0, n = 0, shard = 1;
	const char *mode = "rounds", *combine = "fednova", *plan = "speed", *ckdir = NULL, *name = "torch";
	int H = 10, batch = 1, ck_every = 0, resume = 0, verbose = 0;
	long long sync_warmup = 60, total = 0, warmup = 0; /* defaults: nodeox/torch.py's */
	double outer_lr = 0.3, outer_mom = 0.7, round_ms = 0, lr_min = 1.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "KKK|ssiddsdLLLdiKzippz", names, &p_addr, &g_addr, &n,
					 &mode, &combine, &H, &outer_lr, &outer_mom, &plan, &round_ms,
					 &sync_warmup, &total, &warmup, &lr_min, &batch, &shard, &ckdir,
					 &ck_every, &resume, &verbose, &name))
		return NULL;
	if (_engine_need(0) != 0)
		return NULL;
	if (model.params != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "nodeox.torch: one Rounds per process");
		return NULL;
	}
	nodeox_rt_config_t *c = nodeox_rt_config(engine);
	if (strcmp(mode, "rounds") == 0)
		c->mode = NODEOX_MODE_ROUNDS;
	else if (strcmp(mode, "sync") == 0)
		c->mode = NODEOX_MODE_SYNC;
	else
		return PyErr_Format(PyExc_ValueError, "nodeox.torch.Rounds: mode '%s' (rounds or sync)",
				    mode);
	if (strcmp(combine, "mean") == 0)
		c->combine = NODEOX_COMBINE_MEAN;
	else if (strcmp(combine, "samples") == 0)
		c->combine = NODEOX_COMBINE_SAMPLES;
	else if (strcmp(combine, "fednova") == 0)
		c->combine = NODEOX_COMBINE_FEDNOVA;
	else
		return PyErr_Format(PyExc_ValueError,
				    "nodeox.torch.Rounds: combine '%s' (mean, samples or fednova)", combine);
	if (strcmp(plan, "speed") == 0)
		c->plan = NODEOX_PLAN_SPEED;
	else if (strcmp(plan, "time") == 0 && round_ms > 0)
		c->plan = NODEOX_PLAN_TIME;
	else if (strcmp(plan, "fixed") == 0)
		c->plan = NODEOX_PLAN_FIXED;
	else
		return PyErr_Format(
			PyExc_ValueError,
			"nodeox.torch.Rounds: plan '%s' (speed, fixed, or time with round_ms > 0)", plan);
	if (H < 1 || H > 1000000)
		return PyErr_Format(PyExc_ValueError, "nodeox.torch.Rounds: local_steps %d (1..1000000)", H);
	if (!(outer_lr > 0) || !(outer_mom >= 0 && outer_mom < 1))
		return PyErr_Format(
			PyExc_ValueError,
			"nodeox.torch.Rounds: outer_lr %g must be > 0, outer_momentum %g in [0, 1)", outer_lr,
			outer_mom);
	if (batch < 1 || shard < 1 || sync_warmup < 0 || total < 0 || warmup < 0 ||
	    !(lr_min >= 0 && lr_min <= 1))
		return PyErr_Format(
			PyExc_ValueError,
			"nodeox.torch.Rounds: batch_size and shard_size must be >= 1, sync_warmup, "
			"total_steps, warmup_steps >= 0, lr_min_ratio in [0, 1]");
	if (n == 0 || p_addr == 0 || g_addr == 0)
		return PyErr_Format(PyExc_ValueError, "nodeox.torch.Rounds: the model has no parameters");
	c->local_steps = H;
	c->outer_lr = outer_lr;
	c->outer_momentum = outer_mom;
	c->round_ms = round_ms;
	c->sync_warmup_steps = sync_warmup;
	/* no total: the caller's loop decides when to stop; the schedule is flat */
	c->total_steps = total > 0 ? total : (long)1 << 60;
	c->warmup_steps = total > 0 ? warmup : 0;
	c->lr = 1.0; /* the schedule is a factor on the optimizer's own lr */
	c->lr_min_ratio = total > 0 ? lr_min : 1.0;
	c->checkpoint_dir = _engine_keep(1, ckdir);
	c->checkpoint_every = ckdir ? (ck_every > 0 ? ck_every : 1) : 0;
	c->resume = resume;
	c->quiet = !verbose;
	c->eval_every = 0;
	c->target_acc = 0;
	c->inner = NODEOX_INNER_SGD; /* unused: the inner optimizer is torch's */

	snprintf(model_name, sizeof model_name, "%s", name);
	memset(&model, 0, sizeof model);
	model.name = model_name;
	model.nparams = (size_t)n;
	model.params = (float *)(uintptr_t)p_addr;
	model.grads = (float *)(uintptr_t)g_addr;
	model.be = nodeox_rt_backend(engine);
	model.batch_size = batch;
	model.shard_samples = shard;
	model.data_pos = _engine_data_pos;
	model.data_seek = _engine_data_seek;
	model.destroy = _engine_destroy;
	model.metric = "loss";
	model.metric_lower_is_better = 1;
	int resumed;
	Py_BEGIN_ALLOW_THREADS resumed = nodeox_rt_start(engine, &model, 1);
	Py_END_ALLOW_THREADS return PyBool_FromLong(resumed);
}

static PyObject *engine_grads(PyObject *self, PyObject *noargs)
{
	if (_engine_need(2) != 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS nodeox_rt_step_grads(engine, &model);
	Py_END_ALLOW_THREADS return PyFloat_FromDouble(nodeox_rt_step_lr(engine));
}

static PyObject *engine_end(PyObject *self, PyObject *args)
{
	double loss = 0;
	if (!PyArg_ParseTuple(args, "|d", &loss))
		return NULL;
	if (_engine_need(2) != 0)
		return NULL;
	int r;
	model_pos += (uint64_t)model.batch_size;
	Py_BEGIN_ALLOW_THREADS r = nodeox_rt_step_end(engine, &model, loss);
	Py_END_ALLOW_THREADS return PyLong_FromLong(r);
}

static PyObject *engine_pause(PyObject *self, PyObject *args)
{
	int on;
	if (!PyArg_ParseTuple(args, "p", &on))
		return NULL;
	if (_engine_need(0) != 0)
		return NULL;
	nodeox_rt_pause(engine, on);
	Py_RETURN_NONE;
}

static PyObject *engine_progress(PyObject *self, PyObject *noargs)
{
	if (_engine_need(1) != 0)
		return NULL;
	nodeox_rt_progress_t p;
	nodeox_rt_progress(engine, &p);
	int world = nodeox_rt_world(engine);
	PyObject *steps = PyList_New(world);
	if (steps == NULL)
		return NULL;
	for (int i = 0; i < world; i++)
		PyList_SET_ITEM(steps, i, PyLong_FromLong(p.steps_per_worker[i]));
	return Py_BuildValue("{s:l,s:l,s:l,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:d,s:d,s:d,s:l,s:N,s:K}", "round",
			     p.round, "global_step", p.global_step, "local_steps", p.local_steps, "in_round",
			     p.in_round, "step_in_round", p.step_in_round, "round_steps", p.round_steps,
			     "allreduce", p.allreduce, "last_finite", p.last_finite,
			     "checkpoint_at_round_end", p.checkpoint_at_round_end, "overruns", p.overruns,
			     "lr", p.lr, "critical_s", p.critical_s, "train_s", p.train_s, "dropped",
			     p.dropped, "steps_per_worker", steps, "data_pos", (unsigned long long)model_pos);
}

static PyObject *engine_result(PyObject *self, PyObject *noargs)
{
	if (_engine_need(1) != 0)
		return NULL;
	nodeox_rt_result_t r;
	Py_BEGIN_ALLOW_THREADS nodeox_rt_result(engine, &r);
	Py_END_ALLOW_THREADS return Py_BuildValue(
		"{s:l,s:l,s:d,s:d,s:l,s:d,s:K}", "rounds", r.rounds, "global_steps", r.global_steps,
		"critical_s", r.critical_s, "train_s", r.train_s, "dropped", r.dropped, "bytes_communicated",
		r.bytes_communicated, "params_fnv", (unsigned long long)r.params_fnv);
}

/* share(n): (first, count) of n items for this rank, by speed */
static PyObject *engine_share(PyObject *self, PyObject *args)
{
	unsigned long long n;
	if (!PyArg_ParseTuple(args, "K", &n))
		return NULL;
	if (_engine_need(0) != 0)
		return NULL;
	size_t first, count;
	nodeox_rt_share(engine, (size_t)n, &first, &count);
	return Py_BuildValue("(KK)", (unsigned long long)first, (unsigned long long)count);
}

/* Parse (addr, n) of a host buffer for a collective; -1 with an exception. */
static int _engine_host_buffer(PyObject *args, const char *what, unsigned long long *addr,
			       unsigned long long *n)
{
	if (!PyArg_ParseTuple(args, "KK", addr, n) || _engine_need(0) != 0)
		return -1;
	if (*addr == 0 && *n > 0) {
		PyErr_Format(PyExc_ValueError, "%s: null buffer", what);
		return -1;
	}
	return 0;
}

/* allreduce_host(addr, n): in-place sum over ranks of n float64 at addr (host) */
static PyObject *engine_allreduce_host(PyObject *self, PyObject *args)
{
	unsigned long long addr, n;
	if (_engine_host_buffer(args, "allreduce_host", &addr, &n) != 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS nodeox_rt_allreduce_host(engine, (double *)(uintptr_t)addr, (size_t)n);
	Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

/* bcast(addr, nbytes): rank 0's nbytes at addr (host memory) on every rank */
static PyObject *engine_bcast(PyObject *self, PyObject *args)
{
	unsigned long long addr, n;
	if (_engine_host_buffer(args, "bcast", &addr, &n) != 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS nodeox_rt_bcast_host(engine, (void *)(uintptr_t)addr, (size_t)n);
	Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

/* abort(code): end every rank of the job now (an exception on one rank:
 * the others would wait in their next collective until the deadline; under
 * torchrun this process ends and torchrun ends the others). */
static PyObject *engine_abort(PyObject *self, PyObject *args)
{
	int code = 1;
	if (!PyArg_ParseTuple(args, "|i", &code))
		return NULL;
	if (engine != NULL)
		nodeox_rt_abort(code);
	Py_RETURN_NONE;
}

static PyObject *engine_finalize(PyObject *self, PyObject *noargs)
{
	if (engine == NULL)
		Py_RETURN_NONE;
	/* the speed record (rt_speedrec.h), as nodeox-run leaves it: gathered
	 * while MPI runs, stored by rank 0 after; a failure is a warning */
	speedrec_t rec;
	char err[512];
	int record = 0, rc = 0;
	Py_BEGIN_ALLOW_THREADS record =
		rt_speedrec_gather(engine, &engine_alloc, (long)model.batch_size, &rec) > 0;
	nodeox_rt_finalize(engine);
	if (record)
		rc = rt_speedrec_store(&rec, err, sizeof err);
	Py_END_ALLOW_THREADS engine = NULL;
	Py_CLEAR(engine_comm); /* no collective after finalize */
	if (record && rc != 0)
		fprintf(stderr, "nodeox.torch: warning: speed record not stored in job %s's Comment: %s\n",
			getenv("SLURM_JOB_ID"), err);
	memset(&model, 0, sizeof model);
	Py_RETURN_NONE;
}

static PyMethodDef engine_methods[] = {
	{ "init", (PyCFunction)(void (*)(void))engine_init, METH_VARARGS | METH_KEYWORDS,
	  "Start MPI (or comm's collectives) and the engine; returns rank, world, local_rank, speed, "
	  "backend, gpu_type, comm." },
	{ "attach", (PyCFunction)(void (*)(void))engine_attach, METH_VARARGS | METH_KEYWORDS,
	  "Describe the flat parameter/gradient buffers and start training on them." },
	{ "grads", engine_grads, METH_NOARGS,
	  "After backward: all-reduce gradients in synchronous intervals; returns the lr factor." },
	{ "end", engine_end, METH_VARARGS,
	  "After the inner step: 0 mid-round, 1 round ended, 2 round ended and training is over." },
	{ "pause", engine_pause, METH_VARARGS, "pause(True) .. pause(False): time that is no step's." },
	{ "progress", engine_progress, METH_NOARGS, "Counters of the run so far (this rank)." },
	{ "result", engine_result, METH_NOARGS, "The run's figures (collective)." },
	{ "share", engine_share, METH_VARARGS, "(first, count) of n items for this rank, by speed." },
	{ "allreduce_host", engine_allreduce_host, METH_VARARGS, "In-place sum of float64 host memory." },
	{ "finalize", engine_finalize, METH_NOARGS, "Stop the engine and MPI." },
	{ "bcast", engine_bcast, METH_VARARGS, "bcast(addr, nbytes): rank 0's host bytes everywhere." },
	{ "abort", engine_abort, METH_VARARGS, "abort(code): end every rank (MPI_Abort)." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef engine_module = {
	PyModuleDef_HEAD_INIT,
	"nodeox._engine",
	"The C engine of nodeox.torch (runtime/nodeox_rt.h's step API).",
	-1,
	engine_methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

PyMODINIT_FUNC PyInit__engine(void)
{
	return PyModule_Create(&engine_module);
}
