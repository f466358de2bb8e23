#!/usr/bin/python3
"""Check that the SimPy reference models compute what budgetsim computes.

A speed ratio between two models is worth something only if they simulate
the same system. For each general scenario this script runs budgetsim with
R replications (`simulate run X --replications R --format json`, which
reports a Student t interval across replications) and the SimPy model
(bench/simpy_calls.py) with R seeds, and compares the success rate and the
mean latency of completed runs: the difference of the two means must lie
within its own 95 % interval (Welch's t, each side's standard error from
its replications), that is, the two models must be statistically
indistinguishable on R replications each. It prints one line per figure
and exits 1 if any differs. Four comparisons at 95 % each flag a figure
by chance in roughly one run in six even when the models agree (less
often, as the two figures of a scenario move together): a difference is
a reason to rerun with more replications, and a semantic difference
shows as one that stays.

Usage (bench/run.sh runs it before timing anything):

    /usr/bin/python3 bench/check_models.py --simulate PATH/TO/simulate [--replications 20]

Both scenarios run at their files' sizes (tool-queue 200 000 arrivals,
retry-storm 240 s), about three minutes of SimPy with 20 replications.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Student t quantiles t(0.975, df), df = 1..30 (any statistics table, e.g.
# NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.2); beyond
# 30 the normal quantile 1.96 is within 2 %, and using the df = 30 value
# there is conservative.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[min(max(int(df), 1), 30) - 1]


# scenario name: (budgetsim arguments, SimPy arguments)
CASES = {
    "tool-queue": (["run", os.path.join(HERE, "tool-queue.yaml")],
                   ["tool-queue"]),
    "retry-storm": (["run", "retry-storm"], ["retry-storm"]),
}


def budgetsim(simulate, args, reps):
    out = subprocess.run([simulate] + args + ["--replications", str(reps), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    ci = d["confidence"]
    if ci["replications"] != reps:
        sys.exit("check_models.py: budgetsim reported %d replications, want %d" % (ci["replications"], reps))
    t = t975(reps - 1)
    figs = {}
    for name, point, iv in (("success_rate", d["success_rate"], ci["success_rate"]),
                            ("mean_latency_s", d["latency_s"]["mean"], ci["latency_s"]["mean"])):
        # The interval is mean ± t·se across replications; its centre is the
        # mean of the replications' figures.
        centre = (iv["lo"] + iv["hi"]) / 2
        figs[name] = (centre, (iv["hi"] - iv["lo"]) / 2 / t, point)
    return figs


def simpy(args, reps):
    per = {"success_rate": [], "mean_latency_s": []}
    for seed in range(1, reps + 1):
        out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "simpy_calls.py")] + args + ["--seed", str(seed)],
                             check=True, capture_output=True, text=True).stdout
        kv = dict(line.split(" ", 1) for line in out.splitlines())
        for k in per:
            per[k].append(float(kv[k]))
    return {k: (statistics.fmean(v), statistics.stdev(v) / math.sqrt(len(v)), None) for k, v in per.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simulate", required=True, help="path to the simulate binary")
    ap.add_argument("--replications", type=int, default=20)
    ap.add_argument("--scenario", choices=sorted(CASES), action="append",
                    help="check only this scenario (repeatable; default: all)")
    args = ap.parse_args()
    if args.replications < 2:
        ap.error("--replications: must be >= 2 (an interval needs two), got %d" % args.replications)
    ok = True
    for name in args.scenario or sorted(CASES):
        bargs, sargs = CASES[name]
        b = budgetsim(args.simulate, bargs, args.replications)
        s = simpy(sargs, args.replications)
        for fig in ("success_rate", "mean_latency_s"):
            (mb, seb, _), (ms, ses, _) = b[fig], s[fig]
            se = math.hypot(seb, ses)
            # Welch–Satterthwaite degrees of freedom of the difference.
            n = args.replications
            df = se ** 4 / ((seb ** 4 + ses ** 4) / (n - 1)) if se > 0 else n - 1
            half = t975(df) * se
            agree = abs(mb - ms) <= half
            ok = ok and agree
            print("%-12s %-15s budgetsim %.5f ± %.5f  SimPy %.5f ± %.5f  difference %+.5f, 95%% interval ±%.5f: %s"
                  % (name, fig, mb, t975(n - 1) * seb, ms, t975(n - 1) * ses, mb - ms, half,
                     "agree" if agree else "DIFFER"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
