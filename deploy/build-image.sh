#!/bin/bash
# Builds the simulate image from this checkout (see Containerfile).
#
#   deploy/build-image.sh [IMAGE]     # IMAGE defaults to localhost/budgetsim/simulate:latest
#
# Environment (all optional):
#   BUILDER     the image builder and its global options, split on spaces
#               [buildah, else podman, else docker], e.g.
#               "buildah --storage-driver vfs" where overlay mounts are not allowed
#   BUILD_ARGS  more options for its build command, e.g. "--isolation chroot"
#   GOARCH      the CPU architecture to build for [this machine's]
#   VERSION     the image's org.opencontainers.image.version label [git describe]
set -euo pipefail
cd "$(dirname "$0")/.."

image=${1:-localhost/budgetsim/simulate:latest}
if [[ -z ${BUILDER:-} ]]; then
	for b in buildah podman docker; do
		if command -v "$b" >/dev/null; then
			BUILDER=$b
			break
		fi
	done
	[[ -n ${BUILDER:-} ]] || {
		echo "build-image: none of buildah, podman or docker is installed" >&2
		exit 1
	}
fi
read -r -a builder <<<"$BUILDER"
read -r -a args <<<"${BUILD_ARGS:-}"
arch=${GOARCH:-$(go env GOARCH)}
version=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
echo "build-image: CGO_ENABLED=0 GOARCH=$arch go build ./cmd/simulate"
CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -ldflags='-s -w' -o "$ctx/simulate" ./cmd/simulate
cp Containerfile "$ctx/Containerfile"
echo "build-image: ${builder[*]} build -t $image (linux/$arch, version $version)"
"${builder[@]}" build "${args[@]}" --platform "linux/$arch" --build-arg VERSION="$version" \
	-t "$image" -f "$ctx/Containerfile" "$ctx"
