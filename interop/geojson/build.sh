#!/usr/bin/env bash
# Builds the GeoJSON oracle if needed and prints the path of the runnable jar (its dependencies sit
# in target/lib/, named in the jar's manifest Class-Path). Maven's output goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/fjord-geojson-oracle.jar"

# shellcheck source=../../scripts/maven_module.sh
source "$here/../../scripts/maven_module.sh"
maven_module_build "$here" "$jar" "the GeoJSON oracle"
echo "$jar"
