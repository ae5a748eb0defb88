/*
 * rt_fault.c: bounded exit when a peer dies or hangs.
 *
 * A collective waits for every rank, so one dead worker would hang the rest
 * forever (Open MPI's shared-memory transport never reports a dead peer).
 * Every collective is "armed" here before it starts; a watchdog thread
 * checks every 100 ms whether the armed collective has passed its deadline
 * and, if so, prints what was waited for and where, and _exit()s with
 * NODEOX_RT_EXIT_PEER_LOST (the MPI library is not thread-safe here, so the
 * watchdog never calls into it). The deadline follows observed round times
 * instead of a fixed guess: fault_factor * (longest round so far) +
 * fault_min_s, and fault_initial_s before the first round has finished.
 * Rare slow phases that peers wait for (evaluation on rank 0, checkpoint
 * writes) run "relaxed": the deadline is then at least fault_initial_s, so
 * a first checkpoint of a big model is not taken for a lost peer.
 * MPI errors that do get reported (MPI_ERRORS_RETURN) are handled by
 * rt_comm's mpiCheck.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	int running;
	int stop;
	int rank;
	double initial_s, factor, min_s;
	double longest_round_s; /* 0 until a round was observed */
	int relaxed;
	/* the armed collective */
	int armed;
	double armed_at;
	const char *what, *file;
	int line;
} fault = { .lock = PTHREAD_MUTEX_INITIALIZER };

double rt_fault_deadline_s(void)
{
	pthread_mutex_lock(&fault.lock);
	double d = fault.longest_round_s > 0 ? fault.factor * fault.longest_round_s + fault.min_s
					     : fault.initial_s;
	if (fault.relaxed && d < fault.initial_s)
		d = fault.initial_s;
	pthread_mutex_unlock(&fault.lock);
	return d;
}

static void *_fault_watch(void *arg)
{
	(void)arg;
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	for (;;) {
		nanosleep(&tick, NULL);
		double deadline = rt_fault_deadline_s();
		pthread_mutex_lock(&fault.lock);
		if (fault.stop) {
			pthread_mutex_unlock(&fault.lock);
			return NULL;
		}
		double waited = fault.armed ? rt_util_clock_s() - fault.armed_at : 0;
		if (fault.armed && waited > deadline) {
			fflush(stdout);
			rt_util_say(fault.rank,
				    "%s at %s:%d waited %.1f s, past the deadline of "
				    "%.1f s (%s); a peer has died or hangs, exiting with code %d",
				    fault.what, fault.file, fault.line, waited, deadline,
				    fault.longest_round_s > 0 ? "factor x longest round + minimum"
							      : "initial deadline, no round observed yet",
				    NODEOX_RT_EXIT_PEER_LOST);
			_exit(NODEOX_RT_EXIT_PEER_LOST);
		}
		pthread_mutex_unlock(&fault.lock);
	}
}

int rt_fault_start(int rank, double initial_s, double factor, double min_s)
{
	fault.rank = rank;
	fault.initial_s = initial_s;
	fault.factor = factor;
	fault.min_s = min_s;
	fault.stop = 0;
	if (pthread_create(&fault.thread, NULL, _fault_watch, NULL) != 0)
		return -1;
	fault.running = 1;
	return 0;
}

void rt_fault_arm(const char *what, const char *file, int line)
{
	pthread_mutex_lock(&fault.lock);
	fault.armed = 1;
	fault.armed_at = rt_util_clock_s();
	fault.what = what;
	fault.file = file;
	fault.line = line;
	pthread_mutex_unlock(&fault.lock);
}

void rt_fault_disarm(void)
{
	pthread_mutex_lock(&fault.lock);
	fault.armed = 0;
	pthread_mutex_unlock(&fault.lock);
}

void rt_fault_observe_round(double seconds)
{
	pthread_mutex_lock(&fault.lock);
	if (seconds > fault.longest_round_s)
		fault.longest_round_s = seconds;
	pthread_mutex_unlock(&fault.lock);
}

void rt_fault_relax(int on)
{
	pthread_mutex_lock(&fault.lock);
	fault.relaxed = on;
	pthread_mutex_unlock(&fault.lock);
}

void rt_fault_stop(void)
{
	if (!fault.running)
		return;
	pthread_mutex_lock(&fault.lock);
	fault.stop = 1;
	pthread_mutex_unlock(&fault.lock);
	pthread_join(fault.thread, NULL);
	fault.running = 0;
}
