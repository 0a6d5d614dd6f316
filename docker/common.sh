# shellcheck shell=bash
# Shared helpers for the image recipes (sourced, never run). Root only; no container registry is
# contacted unless a recipe is run with `official`.
#
# Cache key: every image carries the label org.rehearse.recipe=<hash>. The hash covers the recipe
# files and the parameters (version, source). `rehearse images build` computes it (blake3) and passes
# it as REHEARSE_RECIPE_HASH; run by hand, the recipe computes a sha256 of the same inputs. An image
# whose label equals the hash is not rebuilt.
set -euo pipefail
export DOCKER_BUILDKIT=0 # the 28.x client here has no buildx plugin; the legacy builder works

RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${REHEARSE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearse}
WORK=${REHEARSE_WORK:-${TMPDIR:-/tmp}/rehearse-build}
LOGS=${REHEARSE_LOGS:-$CACHE/logs}
MAVEN_REPO=${MAVEN_REPO:-https://repo.maven.apache.org/maven2}
mkdir -p "$CACHE" "$WORK" "$LOGS"

log() { printf 'rehearse-images: %s\n' "$*" >&2; }

# die KIND MESSAGE: KIND is one of the words `rehearse images` maps to an error variant.
die() {
	local kind=$1
	shift
	printf 'REHEARSE-ERROR %s: %s\n' "$kind" "$*" >&2
	exit 1
}

need_root() { [ "$(id -u)" = 0 ] || die not-root "the image recipes need root (debootstrap, chroot)"; }

need_docker() {
	command -v docker >/dev/null 2>&1 || die no-docker "no docker client on PATH"
	docker info >/dev/null 2>&1 || die no-docker "no Docker engine answers (docker info failed)"
}

# recipe_hash FILE... -- PARAM...: sha256 over the named recipe files and the parameters.
recipe_hash() {
	local f files=() params=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do files+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	params=("$@")
	{
		for f in "${files[@]}"; do printf '%s\n' "$(basename "$f")"; cat "$RECIPE_DIR/$f"; done
		printf '%s\n' "${params[@]}"
	} | sha256sum | cut -c1-32
}

# image_label TAG: the recipe hash of a local image, empty if the image or the label is missing.
image_label() {
	docker image inspect -f '{{ index .Config.Labels "org.rehearse.recipe" }}' "$1" 2>/dev/null || true
}

# up_to_date TAG HASH: true if TAG exists and was built from HASH.
up_to_date() { [ "$(image_label "$1")" = "$2" ]; }

# lock NAME: hold an exclusive lock on $WORK/NAME.lock until the script ends, so that two builds of
# one image (two rehearse processes, or CI and a developer) wait for each other instead of racing.
lock() {
	exec {lock_fd}>"$WORK/$1.lock"
	flock "$lock_fd"
}

# build_base SUITE: base.sh under a lock of its own (released when the base is there).
build_base() { (flock 8 && bash "$RECIPE_DIR/base.sh" "$1") 8>"$WORK/base-$1.lock"; }

# Debian mirror that this machine's apt already uses (deb822 first, then one-line sources.list).
debian_mirror() {
	local m=${MIRROR:-}
	[ -n "$m" ] || m=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$m" ] || m=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	[ -n "$m" ] || m=http://deb.debian.org/debian
	printf '%s\n' "$m"
}

# Valid version strings: digits and dots, optionally a -suffix of letters/digits/dots (4.0.0-preview2).
check_version() {
	[[ $1 =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]] || die bad-version "not a version: '$1'"
}

# run_logged LOGFILE CMD...: run CMD with its output in LOGFILE; on failure print the tail.
run_logged() {
	local logf=$1
	shift
	if ! "$@" >"$logf" 2>&1; then
		tail -n 30 "$logf" >&2
		return 1
	fi
}

# maven_copy NAME OUTDIR POMFILE [INCLUDE_ARTIFACT_IDS]: resolve the generated POM's runtime
# dependencies from Maven Central with strict checksum checks (-C) and copy the jars (filtered) into
# OUTDIR. A settings file mirrors every repository to Maven Central: some POMs (spark-parent 4.x)
# declare extra repositories that are not reachable here and would only add failures.
maven_copy() {
	local name=$1 out=$2 pom=$3 include=${4:-} logf settings
	command -v mvn >/dev/null 2>&1 || die tools-missing "mvn not found (apt-get install maven)"
	logf="$LOGS/mvn-$name.log"
	settings=$(dirname "$pom")/settings.xml
	cat >"$settings" <<XML
<settings><mirrors><mirror><id>central-only</id><mirrorOf>*</mirrorOf><url>$MAVEN_REPO</url></mirror></mirrors></settings>
XML
	local args=(-B -C -s "$settings" -f "$pom" -Dmaven.repo.local="$CACHE/m2"
		org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies
		-DoutputDirectory="$out" -DincludeScope=runtime)
	[ -z "$include" ] || args+=(-DincludeArtifactIds="$include")
	if ! mvn "${args[@]}" >"$logf" 2>&1; then
		tail -n 40 "$logf" >&2
		if grep -qE 'Could not (find|resolve) artifact|was not found in' "$logf"; then
			die maven-missing "a Maven artifact is missing (see $logf)"
		fi
		if grep -qiE 'Unknown host|Connection refused|Connect to .* failed|transfer failed|timed out' "$logf"; then
			die registry-unreachable "Maven Central ($MAVEN_REPO) unreachable (see $logf)"
		fi
		die build-failed "mvn dependency:copy-dependencies failed (see $logf)"
	fi
}
