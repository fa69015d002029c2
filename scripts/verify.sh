#!/usr/bin/env bash
# The tests, set up: on a fresh Debian machine run as root, installs what the tests need (apt-get),
# starts a Docker daemon when none runs (stopped again at the end), then runs ./mvnw verify with any
# arguments given. Elsewhere it says what is missing and runs the tests anyway.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v sipp >/dev/null 2>&1 || need+=(sip-tester)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# an independent STUN client for the keep-alive tests (KeepAlivesIT): coturn's turnutils_stunclient
command -v turnutils_stunclient >/dev/null 2>&1 || need+=(coturn)
# the tests behind a NAT built of network namespaces (BehindNatIT): iproute2, iptables, and python3 for the client there
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# Go's crypto/tls as an independent TLS peer (OpenSslTlsListenerIT)
command -v go >/dev/null 2>&1 || need+=(golang-go)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
# real softphones for SoftphoneCallsIT: baresip and linphonec
command -v baresip >/dev/null 2>&1 || need+=(baresip-core)
command -v linphonec >/dev/null 2>&1 || need+=(linphone-cli)
# JsSIP over WebSocket (WebSocketClientsIT): Node and npm, which installs jssip and
# jssip-node-websocket into server/target/jssip when the test runs
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# the lab's Kamailio server under test (KamailioServerIT): the proxy and its TLS module
command -v kamailio >/dev/null 2>&1 || [ -x /usr/sbin/kamailio ] || need+=(kamailio)
compgen -G '/usr/lib/*/kamailio/modules/tls.so' >/dev/null || need+=(kamailio-tls-modules)
# Kamailio as the edge proxy in front of the registrar (KamailioEdgeIT): its path module is in kamailio,
# the outbound module it loads in kamailio-outbound-modules
compgen -G '/usr/lib/*/kamailio/modules/outbound.so' >/dev/null || need+=(kamailio-outbound-modules)
# the Docker tests (docker/): Debian's Docker engine and Compose, debootstrap for the base image
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "verify: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
  else
    echo "verify: the tests need ${need[*]} (Debian package names); the tests using them will fail" >&2
  fi
fi

# a Docker daemon for the Docker tests when none runs; stopped at the end if started here
dockerd_pid=$(mktemp /tmp/sipcrypt-ci-dockerd.XXXXXX)
trap 'docker/daemon.sh stop "$dockerd_pid"; rm -f "$dockerd_pid" "$dockerd_pid.log"' EXIT
docker/daemon.sh start "$dockerd_pid" || echo "verify: no Docker daemon could be started; the Docker tests will fail" >&2

./mvnw verify "$@"
