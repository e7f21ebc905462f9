#!/usr/bin/env bash
# Builds the Java oracle if needed and prints the path of the runnable jar (its dependencies sit in
# target/lib/, named in the jar's manifest Class-Path).
#
# Rebuilds only when target/fjord-oracle.jar or target/lib/ is missing, or pom.xml / a source file
# is newer than the jar. Maven's own output goes to stderr; stdout carries only the jar path.
# Extra Maven arguments may be given in MVN_ARGS (e.g. MVN_ARGS=-o for an explicitly offline build;
# every version is pinned, so a rebuild with a filled ~/.m2 needs no network either way).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/fjord-oracle.jar"

# shellcheck source=../../scripts/maven_module.sh
source "$here/../../scripts/maven_module.sh"
maven_module_build "$here" "$jar" "the Java oracle"
echo "$jar"
