#!/usr/bin/env bash
# notebooks.sh executes the notebooks under notebooks/ (Jupyter with the GoNB
# Go kernel) and fails if any of them failed. It installs what they need when
# it is missing, so it is safe to run again and again:
#
#   - Debian's Jupyter (jupyter-nbconvert, python3-nbclient, jupyter-client,
#     python3-ipykernel), with apt-get, only if a package is missing;
#   - GoNB v0.11.1 and goimports v0.52.0 (GoNB runs goimports on every cell),
#     with go install into $(go env GOPATH)/bin, only if absent or another
#     version;
#   - a kernelspec for GoNB in a temporary JUPYTER_PATH (nothing is written
#     to ~/.local/share/jupyter).
#
# Usage:
#   scripts/notebooks.sh                  execute every notebooks/*.ipynb
#   scripts/notebooks.sh NB.ipynb ...     execute only these
#   scripts/notebooks.sh --update [NB...] execute, check, then write the
#                                         executed notebooks (with their
#                                         outputs) back in place
#   scripts/notebooks.sh --self-test      prove the checker works: the
#                                         notebooks under scripts/testdata that
#                                         panic, exit non-zero or do not compile
#                                         must fail, and ok.ipynb must pass
#   scripts/notebooks.sh --check FILE...  only check already executed notebooks
#
# Notebooks are executed into a temporary directory (KEEP=dir keeps the
# executed copies there instead); the sources are not touched unless --update.
# One line per notebook gives the verdict and the wall time; exit status 1 if
# any notebook failed, 2 for a usage mistake.
#
# Why a checker: nbconvert exits 0 when a cell panics or calls os.Exit (only
# compile errors fail it), so every executed notebook is scanned: an output of
# type "error", a stderr stream mentioning a panic, an error or an exit
# status, or a code cell that was not executed fails the run.
#
# The notebooks find the project through $PROJECT_DIR (exported here), which
# their first cell turns into a `go mod edit -replace`.
set -euo pipefail

caller=$(pwd)
cd "$(dirname "$0")/.."
PROJECT_DIR=$(pwd)
export PROJECT_DIR
export PATH="/usr/local/go/bin:$PATH"
GOBIN_DIR=$(go env GOBIN)
GOBIN_DIR=${GOBIN_DIR:-$(go env GOPATH)/bin}
export PATH="$GOBIN_DIR:$PATH"

GONB_VERSION=v0.11.1
GOIMPORTS_VERSION=v0.52.0 # golang.org/x/tools
APT_PACKAGES=(jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel)
# Debian's Jupyter lives in Debian's python; another python3 may come first on
# PATH (pyenv), so name them by path.
PY=/usr/bin/python3
JUPYTER=/usr/bin/jupyter

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
log() { printf '%s\n' "$*" >&2; }

# modversion BIN MODULE prints the version of MODULE that the Go binary BIN
# was built from, or nothing.
modversion() {
	local bin
	bin=$(command -v "$1" 2>/dev/null) || return 0
	go version -m "$bin" 2>/dev/null | awk -v m="$2" '($1 == "mod" || $1 == "dep") && $2 == m { print $3; exit }'
}

install_apt() {
	local missing=() p
	for p in "${APT_PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
			missing+=("$p")
		fi
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "== apt-get install ${missing[*]}"
		local sudo=()
		[ "$(id -u)" = 0 ] || sudo=(sudo)
		"${sudo[@]}" apt-get update -qq
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

install_go_tools() {
	if [ "$(modversion goimports golang.org/x/tools)" != "$GOIMPORTS_VERSION" ]; then
		log "== go install goimports@$GOIMPORTS_VERSION"
		go install "golang.org/x/tools/cmd/goimports@$GOIMPORTS_VERSION"
	fi
	if [ "$(modversion gonb github.com/janpfeifer/gonb)" != "$GONB_VERSION" ]; then
		# `go install github.com/janpfeifer/gonb@v0.11.1` is refused here
		# (the proxy will not list gonb's versions), but fetching the exact
		# version into a throwaway module works.
		log "== go install gonb@$GONB_VERSION"
		local d
		d=$(mktemp -d)
		(cd "$d" && go mod init tmp/gonbinstall >/dev/null 2>&1 &&
			go get "github.com/janpfeifer/gonb@$GONB_VERSION" &&
			go install github.com/janpfeifer/gonb)
		rm -rf "$d"
	fi
}

# setup_kernel writes GoNB's kernelspec into a fresh JUPYTER_PATH.
setup_kernel() {
	local gonb
	gonb=$(command -v gonb)
	mkdir -p "$TMP/jupyter/kernels/gonb"
	cat >"$TMP/jupyter/kernels/gonb/kernel.json" <<EOF
{
  "argv": ["$gonb", "--kernel", "{connection_file}", "--logtostderr", "--raw_error"],
  "display_name": "Go (gonb)",
  "language": "go"
}
EOF
	export JUPYTER_PATH="$TMP/jupyter"
	# Keep Jupyter's runtime files (connection files) out of the home dir.
	export JUPYTER_RUNTIME_DIR="$TMP/runtime"
}

# check FILE... scans executed notebooks for failed cells; it prints one line
# per problem and exits 1 if there is any.
check() {
	"$PY" - "$@" <<'PYEOF'
import json, re, sys

# Words that mean a cell failed when they show up on stderr: a Go panic, a
# non-zero exit reported by GoNB ("exit status 3"), a compile or go-command
# error, a fatal runtime error.
BAD = re.compile(r"panic:|exit status [1-9]|\berror\b|fatal error|\bFAIL\b", re.I)

def text(x):
    return "".join(x) if isinstance(x, list) else (x or "")

failed = False
for path in sys.argv[1:]:
    problems = []
    try:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
    except (OSError, ValueError) as e:
        problems.append("cannot read: %s" % e)
        nb = {"cells": []}
    kernel = nb.get("metadata", {}).get("kernelspec", {}).get("name")
    if nb.get("cells") and kernel != "gonb":
        problems.append("kernelspec is %r, want 'gonb'" % kernel)
    code = 0
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code" or not text(cell.get("source")).strip():
            continue
        code += 1
        where = "cell %d" % i
        if cell.get("execution_count") is None:
            problems.append("%s: not executed" % where)
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error":
                problems.append("%s: %s: %s" % (where, out.get("ename"), out.get("evalue")))
            elif kind == "stream" and out.get("name") == "stderr":
                t = text(out.get("text"))
                if BAD.search(t):
                    first = next((l for l in t.splitlines() if BAD.search(l)), "")
                    problems.append("%s: stderr: %s" % (where, first.strip()[:200]))
            else:
                for mime, data in (out.get("data") or {}).items():
                    if "panic:" in text(data):
                        problems.append("%s: %s output contains a panic" % (where, mime))
    if code == 0:
        problems.append("no code cells")
    for p in problems:
        print("%s: %s" % (path, p))
    failed = failed or bool(problems)
sys.exit(1 if failed else 0)
PYEOF
}

# execute SRC OUTDIR executes the notebook SRC into OUTDIR/basename, checks
# it and prints one line with the verdict and the wall time. It returns
# non-zero if nbconvert or the check failed.
execute() {
	local src=$1 outdir=$2 name start status=ok
	name=$(basename "$src")
	start=$(now)
	# The kernel runs in the notebook's own directory, so relative paths in
	# it (data/latencies.txt) resolve as they do in Jupyter.
	if ! "$JUPYTER" nbconvert --to notebook --execute \
		--ExecutePreprocessor.timeout=600 \
		--ExecutePreprocessor.record_timing=False \
		--output-dir "$outdir" --output "$name" "$src" >"$outdir/$name.log" 2>&1; then
		status=FAIL
		sed 's/^/    /' "$outdir/$name.log" | tail -n 30 >&2
	fi
	# pipefail: the pipeline fails when check does.
	if [ "$status" = ok ] && ! check "$outdir/$name" | sed 's/^/    /' >&2; then
		status=FAIL
	fi
	printf '%-4s %-34s %6s s\n' "$status" "$name" "$(since "$start")"
	[ "$status" = ok ]
}

mode=run
case "${1:-}" in
--self-test) mode=selftest; shift ;;
--update) mode=update; shift ;;
--check) shift; cd "$caller"; check "$@"; exit ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
-*) log "notebooks.sh: unknown flag $1 (see --help)"; exit 2 ;;
esac

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

start=$(now)
install_apt
install_go_tools
setup_kernel
log "== tools ready in $(since "$start") s (gonb $(modversion gonb github.com/janpfeifer/gonb), goimports $(modversion goimports golang.org/x/tools), $(go version | cut -d' ' -f3))"

# abspath resolves a path the caller gave against the caller's directory.
abspath() { case $1 in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }

if [ -n "${KEEP:-}" ]; then
	KEEP=$(abspath "$KEEP")
	mkdir -p "$KEEP"
	OUT=$(cd "$KEEP" && pwd)
else
	OUT="$TMP/out"
	mkdir -p "$OUT"
fi

if [ "$mode" = selftest ]; then
	# The good notebook must pass; each bad one must fail, and fail for
	# the reason it was written for.
	rc=0
	execute scripts/testdata/ok.ipynb "$OUT" || { log "self-test: ok.ipynb should pass"; rc=1; }
	for bad in panic:'panic: deliberate failure' exit:'exit status 3' compile:'undefined: notDefined'; do
		nb=${bad%%:*} want=${bad#*:}
		if execute "scripts/testdata/$nb.ipynb" "$OUT" 2>"$OUT/$nb.err"; then
			log "self-test: $nb.ipynb passed the checker, want a failure"; rc=1
		elif ! grep -q "$want" "$OUT/$nb.err"; then
			log "self-test: $nb.ipynb failed without mentioning '$want':"; cat "$OUT/$nb.err" >&2; rc=1
		else
			log "    (expected) $(grep -m1 "$want" "$OUT/$nb.err" | sed 's/^ *//')"
		fi
	done
	[ $rc = 0 ] && echo "self-test passed" || echo "self-test FAILED"
	exit $rc
fi

if [ $# -gt 0 ]; then
	notebooks=()
	for nb in "$@"; do
		notebooks+=("$(abspath "$nb")")
	done
else
	notebooks=(notebooks/*.ipynb)
fi
failed=0
stale=()
for nb in "${notebooks[@]}"; do
	if ! execute "$nb" "$OUT"; then
		failed=$((failed + 1))
	elif [ "$mode" = run ] && ! cmp -s "$nb" "$OUT/$(basename "$nb")"; then
		# The committed notebooks carry the outputs of an execution, and
		# re-executing is byte-identical (fixed seeds, no timing
		# metadata), so a difference means those outputs are stale.
		stale+=("$nb")
	fi
done
if [ ${#stale[@]} -gt 0 ]; then
	log "note: the committed outputs of ${stale[*]} differ from this execution; scripts/notebooks.sh --update refreshes them"
fi
if [ "$failed" -gt 0 ]; then
	echo "$failed of ${#notebooks[@]} notebooks FAILED (total $(since "$start") s)"
	exit 1
fi
if [ "$mode" = update ]; then
	for nb in "${notebooks[@]}"; do
		cp "$OUT/$(basename "$nb")" "$nb"
	done
	echo "updated ${notebooks[*]}"
fi
echo "${#notebooks[@]} notebooks ok (total $(since "$start") s)"
