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

# shellcheck source=../../scripts/maven_module.sh
source "$here/../../scripts/maven_module.sh"
maven_module_build "$here" "$jar" "the Debezium runner"
ls "$lib"/debezium-connector-postgres-*.jar >/dev/null 2>&1 || {
    echo "build.sh: no Debezium PostgreSQL connector in $lib" >&2
    exit 1
}
echo "$jar:$(find "$lib" -name '*.jar' | sort | paste -sd:)"
