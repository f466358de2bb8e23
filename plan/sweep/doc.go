// Package sweep runs a scenario over a grid of parameter values — the
// machinery behind "simulate sweep" and "simulate merge" — on common random
// numbers, in parallel, optionally split into shards that run on different
// machines and are merged afterwards with byte-identical results.
//
// A sweep is a Spec: a scenario, the varied keys (Axis, parsed by ParseAxis
// from "arrivals.rate=1/s..10/s:10" or "key=v1,v2"), and the replications
// per point (fixed, or a relative-error stop rule). Run executes it, or one
// deterministic slice of it (Spec.Shard of Spec.Shards), and returns a
// Record: per point, the warm-up used and every replication's serialised
// system.Result (EncodeResult; histograms in stats.Histogram's binary form).
// Records of all shards combine with Merge; Summarize pools a whole-sweep
// record into one summary.Summary per point; WriteCSV writes sweep.csv.
//
// A whole sweep on one machine need not keep its results: with
// Options.Result and Options.PointDone feeding a Summarizer, each
// replication is pooled into its point as it completes and each point is
// summarised when the stop rule closes it, so memory holds a few
// replications in flight and the pooled figures of the open points.
//
// Determinism: replication i of every point uses seed
// sim.ReplicationSeed(seed, i); results are pooled in replication order;
// the stop rule is checked after whole batches, on each point's own
// replications; and EncodeResult keeps everything the pooling reads, so a
// merge of shards pools the same values the single-machine path does.
// So sweep.csv and sweep.json depend only on the Spec, never on
// GOMAXPROCS, Options.Parallel or the number of shards.
//
// Warm-up: when a scenario fixes none, each point's warm-up is chosen by
// MSER-5 on a pilot replication (DetectWarmup), since the transient grows
// with the load.
//
// Files (written by cmd/simulate):
//
//   - sweep.csv: CSVHeader, one line per point.
//   - sweep.json: a JSON array of PointFile: {"provenance": …, "point":
//     {key: value, …}, "warmup": {runs, source, note}, "summary":
//     summary.Summary}, built by Provenance.
//   - shard-i-of-n.json (ShardFile): a Record as JSON lines, format
//     Format: a header, one line per point, each with its CRC-32C, and a
//     trailer with the SHA-256 of the file (Record.WriteTo). ReadRecord
//     and ShardReader refuse any damage; MergeShards merges files point by
//     point, and a point's replications one at a time, in replication
//     order across the shards.
//
// The package returns data: internal/render/sweeps prints the summaries
// as "simulate sweep" shows them, and the caveats a reader of sweep.json
// alone must not miss.
package sweep
