#!/usr/bin/env bash
# The quickstart that `make demo` runs. For now: the engine's version and the Arrow it runs on.
set -euo pipefail
fjord="${FJORD:?set FJORD to the fjord binary}"
echo "== fjord version"
"$fjord" version
