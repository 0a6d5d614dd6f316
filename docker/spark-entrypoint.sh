#!/bin/sh
# Entrypoint of rehearse/spark images. Runs as root by default; with `docker run --user UID:GID` it
# first adds a passwd entry for that uid, because Hadoop's login (UGI) and Ivy fail without one.
# Every argument is run as given (spark-submit ..., bash, python3 ...), under tini.
if ! getent passwd "$(id -u)" >/dev/null 2>&1 && [ -w /etc/passwd ]; then
	echo "spark:x:$(id -u):$(id -g):spark:/tmp:/bin/bash" >>/etc/passwd
fi
exec /usr/bin/tini -s -- "$@"
