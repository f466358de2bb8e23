#!/bin/bash
# Builds the simulate image from this checkout with Debian's buildah (no
# registry, no daemon: vfs storage and chroot isolation in a temporary
# directory) and checks it: simulate is the entrypoint, the image holds one
# layer, and `simulate run mmc` inside it prints exactly what the same
# command prints outside. Needs root; installs buildah if missing. .ci/run
# calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

step() { printf '== image: %s\n' "$*"; }
fail() {
	printf 'FAIL image: %s\n' "$*" >&2
	exit 1
}

if ! command -v buildah >/dev/null; then
	step "apt-get install buildah"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends buildah >/dev/null
fi
buildah --version

work=$(mktemp -d /tmp/budgetsim-image.XXXXXX)
buildah=(buildah --root "$work/root" --runroot "$work/runroot" --storage-driver vfs)
ctr=""
cleanup() {
	[[ -z $ctr ]] || "${buildah[@]}" rm "$ctr" >/dev/null || true
	"${buildah[@]}" rmi --all --force >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
image=localhost/budgetsim/simulate:ci

step "deploy/build-image.sh $image (buildah, vfs storage, chroot isolation)"
BUILDER="${buildah[*]}" BUILD_ARGS="--isolation chroot" bash deploy/build-image.sh "$image"

step "the image's entrypoint, user and layers"
config=$("${buildah[@]}" inspect --format '{{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.User}} {{len .OCIv1.RootFS.DiffIDs}}' "$image")
echo "$config"
[[ $config == "[/simulate] 65532:65532 1" ]] || fail "want entrypoint [/simulate], user 65532:65532 and one layer, got: $config"

step "buildah run: simulate run mmc inside the image"
ctr=$("${buildah[@]}" from "$image")
"${buildah[@]}" run --isolation chroot "$ctr" -- /simulate run mmc >"$work/inside.txt"
go run ./cmd/simulate run mmc >"$work/outside.txt"
head -n 12 "$work/inside.txt"
cmp "$work/inside.txt" "$work/outside.txt" || fail "simulate run mmc prints something else inside the image"
echo "simulate run mmc: the same bytes inside the image as outside"
cd "$repo"
echo "image: 2 passed, 0 failed"
