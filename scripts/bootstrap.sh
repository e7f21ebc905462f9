#!/usr/bin/env bash
# Installs everything Fjord's build needs, pinned by scripts/deps.lock. Idempotent: a second run on
# a ready machine does nothing but check. Called by `make demo`, `make test` and `.ci/run`.
#
#   FJORD_DEPS_DIR   where the Arrow C++ runtime goes (default: <repo>/.deps, git-ignored)
#   FJORD_STRICT_PINS=1  fail instead of warning when Debian no longer serves a pinned version
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lock="$repo/scripts/deps.lock"
deps="${FJORD_DEPS_DIR:-$repo/.deps}"
log() { echo "[bootstrap] $*" >&2; }

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

# One bootstrap at a time per deps folder (worktrees may share it): a second waits.
mkdir -p "$deps"
exec 9>"$deps/.bootstrap.lock"
flock 9

# --- Debian packages -------------------------------------------------------------------------
missing=()
while read -r kind name version; do
  [[ "$kind" == apt ]] || continue
  have="$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)"
  if [[ "$have" != "install ok installed $version" ]]; then missing+=("$name=$version"); fi
done < <(grep -v '^#' "$lock")

if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  if ! "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    if [[ "${FJORD_STRICT_PINS:-0}" == 1 ]]; then
      log "a pinned Debian version is not available"; exit 1
    fi
    log "WARNING: pinned versions unavailable, installing Debian's current ones: ${missing[*]%%=*}"
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]%%=*}" >/dev/null
  fi
fi

# --- Arrow C++ from the pinned pyarrow wheel --------------------------------------------------
read -r _ pa_version pa_sha < <(grep '^pyarrow ' "$lock")
target="$deps/pyarrow-$pa_version"
if [[ ! -f "$target/.complete" ]]; then
  log "fetching pyarrow $pa_version wheel (Arrow C++ runtime)"
  mkdir -p "$deps/cache"
  wheel="$(ls "$deps"/cache/pyarrow-"$pa_version"-cp311-*manylinux_2_28_x86_64.whl 2>/dev/null | head -1 || true)"
  if [[ -z "$wheel" ]]; then
    python3 -m pip download -q --only-binary=:all: --no-deps --python-version 3.11 \
      --platform manylinux_2_28_x86_64 -d "$deps/cache" "pyarrow==$pa_version"
    wheel="$(ls "$deps"/cache/pyarrow-"$pa_version"-cp311-*manylinux_2_28_x86_64.whl | head -1)"
  fi
  echo "$pa_sha  $wheel" | sha256sum -c --quiet - || { log "checksum mismatch for $wheel"; exit 1; }
  rm -rf "$target" "$target.tmp"
  mkdir -p "$target.tmp"
  python3 -m zipfile -e "$wheel" "$target.tmp"
  mv "$target.tmp" "$target"
  touch "$target/.complete"
fi
ln -sfn "pyarrow-$pa_version" "$deps/pyarrow"
log "ready: Arrow $pa_version in $deps/pyarrow/pyarrow"

# --- simdjson's amalgamated source from the pinned pysimdjson sdist ---------------------------
read -r _ sj_pkg sj_version sj_sha < <(grep '^simdjson-sdist ' "$lock")
sj_target="$deps/simdjson-$sj_pkg-$sj_version"
if [[ ! -f "$sj_target/.complete" ]]; then
  log "fetching $sj_pkg $sj_version sdist (simdjson's source)"
  mkdir -p "$deps/cache"
  sdist="$deps/cache/$sj_pkg-$sj_version.tar.gz"
  if [[ ! -f "$sdist" ]]; then
    python3 -m pip download -q --no-binary=:all: --no-deps -d "$deps/cache" "$sj_pkg==$sj_version"
  fi
  echo "$sj_sha  $sdist" | sha256sum -c --quiet - || { log "checksum mismatch for $sdist"; exit 1; }
  rm -rf "$sj_target" "$sj_target.tmp"
  mkdir -p "$sj_target.tmp"
  tar -xzf "$sdist" -C "$sj_target.tmp" --strip-components=2 \
    "$sj_pkg-$sj_version/simdjson/simdjson.h" "$sj_pkg-$sj_version/simdjson/simdjson.cpp"
  mv "$sj_target.tmp" "$sj_target"
  touch "$sj_target/.complete"
fi
ln -sfn "simdjson-$sj_pkg-$sj_version" "$deps/simdjson"

# --- Python venvs, each pinned by its lock file and made again when the lock changes ----------
# pinned_venv DIR LOCK WHAT (.complete holds the lock's checksum: a checkout's new mtime alone
# does not remake a venv)
pinned_venv() {
  local dir="$1" lock_file="$2" what="$3" sum
  sum="$(sha256sum "$lock_file" | cut -d' ' -f1)"
  if [[ -f "$dir/.complete" && "$(cat "$dir/.complete")" == "$sum" && -x "$dir/bin/python" ]]; then
    return 0
  fi
  log "installing $what into $dir"
  rm -rf "$dir"
  python3 -m venv "$dir" || { "${sudo_cmd[@]}" apt-get install -y -qq python3-venv >/dev/null; python3 -m venv "$dir"; }
  "$dir/bin/pip" install -q --disable-pip-version-check -r "$lock_file"
  echo "$sum" >"$dir/.complete"
}
# The test tools (a loopback S3 server).
pinned_venv "$deps/venv" "$repo/scripts/python-test.lock" "Python test tools"
# The Python package's build tools and test libraries (python/, docs/python.md).
pinned_venv "$deps/python-venv" "$repo/scripts/python.lock" "the Python package's tools"
# pypaimon, the second oracle (reads tables Fjord wrote). Its own venv: pypaimon 1.4.2 needs
# pyarrow < 20, apart from the Arrow that Fjord builds on.
pinned_venv "$deps/pypaimon-venv" "$repo/scripts/pypaimon.lock" "pypaimon"
