#!/usr/bin/env bash
# Downloads the current .deb files of the image's Debian packages for one
# architecture into DIR (replaced whole, so that no older version stays
# beside a newer one), with apt-get download, which checks each file
# against the signed package lists. `make image` runs it:
#
#   bash scripts/image-debs.sh DIR ARCH PACKAGE...
#
# ARCH is Debian's name (amd64, arm64). Another architecture than the
# machine's needs it among apt's (dpkg --add-architecture ARCH, then
# apt-get update), or DEBS_ARCH=DIR given to make instead.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 DIR ARCH PACKAGE..." >&2; exit 2; }
dir=$1 arch=$2
shift 2
native=$(dpkg --print-architecture)
if [ "$arch" != "$native" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	echo "image-debs: $arch is not one of apt's architectures: run 'dpkg --add-architecture $arch && apt-get update' as root, or give make DEBS_$arch=DIR (a directory of the packages' .deb files)" >&2
	exit 1
fi
pkgs=()
for p in "$@"; do
	if [ "$arch" = "$native" ]; then pkgs+=("$p"); else pkgs+=("$p:$arch"); fi
done
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# A fresh machine may have no package lists yet.
if ! apt-cache show "${pkgs[@]}" >/dev/null 2>&1; then
	$SUDO apt-get update -q
fi
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
# As root, apt warns that it cannot drop to its _apt user for a
# directory _apt may not write; the download is the same.
(cd "$dir.tmp" && apt-get download -q "${pkgs[@]}")
rm -rf "$dir"
mv "$dir.tmp" "$dir"
ls "$dir"
