#!/usr/bin/python3
"""Runs calling a capacity-bound tool under timeouts, retries and a deadline, in SimPy 3.

The reference models for budgetsim's general path (bench/README.md): the
same semantics as `simulate run`, written the way the SimPy documentation
writes models (a process per run, the tool's servers as a simpy.Resource,
`env.timeout` for every delay, `event | timeout` for a call with a
timeout). Two scenarios:

  tool-queue   bench/tool-queue.yaml: Poisson arrivals, a tool with 10
               servers and a waiting room of 20 (a full room answers 503 at
               once), 300 ms attempt timeouts, 4 attempts with capped
               exponential backoff and full jitter, a 1 s run deadline.
  retry-storm  scenarios/retry-storm.yaml: the same mechanism with an
               unbounded waiting room, 1 s timeouts, 3 attempts, a 5 s
               deadline, and a stall of the tool from 60 s to 70 s.

The semantics, as budgetsim's model/system implements them:

- A run arrives, is measured unless it is in the warm-up, and starts at
  once (workers exceed the runs ever in the system).
- Each attempt gets a lease min(timeout, deadline - now); none is left:
  the run ends refused.
- The call joins the tool: a free server starts it, else it waits in the
  FIFO waiting room; a full room answers 503 (transient) at once.
- The caller waits for the reply or its lease, whichever comes first. On
  a timeout the request stays at the tool, which serves it anyway (the
  tool is not deadline-aware: wasted work).
- A failed attempt retries after U * min(cap, base * multiplier^(n-1)) (full
  jitter, U uniform, n the attempt that failed) if attempts remain and
  the sleep leaves a lease before the deadline. Otherwise the run ends:
  deadline exceeded when the sleep did not fit or the attempt that timed
  out had a lease cut short by the deadline, failed otherwise.
- A stall: from its start to its end the tool starts no new work (calls
  in service finish; new calls queue).

Output, one "key value" line each (bench/run.sh and bench/check_models.py
read them): the measured runs by outcome, their attempts, success_rate
(completed / arrived), mean_latency_s (mean arrival-to-completion time of
completed runs), wall_s (inside env.run(): the whole process is what
run.sh times from outside) and peak_rss_kib (getrusage).

Run with Debian's interpreter and package: /usr/bin/python3 with
python3-simpy3 (apt-get install python3-simpy3).
"""

import argparse
import random
import resource
import sys
import time

try:
    import simpy
except ImportError:
    sys.exit("simpy_calls.py: simpy is not importable by %s "
             "(apt-get install python3-simpy3, then run /usr/bin/python3)"
             % sys.executable)

# The scenarios, field by field as in their YAML files (seconds, per second).
SCENARIOS = {
    "tool-queue": dict(
        rate=80.0, runs=200_000, warmup_runs=10_000, horizon=None, warmup_time=0.0,
        deadline=1.0, attempts=4, base=0.020, multiplier=2.0, cap=0.400,
        timeout=0.300, mean_latency=0.100, servers=10, room=20, stall=None),
    "retry-storm": dict(
        rate=90.0, runs=None, warmup_runs=0, horizon=240.0, warmup_time=30.0,
        deadline=5.0, attempts=3, base=0.050, multiplier=2.0, cap=1.0,
        timeout=1.0, mean_latency=0.100, servers=10, room=None, stall=(60.0, 70.0)),
}


class Tool:
    """The tool: its servers (a Resource, FIFO) and an optional stall."""

    def __init__(self, env, p):
        self.env = env
        self.servers = simpy.Resource(env, capacity=p["servers"])
        self.room = p["room"]
        self.stalled = False
        self.unstalled = None  # an event triggered when a stall ends

    def full(self):
        """True when a new call would find every server busy and no room."""
        s = self.servers
        return self.room is not None and s.count >= s.capacity and len(s.queue) >= self.room

    def serve(self, latency, reply):
        """One request: wait for a server, hold it for latency, reply."""
        with self.servers.request() as req:
            yield req
            # A stall starts no new work: a request given a server during
            # it starts when it ends (the servers it holds are idle).
            while self.stalled:
                yield self.unstalled
            yield self.env.timeout(latency)
        if not reply.triggered:
            reply.succeed()

    def stall(self, start, end):
        yield self.env.timeout(start)
        self.stalled = True
        self.unstalled = self.env.event()
        yield self.env.timeout(end - start)
        self.stalled = False
        self.unstalled.succeed()


def run(env, p, tool, svc, jit, measured, stats):
    """One run: attempts at the tool under its deadline, retried with backoff."""
    arrived = env.now
    deadline = arrived + p["deadline"]
    timeout = p["timeout"]
    attempt = 1
    while True:
        avail = deadline - env.now
        if avail <= 0:
            outcome = "refused"
            break
        lease = min(timeout, avail)
        stats["attempts"] += measured
        if tool.full():
            ok, timed_out = False, False  # 503 at once
        else:
            reply = env.event()
            env.process(tool.serve(svc.expovariate(1 / p["mean_latency"]), reply))
            yield reply | env.timeout(lease)
            ok = reply.triggered
            timed_out = not ok
        if ok:
            outcome = "completed"
            break
        sleep = None
        if attempt < p["attempts"]:
            ceiling = min(p["cap"], p["base"] * p["multiplier"] ** (attempt - 1))
            sleep = jit.random() * ceiling
            if deadline - (env.now + sleep) <= 0:
                outcome = "deadline_exceeded"  # the sleep would leave no lease
                break
        if sleep is None:
            outcome = "deadline_exceeded" if timed_out and lease < timeout else "failed"
            break
        yield env.timeout(sleep)
        attempt += 1
    if measured:
        stats[outcome] += 1
        if outcome == "completed":
            stats["latency_sum"] += env.now - arrived


def source(env, p, tool, arr, svc, jit, stats):
    """Poisson arrivals until the count or the horizon is reached."""
    n = 0
    t = 0.0
    while p["runs"] is None or n < p["runs"]:
        t += arr.expovariate(p["rate"])
        if p["horizon"] is not None and t >= p["horizon"]:
            return
        yield env.timeout(t - env.now)
        measured = n >= p["warmup_runs"] and t >= p["warmup_time"]
        stats["arrived"] += measured
        env.process(run(env, p, tool, svc, jit, measured, stats))
        n += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, help="arrivals, warm-up included (tool-queue)")
    ap.add_argument("--horizon", type=float, help="seconds of arrivals (retry-storm)")
    args = ap.parse_args()
    p = dict(SCENARIOS[args.scenario])
    if args.runs is not None:
        if p["runs"] is None or args.runs < 1:
            ap.error("--runs: applies to tool-queue, must be >= 1")
        p["runs"] = args.runs
    if args.horizon is not None:
        if p["horizon"] is None or args.horizon <= 0:
            ap.error("--horizon: applies to retry-storm, must be > 0")
        p["horizon"] = args.horizon

    # One stream per component, as budgetsim keeps them.
    arr = random.Random(args.seed * 3)
    svc = random.Random(args.seed * 3 + 1)
    jit = random.Random(args.seed * 3 + 2)
    env = simpy.Environment()
    tool = Tool(env, p)
    if p["stall"] is not None:
        env.process(tool.stall(*p["stall"]))
    stats = dict(arrived=0, completed=0, failed=0, deadline_exceeded=0, refused=0,
                 attempts=0, latency_sum=0.0)
    env.process(source(env, p, tool, arr, svc, jit, stats))

    t0 = time.perf_counter()
    env.run()
    wall = time.perf_counter() - t0

    done = sum(stats[k] for k in ("completed", "failed", "deadline_exceeded", "refused"))
    if done != stats["arrived"]:
        sys.exit("simpy_calls.py: %d of %d measured runs ended" % (done, stats["arrived"]))
    print("scenario", args.scenario)
    print("seed", args.seed)
    for k in ("arrived", "completed", "failed", "deadline_exceeded", "refused", "attempts"):
        print(k, stats[k])
    print("success_rate %.6f" % (stats["completed"] / stats["arrived"]))
    print("mean_latency_s %.6f" % (stats["latency_sum"] / max(stats["completed"], 1)))
    print("wall_s %.3f" % wall)
    print("simpy_version", getattr(simpy, "__version__", "unknown"))
    print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    main()
