#!/usr/bin/python3
"""M/M/c in Ciw: a second reference model for budgetsim's performance comparison.

The same system as bench/simpy_mmc.py and `simulate run mmc --set warmup=0`:
Poisson arrivals at rate LAMBDA, C servers, exponential service at rate MU,
N customers, all measured. Uses the Ciw >= 2 API (ciw.dists objects,
Simulation.simulate_until_max_customers with method="Finish", which runs
until N customers have left the system).

Output is the same "key value" lines as simpy_mmc.py (events = 2 per
customer: arrival + departure).

Ciw is not packaged by Debian and cannot be installed here; bench/run.sh runs
this script only when `python3 -c 'import ciw'` succeeds.
"""

import argparse
import sys
import time

try:
    import ciw
except ImportError:
    sys.exit("ciw_mmc.py: ciw is not importable by %s (pip install ciw)" % sys.executable)


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

    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=args.rate)],
        service_distributions=[ciw.dists.Exponential(rate=args.mu)],
        number_of_servers=[args.servers],
    )
    ciw.seed(args.seed)
    sim = ciw.Simulation(network)

    t0 = time.perf_counter()
    sim.simulate_until_max_customers(args.customers, method="Finish")
    wall = time.perf_counter() - t0

    recs = sim.get_all_records()
    sojourns = [r.exit_date - r.arrival_date for r in recs]
    events = 2 * len(recs)
    print("customers", len(recs))
    print("events", events)
    print("wall_s %.3f" % wall)
    print("events_per_s %.0f" % (events / wall))
    print("mean_sojourn_s %.4f" % (sum(sojourns) / len(sojourns)))
    print("ciw_version", getattr(ciw, "__version__", "unknown"))


if __name__ == "__main__":
    main()
