#!/usr/bin/env bash
# Base image from Debian packages only: debootstrap (minbase) + JRE + python3 + tini, `docker import`.
#   base.sh bookworm   -> rehearse/base:bookworm-jre17 (openjdk-17, Python 3.11; Spark >= 3.4, Kafka)
#   base.sh bullseye   -> rehearse/base:bullseye-jre11 (openjdk-11, Python 3.9; Spark 3.0-3.3)
# Spark <= 3.2 fails on Java 17, PySpark <= 3.3 cannot pickle lambdas on Python 3.11: hence two bases.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

suite=${1:?usage: base.sh bookworm|bullseye}
case $suite in
bookworm) jre=openjdk-17-jre-headless tag=rehearse/base:bookworm-jre17 ;;
bullseye) jre=openjdk-11-jre-headless tag=rehearse/base:bullseye-jre11 ;;
*) die bad-version "unknown base suite '$suite' (bookworm or bullseye)" ;;
esac
hash=${REHEARSE_BASE_HASH:-$(recipe_hash base.sh -- "$suite")}
if up_to_date "$tag" "$hash"; then
	log "$tag is up to date"
	exit 0
fi
need_root
command -v debootstrap >/dev/null 2>&1 || die tools-missing "debootstrap not found (apt-get install debootstrap)"
need_docker

mirror=$(debian_mirror)
root=$WORK/rootfs-$suite
t0=$(date +%s)
log "building $tag: debootstrap $suite from $mirror (about a minute)"
rm -rf "$root"
if ! debootstrap --variant=minbase --include="$jre,python3,procps,bash,ca-certificates,tini" \
	"$suite" "$root" "$mirror" >"$LOGS/debootstrap-$suite.log" 2>&1; then
	tail -n 30 "$LOGS/debootstrap-$suite.log" >&2
	if grep -qiE 'Failed getting release file|Temporary failure|Could not resolve|Connection' "$LOGS/debootstrap-$suite.log"; then
		die registry-unreachable "the Debian mirror $mirror is unreachable (see $LOGS/debootstrap-$suite.log)"
	fi
	die build-failed "debootstrap $suite failed (see $LOGS/debootstrap-$suite.log)"
fi
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/*
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
jh=$(cd "$root" && ls -d usr/lib/jvm/java-*-openjdk-* | head -1)
[ -n "$jh" ] || die build-failed "no JRE under $root/usr/lib/jvm"
log "importing $tag"
tar -C "$root" --numeric-owner -c . | docker import \
	--change "ENV JAVA_HOME=/$jh" \
	--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	--change 'ENV LANG=C.UTF-8' \
	--change "LABEL org.rehearse.recipe=$hash" \
	--change 'ENTRYPOINT ["/usr/bin/tini","--"]' \
	--change 'CMD ["bash"]' - "$tag" >/dev/null
rm -rf "$root"
log "built $tag in $(($(date +%s) - t0))s"
