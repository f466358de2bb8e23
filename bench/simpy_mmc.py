#!/usr/bin/python3
"""M/M/c in SimPy 3: the reference model for budgetsim's performance comparison.

The same system as `simulate run mmc --set warmup=0`: Poisson arrivals at
rate LAMBDA, C servers held as a simpy.Resource (FIFO), exponential service
at rate MU, N customers, every customer measured (no warm-up discarded).
Arrivals and services draw from two separate random.Random streams, as
budgetsim does.

The model is written the way the SimPy documentation writes it (one process
per customer, `with server.request()`, `env.timeout` for service) and runs
until the system is empty, so every one of the N customers departs.

Output, one "key value" line each (bench/run.sh reads them with awk):

    customers        N
    events           2N: one arrival plus one departure per customer, the
                     same counting as budgetsim's 2 events per run (SimPy
                     itself schedules more internal events than that)
    wall_s           seconds spent in env.run() (the whole process, start-up
                     included, is what run.sh times from outside)
    events_per_s     events / wall_s
    mean_sojourn_s   mean time in system (wait + service), seconds
    erlang_c_sojourn_s  the closed-form mean sojourn for comparison:
                     W = 1/mu + C(c, a) / (c*mu - lambda), a = lambda/mu,
                     C the Erlang C probability of waiting (Kleinrock,
                     Queueing Systems vol. 1, 1975, eq. 3.42)
    simpy_version    SimPy's version
    peak_rss_kib     this process's peak resident set, KiB (getrusage)

Run with Debian's interpreter and package: /usr/bin/python3 with
python3-simpy3 (apt-get install python3-simpy3).
"""

import argparse
import math
import random
import resource
import sys
import time

try:
    import simpy
except ImportError:
    sys.exit("simpy_mmc.py: simpy is not importable by %s "
             "(apt-get install python3-simpy3, then run /usr/bin/python3)"
             % sys.executable)


def erlang_c_sojourn(lam, mu, c):
    """Closed-form mean sojourn of M/M/c (Erlang C), in the time unit of 1/mu."""
    a = lam / mu
    rho = a / c
    if rho >= 1:
        return math.inf
    # sum_{k<c} a^k/k!, computed iteratively to avoid large factorials.
    term, head = 1.0, 0.0
    for k in range(c):
        head += term
        term *= a / (k + 1)
    tail = term / (1 - rho)  # a^c/c! * 1/(1-rho)
    p_wait = tail / (head + tail)
    return 1 / mu + p_wait / (c * mu - lam)


def customer(env, server, mu, svc, stats):
    """One customer: queue for a server, hold it for an exponential service."""
    arrived = env.now
    with server.request() as req:
        yield req
        yield env.timeout(svc.expovariate(mu))
    stats[0] += env.now - arrived
    stats[1] += 1


def source(env, n, lam, mu, server, arr, svc, stats):
    """Poisson arrivals: n customers with exponential inter-arrival times."""
    for _ in range(n):
        yield env.timeout(arr.expovariate(lam))
        env.process(customer(env, server, mu, svc, stats))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--customers", type=int, default=1_000_000)
    p.add_argument("--rate", type=float, default=9.0, help="arrival rate lambda, per second")
    p.add_argument("--mu", type=float, default=1.0, help="service rate per server, per second")
    p.add_argument("--servers", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if args.customers < 1:
        p.error("--customers: must be >= 1, got %d" % args.customers)

    arr = random.Random(args.seed)
    svc = random.Random(args.seed + 1)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=args.servers)
    stats = [0.0, 0]  # sojourn sum (s), departed
    env.process(source(env, args.customers, args.rate, args.mu, server, arr, svc, stats))

    t0 = time.perf_counter()
    env.run()
    wall = time.perf_counter() - t0

    if stats[1] != args.customers:
        sys.exit("simpy_mmc.py: %d of %d customers departed" % (stats[1], args.customers))
    events = 2 * args.customers
    print("customers", args.customers)
    print("events", events)
    print("wall_s %.3f" % wall)
    print("events_per_s %.0f" % (events / wall))
    print("mean_sojourn_s %.4f" % (stats[0] / stats[1]))
    print("erlang_c_sojourn_s %.4f" % erlang_c_sojourn(args.rate, args.mu, args.servers))
    print("simpy_version", getattr(simpy, "__version__", "unknown"))
    # Peak resident set of this process, KiB on Linux (what GNU time's %M
    # reports for it): run.sh times this process without a wrapper.
    print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    main()
