#!/usr/bin/env bash
# Makes the base image debian:bookworm-slim available to the Dockerfiles of docker/ on a machine
# that cannot pull it: when the image is missing and cannot be pulled, builds it with debootstrap
# (minbase) from the Debian mirror this machine's apt already uses, and imports it under that name.
# Does nothing when the image is present. Needs root and debootstrap for the build.
set -euo pipefail

image=${BASE_IMAGE:-debian:bookworm-slim}
suite=${BASE_SUITE:-bookworm}

if docker image inspect "$image" >/dev/null 2>&1; then
  exit 0
fi
if timeout 60 docker pull "$image" >/dev/null 2>&1; then
  echo "bootstrap-base: pulled $image"
  exit 0
fi

# the mirror apt is configured with on this machine, read now: deb822 sources first, then sources.list
mirror=""
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
  echo "bootstrap-base: $image cannot be pulled and no Debian mirror is configured for apt" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  echo "bootstrap-base: $image cannot be pulled and debootstrap is missing (apt-get install debootstrap)" >&2
  exit 1
fi

rootfs=$(mktemp -d /tmp/sipcrypt-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
echo "bootstrap-base: building $image with debootstrap ($suite, minbase)"
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
  echo "bootstrap-base: debootstrap failed; its log:" >&2
  tail -20 "$rootfs.log" >&2
  rm -f "$rootfs.log"
  exit 1
}
rm -f "$rootfs.log"
# what the official slim image leaves out: package lists and caches
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - "$image" >/dev/null
echo "bootstrap-base: imported $image"
