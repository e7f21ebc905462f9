#!/usr/bin/env bash
# Builds the Debezium runner (pom.xml, src/) if needed and prints its Java class path: the runner's
# jar and the jars of Debezium 3.6.1.Final (embedded engine, PostgreSQL connector) and the Kafka
# client, copied into target/lib. Rebuilds only when the jar or target/lib is missing, or pom.xml /
# a source file is newer than the jar. Maven's own output goes to stderr; stdout carries only the
# class path. MVN_ARGS as interop/java/build.sh (e.g. MVN_ARGS=-o once ~/.m2 holds everything).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/fjord-debezium-runner.jar"
lib="$here/target/lib"

needs_build() {
    [[ -f "$jar" && -d "$lib" ]] || return 0
    [[ -n "$(find "$here/pom.xml" "$here/src" -newer "$jar" -print -quit)" ]] && return 0
    return 1
}

# Several tests may ask for the runner at once: one builds, the others wait for it.
exec 9>"$here/.build.lock"
flock 9

if needs_build; then
    command -v mvn >/dev/null || { echo "build.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
    rm -rf "$lib"
    # shellcheck disable=SC2086
    (cd "$here" && mvn -q -B -Dstyle.color=never ${MVN_ARGS:-} package -DskipTests) 1>&2 || {
        echo "build.sh: maven failed to build the Debezium runner" >&2
        exit 1
    }
    [[ -f "$jar" ]] || { echo "build.sh: build produced no $jar" >&2; exit 1; }
    ls "$lib"/debezium-connector-postgres-*.jar >/dev/null 2>&1 || {
        echo "build.sh: no Debezium PostgreSQL connector in $lib" >&2
        exit 1
    }
    # the jar plugin leaves an up-to-date jar untouched; mark it fresh so we do not rebuild again
    touch "$jar"
fi
echo "$jar:$(find "$lib" -name '*.jar' | sort | paste -sd:)"
