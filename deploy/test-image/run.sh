#!/usr/bin/env bash
# npm run test:image: builds the image and runs it with podman (packages/cli/test/container-image.test.ts).
# Installs what it needs from Debian's packages when missing (as root), and runs podman with this
# machine's settings (containers.conf beside this script), never the image's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."

missing=()
for tool in podman:podman runc:runc debootstrap:debootstrap docker-compose:docker-compose; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool##*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing ${missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
export CONTAINERS_CONF="$here/containers.conf"

# compose.yaml must stay valid: docker-compose reads it (with throwaway settings) without an engine.
settings="$(mktemp)"
trap 'rm -f "$settings"' EXIT
printf 'WEFT_SECRET_KEY=%064d\nPOSTGRES_PASSWORD=check\n' 0 >"$settings"
docker-compose --env-file "$settings" --file compose.yaml config --quiet
echo "compose.yaml is valid"

WEFT_TEST_IMAGE=1 exec npx vitest run packages/cli/test/container-image.test.ts
