#!/usr/bin/env bash
# Make this (Debian, root) machine able to build and run rehearse's images: install the Docker
# engine and the recipe tools if missing, start dockerd if no engine answers, wait until it does.
# Idempotent; exits non-zero with a message saying what failed.
set -euo pipefail
say() { printf 'setup-docker: %s\n' "$*" >&2; }
[ "$(id -u)" = 0 ] || { say "must run as root (apt-get, dockerd)"; exit 1; }

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v curl >/dev/null 2>&1 || need+=(curl)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || { say "apt-get update failed"; exit 1; }
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null || { say "apt-get install ${need[*]} failed"; exit 1; }
fi

if docker info >/dev/null 2>&1; then
	say "Docker engine answers ($(docker version --format '{{.Server.Version}}' 2>/dev/null))"
	exit 0
fi
log=${DOCKERD_LOG:-/tmp/dockerd.log}
say "starting dockerd (log: $log)"
nohup /usr/sbin/dockerd >"$log" 2>&1 &
pid=$!
for _ in $(seq 150); do
	if docker info >/dev/null 2>&1; then
		say "Docker engine answers ($(docker version --format '{{.Server.Version}}' 2>/dev/null)), dockerd pid $pid"
		exit 0
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.2
done
say "dockerd did not start; last lines of $log:"
tail -n 20 "$log" >&2 || true
exit 1
