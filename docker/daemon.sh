#!/usr/bin/env bash
# Starts a Docker daemon for the images and Compose files of docker/ when none answers, the way
# docker-notes describe: no bridge network and no iptables rules, so containers use the host's
# network (loopback) and nothing else on the machine changes.
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
