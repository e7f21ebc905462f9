// Geometry values as Java Paimon's CDC parsers write them: WKB turned into GeoJSON text by
// MySqlTypeUtils.convertWkbArray (ESRI's OGCGeometry.fromBinary(...).asGeoJson(), then re-written
// by Jackson as {"coordinates" | "geometries", "type", "srid": 0}), and MySQL's internal geometry
// bytes (a 4-byte SRID, then WKB) turned into WKB as CanalFieldParser.convertGeoType2WkbArray.
// The text is Java's byte for byte, and an input Java fails on is an error here (docs/cdc.md,
// "Geometry values"; tests/fixtures/geojson holds Java's output for 2300 inputs).
#pragma once

#include <string>
#include <string_view>

#include "fjord/result.h"

namespace fjord::cdc {

// Java's convertWkbArray. Invalid, saying what is wrong, where Java throws: truncated or
// unknown WKB, M without Z, mixed dimensions, a polygon whose rings have no area, an infinite
// coordinate.
Result<std::string> WkbToGeoJson(std::string_view wkb);

// Java's convertGeoType2WkbArray: the WKB of MySQL's internal value. A non-zero SRID becomes the
// EWKB SRID flag, which Java's WKB reader then refuses.
Result<std::string> MySqlGeometryToWkb(std::string_view value);

}  // namespace fjord::cdc
