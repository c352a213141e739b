#!/usr/bin/env bash
# Makes a Node 24 base image on a machine that reaches no container registry, for
# `npm run test:image`: a minimal Debian (debootstrap, from Debian's mirror), slimmed as the
# official slim images are, with the Node 24 binary that `npm install` brought
# (node_modules/node/bin/node) and the machine's npm, laid out as in the official Node images
# (/usr/local/bin/node, /usr/local/lib/node_modules/npm). The machine's CA bundle goes in too, so
# that npm inside the build trusts what the machine trusts. Usage: make-base.sh <image name> <cache dir>
set -euo pipefail
image="$1"
cache="$2"
repository="$(cd "$(dirname "$0")/../.." && pwd)"
node_binary="$repository/node_modules/node/bin/node"
npm_directory="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
ca_bundle=/etc/ssl/certs/ca-certificates.crt

if podman image exists "$image"; then exit 0; fi
mkdir -p "$cache"
if [ ! -x "$cache/debian/usr/bin/apt-get" ]; then
  rm -rf "$cache/debian"
  debootstrap --variant=minbase bookworm "$cache/debian" http://deb.debian.org/debian >"$cache/debootstrap.log"
fi
rootfs="$(mktemp -d "$cache/rootfs.XXXXXX")"
trap 'rm -rf "$rootfs"' EXIT
cp -a "$cache/debian/." "$rootfs/"
rm -rf "$rootfs"/usr/share/{doc,man,info,locale}/* "$rootfs"/var/cache/apt/*.bin \
  "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
# What later apt-get installs bring of documentation is left out too, as in the slim images.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'CONF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
CONF
install -m 0755 "$node_binary" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_directory" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
if [ -f "$ca_bundle" ]; then install -D -m 0644 "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"; fi
tar -C "$rootfs" -c . | podman import \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$image" >/dev/null
