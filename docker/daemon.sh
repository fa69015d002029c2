#!/usr/bin/env bash
# Starts a Docker daemon for the images and Compose files of docker/ when none answers, the way
# docker-notes describe: no bridge network and no iptables rules, so containers use the host's
# network (loopback) and nothing else on the machine changes. Refuses to start one inside a chroot
# (see below).
#
#   docker/daemon.sh start PIDFILE   start dockerd unless one answers; writes its PID to PIDFILE
#                                    only when it started one (empty file: nothing started)
#   docker/daemon.sh stop PIDFILE    stop the dockerd whose PID is in PIDFILE, if any
#
# DOCKERD_LOG (default: PIDFILE.log) receives the daemon's output. Waits up to DOCKERD_WAIT
# seconds (default 120) for the daemon to answer.
set -euo pipefail

cmd=${1:-}
pidfile=${2:-}
if [ -z "$cmd" ] || [ -z "$pidfile" ]; then
  echo "usage: $0 start|stop PIDFILE" >&2
  exit 2
fi

case "$cmd" in
  start)
    : > "$pidfile"
    if docker info >/dev/null 2>&1; then
      echo "docker: a daemon is already running"
      exit 0
    fi
    if ! command -v dockerd >/dev/null 2>&1; then
      echo "docker: no daemon answers and dockerd is not installed (apt-get install docker.io docker-compose debootstrap)" >&2
      exit 1
    fi
    # dockerd in a chroot starts containers, but `docker exec` (and with it every HEALTHCHECK)
    # enters a container's mount namespace at that namespace's root, which is then the root
    # outside the chroot: the command runs among that file system's files, not the image's, and
    # fails with "not found". Entering our own mount namespace the same way shows where that root
    # is: a different / there, or no stat program at that path (nsenter's 126, 127), is a chroot;
    # when nsenter itself cannot (missing, not permitted) nothing is known and nothing refused.
    if command -v nsenter >/dev/null 2>&1; then
      here=$(stat -c %d:%i /)
      nsrc=0
      nsroot=$(nsenter --mount=/proc/self/ns/mnt -- "$(command -v stat)" -c %d:%i / 2>/dev/null) || nsrc=$?
      if { [ "$nsrc" = 0 ] && [ "$nsroot" != "$here" ]; } || [ "$nsrc" = 126 ] || [ "$nsrc" = 127 ]; then
        echo "docker: / is not the root of this mount namespace (a chroot): in the containers of a dockerd started" \
          "here, docker exec and health checks would run among the files outside the chroot, not the image's;" \
          "start dockerd where / is that root (a machine, a VM, a container, or pivot_root instead of chroot)" >&2
        exit 1
      fi
    fi
    log=${DOCKERD_LOG:-$pidfile.log}
    dockerd --bridge=none --iptables=false --ip6tables=false >"$log" 2>&1 &
    pid=$!
    echo "$pid" > "$pidfile"
    deadline=$(( $(date +%s) + ${DOCKERD_WAIT:-120} ))
    until docker info >/dev/null 2>&1; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "docker: dockerd exited; its log ($log):" >&2
        tail -20 "$log" >&2
        : > "$pidfile"
        exit 1
      fi
      if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "docker: dockerd (pid $pid) did not answer within ${DOCKERD_WAIT:-120} s; see $log" >&2
        exit 1
      fi
      sleep 0.5
    done
    echo "docker: started dockerd (pid $pid)"
    ;;
  stop)
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 1 60); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
      if kill -0 "$pid" 2>/dev/null; then
        echo "docker: dockerd (pid $pid) did not stop within 30 s; killing it" >&2
        kill -KILL "$pid"
      fi
      echo "docker: stopped dockerd (pid $pid)"
    fi
    : > "$pidfile"
    ;;
  *)
    echo "usage: $0 start|stop PIDFILE" >&2
    exit 2
    ;;
esac
