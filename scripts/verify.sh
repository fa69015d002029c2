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
# Go's crypto/tls as an independent TLS peer (OpenSslTlsListenerIT, TlsGroupsIT); Debian 12's Go is
# too old for it, so curl and unzip fetch a current one below (use_current_go)
command -v go >/dev/null 2>&1 || need+=(golang-go)
command -v curl >/dev/null 2>&1 || need+=(curl ca-certificates)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
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
# the lab's HTML report drawn by a browser (ReportInChromiumIT): Debian's Chromium, run headless
command -v chromium >/dev/null 2>&1 || need+=(chromium)
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

# The Go TLS peers need Go 1.24 or later (tls.VersionName, ConnectionState.CurveID, X25519MLKEM768);
# the tests run the `go` first on PATH. When neither that one nor /usr/local/go's is recent enough,
# Go $go_release is fetched once from the Go module proxy that `go env GOPROXY` names (the toolchain
# zip the go command itself would download) into $go_home, and put first on PATH.
go_release=go1.26.8
go_home=/usr/local/lib/sipcrypt-go
go_minor() { # the minor version of Go binary $1 (19 for go1.19.8), empty when it does not run
  "$1" version 2>/dev/null | sed -n 's/^go version go1\.\([0-9]*\).*/\1/p'
}
fetch_go() { # $1: the go that names the proxy, $2: the directory to install Go $go_release into
  local old=$1 dir=$2 proxy os arch zip tmp
  proxy=$("$old" env GOPROXY | cut -d, -f1)
  os=$("$old" env GOOS)
  arch=$("$old" env GOARCH)
  case "$proxy" in
    http://*|https://*) ;;
    *) echo "verify: GOPROXY first entry \"$proxy\" is no module proxy to fetch Go $go_release from" >&2; return 1 ;;
  esac
  zip=$(mktemp) && tmp=$(mktemp -d) || return 1
  echo "verify: fetching Go $go_release into $dir"
  if curl -fsSL -o "$zip" "$proxy/golang.org/toolchain/@v/v0.0.1-$go_release.$os-$arch.zip" \
      && unzip -q "$zip" -d "$tmp"; then
    local unpacked="$tmp/golang.org/toolchain@v0.0.1-$go_release.$os-$arch"
    # module zips keep no file modes: the go command marks its own binaries executable the same way
    chmod -R a+rX "$unpacked" && chmod a+x "$unpacked"/bin/* "$unpacked"/pkg/tool/*/*
    rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && mv "$unpacked" "$dir"
  fi
  rm -rf "$zip" "$tmp"
  [ -x "$dir/bin/go" ]
}
use_current_go() { # $1: where a fetched Go lives
  local g m
  for g in "$(command -v go || true)" /usr/local/go/bin/go "$1/bin/go"; do
    m=$(go_minor "$g" || true)
    if [ -n "$m" ] && [ "$m" -ge 24 ]; then
      PATH="$(dirname "$g"):$PATH"
      return 0
    fi
  done
  g=$(command -v go || true)
  if [ -z "$g" ]; then
    echo "verify: no Go to name a module proxy; the Go TLS peer tests will fail" >&2
  elif fetch_go "$g" "$1"; then
    PATH="$1/bin:$PATH"
  else
    echo "verify: Go $go_release could not be fetched; the Go TLS peer tests will fail with Go $("$g" version)" >&2
  fi
}
use_current_go "$go_home"
export PATH
echo "verify: $(go version 2>/dev/null || echo 'no Go')"

# a Docker daemon for the Docker tests when none runs; stopped at the end if started here
dockerd_pid=$(mktemp /tmp/sipcrypt-ci-dockerd.XXXXXX)
trap 'docker/daemon.sh stop "$dockerd_pid"; rm -f "$dockerd_pid" "$dockerd_pid.log"' EXIT
docker/daemon.sh start "$dockerd_pid" || echo "verify: no Docker daemon could be started; the Docker tests will fail" >&2

./mvnw verify "$@"
