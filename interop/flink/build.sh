#!/usr/bin/env bash
# Builds fjord-flink (Flink in local mode with Paimon's Flink connector) if needed and prints the
# path of the runnable jar (its dependencies sit in target/lib/, named in the jar's manifest
# Class-Path).
#
# Rebuilds only when target/fjord-flink.jar or target/lib/ is missing, or pom.xml / a source file
# (here, or one of the Java oracle's files compiled in: RowJson, Json, ShortestDecimal) is newer
# than the jar. Maven's own output goes to stderr; stdout carries only the jar path.
# Extra Maven arguments may be given in MVN_ARGS (e.g. MVN_ARGS=-o for an explicitly offline build;
# every version is pinned, so a rebuild with a filled ~/.m2 needs no network either way).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/fjord-flink.jar"

needs_build() {
    [[ -f "$jar" && -d "$here/target/lib" ]] || return 0
    local shared="$here/../java/src/main/java/fjord/oracle"
    [[ -n "$(find "$here/pom.xml" "$here/src" "$shared/RowJson.java" "$shared/Json.java" \
        "$shared/ShortestDecimal.java" -newer "$jar" -print -quit)" ]] && return 0
    return 1
}

# Several tests may ask for fjord-flink at once: one builds, the others wait for it.
exec 9>"$here/.build.lock"
flock 9

if needs_build; then
    command -v mvn >/dev/null || { echo "build.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
    # shellcheck disable=SC2086
    (cd "$here" && mvn -q -B -Dstyle.color=never ${MVN_ARGS:-} package -DskipTests) 1>&2 || {
        echo "build.sh: maven build failed" >&2
        exit 1
    }
    [[ -f "$jar" ]] || { echo "build.sh: build produced no $jar" >&2; exit 1; }
    # the jar plugin leaves an up-to-date jar untouched; mark it fresh so we do not rebuild again
    touch "$jar"
fi
echo "$jar"
