// The facts this follows, read from ESRI's geometry-api-java 2.2.0 (the version paimon-flink-cdc
// declares) and checked against Java on tests/fixtures/geojson:
// - Reading: the byte order of the first byte holds for the whole value (the order bytes of
//   nested geometries are skipped); type codes 1..7 plus 1000 (Z), 2000 (M), 3000 (ZM), every
//   geometry of a value with the same dimensions; a one-point line or ring is the point twice;
//   a ring of 3 or more points loses its last point when it repeats the first; the first
//   non-empty ring of each polygon is made clockwise (the orientation at its highest vertex, else
//   its area), the others counter-clockwise, keeping the first vertex.
// - Writing: rings start at their first vertex and run backwards, closed again; the polygons of a
//   geometry are its rings with the area sign of its first ring (none: an error), a WKB Polygon
//   keeping its first ring and the rings up to the next such; a MultiPolygon or MultiLineString
//   inside a collection of one part is written as a Polygon or LineString; M without Z is an
//   error; a point with a NaN x or y is empty ([]), another NaN coordinate null.
// - Numbers: ESRI prints %.17g without trailing zeros, Jackson reads that back and writes it:
//   integral values below 1e17 as integers (-0 as 0), others as Java's Double.toString;
//   infinities are not JSON and fail.
#include "fjord/cdc/geojson.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fjord/common/float_format.h"

namespace fjord::cdc {

namespace {

struct Vertex {
  double x, y, z, m;
};

// One geometry as ESRI holds it: a point, a multipoint, or paths of vertices (lines, rings).
struct Geometry {
  int ogc_type = 0;  // 1 Point .. 7 GeometryCollection, as the WKB type code
  bool has_z = false, has_m = false;
  std::vector<Vertex> points;
  std::vector<int> path_starts;  // path i is [path_starts[i], path_starts[i + 1])
  std::vector<Geometry> parts;   // of a collection
  // Of a polygon as read: which rings begin a polygon (ESRI's OGC flags, not yet recomputed).
  std::vector<bool> read_starts;
  size_t PathCount() const { return path_starts.empty() ? 0 : path_starts.size() - 1; }
};

constexpr int kMaxDepth = 200;

class WkbReader {
 public:
  explicit WkbReader(std::string_view bytes) : bytes_(bytes) {}

  Status Read(Geometry* out) {
    if (bytes_.empty()) return Truncated(0);
    little_endian_ = bytes_[0] == 1;
    return ReadOne(out, 0);
  }

 private:
  Status Truncated(int64_t pos) const {
    return Status::Invalid("the WKB value (", bytes_.size(), " bytes) ends before byte ", pos);
  }

  Status Int(int64_t offset, int32_t* out) const {
    int64_t pos = base_ + offset;
    if (pos < 0 || pos + 4 > static_cast<int64_t>(bytes_.size())) return Truncated(pos + 4);
    uint8_t b[4];
    std::memcpy(b, bytes_.data() + pos, 4);
    uint32_t v = little_endian_ ? (b[0] | b[1] << 8 | b[2] << 16 | uint32_t{b[3]} << 24)
                                : (uint32_t{b[0]} << 24 | b[1] << 16 | b[2] << 8 | b[3]);
    *out = static_cast<int32_t>(v);
    return Status::OK();
  }

  Status Double(int64_t offset, double* out) const {
    int64_t pos = base_ + offset;
    if (pos < 0 || pos + 8 > static_cast<int64_t>(bytes_.size())) return Truncated(pos + 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
      uint64_t b = static_cast<uint8_t>(bytes_[pos + i]);
      v |= little_endian_ ? b << (8 * i) : b << (8 * (7 - i));
    }
    std::memcpy(out, &v, 8);
    return Status::OK();
  }

  // The vertex at `*offset`, which moves past it.
  Status ReadVertex(int64_t* offset, Vertex* v) const {
    v->z = 0;
    v->m = NAN;
    FJORD_RETURN_NOT_OK(Double(*offset, &v->x));
    FJORD_RETURN_NOT_OK(Double(*offset + 8, &v->y));
    *offset += 16;
    if (z_) {
      FJORD_RETURN_NOT_OK(Double(*offset, &v->z));
      *offset += 8;
    }
    if (m_) {
      FJORD_RETURN_NOT_OK(Double(*offset, &v->m));
      *offset += 8;
    }
    return Status::OK();
  }

  int64_t VertexSize() const { return 16 + (z_ ? 8 : 0) + (m_ ? 8 : 0); }

  // A count of items of at least `item_size` bytes each that the rest of the value can hold.
  Status CheckCount(int64_t offset, int32_t count, int64_t item_size) const {
    if (count < 0) return Status::Invalid("the WKB value has a negative count ", count);
    int64_t left = static_cast<int64_t>(bytes_.size()) - (base_ + offset);
    if (static_cast<int64_t>(count) * item_size > left) {
      return Truncated(base_ + offset + static_cast<int64_t>(count) * item_size);
    }
    return Status::OK();
  }

  Status ReadOne(Geometry* out, int depth) {
    if (depth > kMaxDepth) return Status::Invalid("the WKB value nests too deep");
    int32_t code;
    FJORD_RETURN_NOT_OK(Int(1, &code));
    bool z = code > 3000 || (code > 1000 && code <= 2000);
    bool m = code > 2000;
    int ogc = code > 3000   ? code - 3000
              : code > 2000 ? code - 2000
              : code > 1000 ? code - 1000
                            : code;
    if (dims_known_ && (z != z_ || m != m_)) {
      return Status::Invalid("the WKB value mixes geometries with and without Z or M");
    }
    dims_known_ = true;
    z_ = z;
    m_ = m;
    out->ogc_type = ogc;
    out->has_z = z;
    out->has_m = m;
    if (ogc == 7) {
      int32_t count;
      FJORD_RETURN_NOT_OK(Int(5, &count));
      FJORD_RETURN_NOT_OK(CheckCount(9, count, 9));
      base_ += 9;
      out->parts.resize(static_cast<size_t>(count));
      for (Geometry& part : out->parts) FJORD_RETURN_NOT_OK(ReadOne(&part, depth + 1));
      return Status::OK();
    }
    const int base_type = code % 1000;
    if (code < 1 || code > 3006 || base_type < 1 || base_type > 6) {
      return Status::Invalid("unknown WKB geometry type ", code);
    }
    int64_t offset = 0;
    switch (base_type) {
      case 1:
        FJORD_RETURN_NOT_OK(ReadPoint(out, &offset));
        break;
      case 4:
        FJORD_RETURN_NOT_OK(ReadMultiPoint(out, &offset));
        break;
      case 2:
      case 5:
        FJORD_RETURN_NOT_OK(ReadLines(out, base_type == 5, &offset));
        break;
      default:
        FJORD_RETURN_NOT_OK(ReadPolygons(out, base_type == 6, &offset));
        break;
    }
    base_ += offset;
    return Status::OK();
  }

  Status ReadPoint(Geometry* out, int64_t* offset) {
    *offset = 5;
    Vertex v;
    FJORD_RETURN_NOT_OK(ReadVertex(offset, &v));
    out->points.push_back(v);
    return Status::OK();
  }

  Status ReadMultiPoint(Geometry* out, int64_t* offset) {
    int32_t count;
    FJORD_RETURN_NOT_OK(Int(5, &count));
    *offset = 9;
    if (count <= 0) return Status::OK();  // Java reads a negative count as none
    FJORD_RETURN_NOT_OK(CheckCount(*offset, count, 5 + VertexSize()));
    out->points.resize(static_cast<size_t>(count));
    for (Vertex& v : out->points) {
      *offset += 5;
      FJORD_RETURN_NOT_OK(ReadVertex(offset, &v));
    }
    return Status::OK();
  }

  Status ReadLines(Geometry* out, bool multi, int64_t* offset) {
    int32_t count = 1;
    *offset = 0;
    if (multi) {
      FJORD_RETURN_NOT_OK(Int(5, &count));
      *offset = 9;
    }
    for (int32_t i = 0; i < count; ++i) {
      *offset += 5;
      int32_t n;
      FJORD_RETURN_NOT_OK(Int(*offset, &n));
      *offset += 4;
      if (n == 0) continue;
      FJORD_RETURN_NOT_OK(CheckCount(*offset, n, VertexSize()));
      if (out->path_starts.empty()) out->path_starts.push_back(0);
      for (int32_t k = 0; k < n; ++k) {
        Vertex v;
        FJORD_RETURN_NOT_OK(ReadVertex(offset, &v));
        out->points.push_back(v);
      }
      if (n == 1) out->points.push_back(out->points.back());
      out->path_starts.push_back(static_cast<int>(out->points.size()));
    }
    return Status::OK();
  }

  static bool SameOrBothNaN(double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
  }

  Status ReadPolygons(Geometry* out, bool multi, int64_t* offset);

  std::string_view bytes_;
  bool little_endian_ = true;
  int64_t base_ = 0;  // where the geometry being read starts
  bool dims_known_ = false;
  bool z_ = false, m_ = false;
};

// ESRI's ring area, positive for a clockwise ring: the segments' trapezoids about the first
// vertex, summed with Kahan's compensation.
double RingArea(const Geometry& g, size_t path) {
  const int s = g.path_starts[path], e = g.path_starts[path + 1];
  const double xo = g.points[s].x, yo = g.points[s].y;
  double sum = 0, compensation = 0;
  for (int i = s; i < e; ++i) {
    const Vertex& a = g.points[i];
    const Vertex& b = g.points[i + 1 < e ? i + 1 : s];
    double v = ((b.x - xo) - (a.x - xo)) * ((b.y - yo) + (a.y - yo)) * 0.5;
    double y = v - compensation;
    double t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  return sum;
}

// The sign of the turn p -> q -> r: 1 counter-clockwise, -1 clockwise, 0 none.
int Orientation(const Vertex& p, const Vertex& q, const Vertex& r) {
  double approx = (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x);
  if (std::isnan(approx)) return 0;
#if defined(__SIZEOF_FLOAT128__)
  using Wide = __float128;
#else
  using Wide = long double;
#endif
  Wide det = (Wide(q.x) - Wide(p.x)) * (Wide(r.y) - Wide(p.y)) -
             (Wide(q.y) - Wide(p.y)) * (Wide(r.x) - Wide(p.x));
  return det < 0 ? -1 : det > 0 ? 1 : 0;
}

Status IsClockwise(const Geometry& g, size_t path, bool* clockwise) {
  const int s = g.path_starts[path], e = g.path_starts[path + 1];
  int high = -1;
  double hx = -INFINITY, hy = -INFINITY;
  for (int i = s; i < e; ++i) {
    const Vertex& v = g.points[i];
    if (hy < v.y || (hy == v.y && hx < v.x)) {
      high = i;
      hx = v.x;
      hy = v.y;
    }
  }
  if (high < 0) return Status::Invalid("a polygon ring has no vertex with a y coordinate");
  const Vertex& q = g.points[high];
  const Vertex& p = g.points[high == s ? e - 1 : high - 1];
  const Vertex& r = g.points[high == e - 1 ? s : high + 1];
  int o = Orientation(p, q, r);
  *clockwise = o == 0 ? RingArea(g, path) > 0 : o == -1;
  return Status::OK();
}

// Reverses a ring keeping its first vertex.
void ReverseRing(Geometry* g, size_t path) {
  auto first = g->points.begin() + g->path_starts[path] + 1;
  auto last = g->points.begin() + g->path_starts[path + 1];
  if (first < last) std::reverse(first, last);
}

Status WkbReader::ReadPolygons(Geometry* out, bool multi, int64_t* offset) {
  int32_t polygons = 1;
  *offset = 0;
  if (multi) {
    FJORD_RETURN_NOT_OK(Int(5, &polygons));
    *offset = 9;
  }
  // Java marks the first ring of each polygon by its index among all rings, empty ones included,
  // in a table of one entry per non-empty ring plus one; marks beyond it are lost.
  std::vector<int64_t> marked;
  int64_t ring_index_end = 0;
  for (int32_t ip = 0; ip < polygons; ++ip) {
    *offset += 5;
    int32_t rings;
    FJORD_RETURN_NOT_OK(Int(*offset, &rings));
    *offset += 4;
    const int64_t first_ring = ring_index_end;
    ring_index_end = first_ring + rings;
    for (int64_t ring = first_ring; ring < ring_index_end; ++ring) {
      int32_t n;
      FJORD_RETURN_NOT_OK(Int(*offset, &n));
      *offset += 4;
      if (n == 0) continue;
      FJORD_RETURN_NOT_OK(CheckCount(*offset, n, VertexSize()));
      if (out->path_starts.empty()) out->path_starts.push_back(0);
      const size_t start = out->points.size();
      for (int32_t k = 0; k < n; ++k) {
        Vertex v;
        FJORD_RETURN_NOT_OK(ReadVertex(offset, &v));
        out->points.push_back(v);
      }
      if (n == 1) {
        out->points.push_back(out->points.back());
      } else if (n > 2) {
        const Vertex& a = out->points[start];
        const Vertex& b = out->points.back();
        if (SameOrBothNaN(a.x, b.x) && SameOrBothNaN(a.y, b.y) &&
            (!z_ || SameOrBothNaN(a.z, b.z)) && (!m_ || SameOrBothNaN(a.m, b.m))) {
          out->points.pop_back();
        }
      }
      out->path_starts.push_back(static_cast<int>(out->points.size()));
      if (ring == first_ring) marked.push_back(ring);
    }
  }
  const size_t paths = out->PathCount();
  std::vector<bool> first_of_polygon(paths, false);
  for (int64_t ring : marked) {
    if (ring > static_cast<int64_t>(paths)) {
      return Status::Invalid("a polygon after empty rings of the WKB value (Java fails on it)");
    }
    if (ring < static_cast<int64_t>(paths)) first_of_polygon[ring] = true;
  }
  out->read_starts = first_of_polygon;
  for (size_t i = 0; i < paths; ++i) {
    bool clockwise;
    FJORD_RETURN_NOT_OK(IsClockwise(*out, i, &clockwise));
    if (clockwise != first_of_polygon[i]) ReverseRing(out, i);
  }
  return Status::OK();
}

// ---- writing ----

Status AppendNumber(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("null");
  } else if (std::isinf(v)) {
    return Status::Invalid("a coordinate is infinite, which Java's GeoJSON text cannot hold");
  } else if (v == 0) {
    out->push_back('0');
  } else if (std::trunc(v) == v && std::fabs(v) < 1e17) {
    out->append(std::to_string(static_cast<int64_t>(v)));
  } else {
    out->append(JavaDoubleText(v));
  }
  return Status::OK();
}

Status AppendVertex(const Geometry& g, const Vertex& v, std::string* out) {
  out->push_back('[');
  FJORD_RETURN_NOT_OK(AppendNumber(v.x, out));
  out->push_back(',');
  FJORD_RETURN_NOT_OK(AppendNumber(v.y, out));
  if (g.has_z) {
    out->push_back(',');
    FJORD_RETURN_NOT_OK(AppendNumber(v.z, out));
  }
  if (g.has_m) {
    out->push_back(',');
    FJORD_RETURN_NOT_OK(AppendNumber(v.m, out));
  }
  out->push_back(']');
  return Status::OK();
}

// A path as a line (from its first vertex on) or as a ring (first vertex, then backwards, then
// the first again).
Status AppendPath(const Geometry& g, size_t path, bool ring, std::string* out) {
  const int s = g.path_starts[path], e = g.path_starts[path + 1];
  out->push_back('[');
  if (ring) {
    FJORD_RETURN_NOT_OK(AppendVertex(g, g.points[s], out));
    for (int i = e - 1; i > s; --i) {
      out->push_back(',');
      FJORD_RETURN_NOT_OK(AppendVertex(g, g.points[i], out));
    }
    out->push_back(',');
    FJORD_RETURN_NOT_OK(AppendVertex(g, g.points[s], out));
  } else {
    for (int i = s; i < e; ++i) {
      if (i > s) out->push_back(',');
      FJORD_RETURN_NOT_OK(AppendVertex(g, g.points[i], out));
    }
  }
  out->push_back(']');
  return Status::OK();
}

// Which rings start a polygon: those with the area sign of the first ring.
std::vector<bool> PolygonStarts(const Geometry& g) {
  std::vector<bool> starts(g.PathCount(), false);
  double first_sign = 1;
  for (size_t i = 0; i < starts.size(); ++i) {
    double area = RingArea(g, i);
    if (i == 0) first_sign = area > 0 ? 1 : -1;
    starts[i] = area * first_sign > 0;
  }
  return starts;
}

// The first ring of `g` and the rings up to the next polygon's as read (Java's
// OGCPolygon(polygon, 0), a copy without Z or M when there is no ring).
Geometry FirstPolygon(const Geometry& g) {
  Geometry out = g;
  if (g.PathCount() == 0) {
    out.has_z = out.has_m = false;
    return out;
  }
  size_t keep = 1;
  while (keep < g.read_starts.size() && !g.read_starts[keep]) ++keep;
  out.path_starts.resize(keep + 1);
  out.points.resize(static_cast<size_t>(out.path_starts.back()));
  return out;
}

// `starts`: the rings that begin a polygon, as read (a MultiPolygon) or recomputed from the ring
// areas (a Polygon, which Java copies first).
Status AppendPolygons(const Geometry& g, const std::vector<bool>& starts, bool prefer_multi,
                      std::string* type, std::string* out) {
  size_t polygons = 0;
  for (bool s : starts) polygons += s ? 1 : 0;
  if (!g.points.empty() && polygons == 0) {
    return Status::Invalid("no ring of the polygon has an area (Java: corrupted geometry)");
  }
  const size_t paths = g.PathCount();
  auto ring_group = [&](size_t from, size_t to) -> Status {
    out->push_back('[');
    for (size_t i = from; i < to; ++i) {
      if (i > from) out->push_back(',');
      FJORD_RETURN_NOT_OK(AppendPath(g, i, true, out));
    }
    out->push_back(']');
    return Status::OK();
  };
  if (!prefer_multi && polygons <= 1) {
    *type = "Polygon";
    if (g.points.empty()) return out->append("[]"), Status::OK();
    return ring_group(0, paths);
  }
  *type = "MultiPolygon";
  out->push_back('[');
  if (!g.points.empty()) {
    size_t begin = 0, end = 1;
    for (size_t k = 0; k < polygons; ++k) {
      if (k > 0) {
        begin = end;
        ++end;
        out->push_back(',');
      }
      while (end < paths && !starts[end]) ++end;
      FJORD_RETURN_NOT_OK(ring_group(begin, end));
    }
  }
  out->push_back(']');
  return Status::OK();
}

Status AppendLines(const Geometry& g, bool prefer_multi, std::string* type, std::string* out) {
  const size_t paths = g.PathCount();
  if (!prefer_multi && paths <= 1) {
    *type = "LineString";
    if (paths == 0) return out->append("[]"), Status::OK();
    return AppendPath(g, 0, false, out);
  }
  *type = "MultiLineString";
  out->push_back('[');
  for (size_t i = 0; i < paths; ++i) {
    if (i > 0) out->push_back(',');
    FJORD_RETURN_NOT_OK(AppendPath(g, i, false, out));
  }
  out->push_back(']');
  return Status::OK();
}

// The type and coordinates of a geometry other than a collection.
Status AppendCoordinates(const Geometry& read, bool top, std::string* type, std::string* out) {
  // Java writes a LineString and a Polygon from a copy of its first part.
  Geometry copy;
  if (read.ogc_type == 3) copy = FirstPolygon(read);
  if (read.ogc_type == 2 && read.PathCount() == 0) {
    copy = read;
    copy.has_z = copy.has_m = false;
  }
  const Geometry& g = copy.ogc_type != 0 ? copy : read;
  if (g.has_m && !g.has_z) {
    return Status::Invalid("a geometry with M but without Z (Java cannot write it as GeoJSON)");
  }
  switch (g.ogc_type) {
    case 1: {
      *type = "Point";
      const Vertex& v = g.points[0];
      if (std::isnan(v.x) || std::isnan(v.y)) return out->append("[]"), Status::OK();
      return AppendVertex(g, v, out);
    }
    case 4:
      *type = "MultiPoint";
      out->push_back('[');
      for (size_t i = 0; i < g.points.size(); ++i) {
        if (i > 0) out->push_back(',');
        FJORD_RETURN_NOT_OK(AppendVertex(g, g.points[i], out));
      }
      out->push_back(']');
      return Status::OK();
    case 2:
    case 5:
      return AppendLines(g, top && g.ogc_type == 5, type, out);
    case 3:
      return AppendPolygons(g, PolygonStarts(g), false, type, out);
    default:
      return AppendPolygons(g, g.read_starts, top, type, out);
  }
}

Status AppendCollectionParts(const Geometry& g, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < g.parts.size(); ++i) {
    if (i > 0) out->push_back(',');
    const Geometry& part = g.parts[i];
    if (part.ogc_type == 7) {
      out->append(R"({"type":"GeometryCollection","geometries":)");
      FJORD_RETURN_NOT_OK(AppendCollectionParts(part, out));
      out->append(R"(,"crs":{"type":"name","properties":{"name":"EPSG:4326"}}})");
    } else {
      std::string type, coordinates;
      FJORD_RETURN_NOT_OK(AppendCoordinates(part, false, &type, &coordinates));
      out->append(R"({"type":")" + type + R"(","coordinates":)" + coordinates + "}");
    }
  }
  out->push_back(']');
  return Status::OK();
}

}  // namespace

Result<std::string> WkbToGeoJson(std::string_view wkb) {
  Geometry g;
  FJORD_RETURN_NOT_OK(WkbReader(wkb).Read(&g));
  std::string out;
  if (g.ogc_type == 7) {
    out = R"({"geometries":)";
    FJORD_RETURN_NOT_OK(AppendCollectionParts(g, &out));
    out += R"(,"type":"GeometryCollection","srid":0})";
    return out;
  }
  std::string type, coordinates;
  FJORD_RETURN_NOT_OK(AppendCoordinates(g, true, &type, &coordinates));
  return R"({"coordinates":)" + coordinates + R"(,"type":")" + type + R"(","srid":0})";
}

Result<std::string> MySqlGeometryToWkb(std::string_view value) {
  if (value.size() < 4) {
    return Status::Invalid("a MySQL geometry value has ", value.size(),
                           " bytes, fewer than its 4-byte SRID");
  }
  const bool has_srid = value[0] != 0 || value[1] != 0 || value[2] != 0 || value[3] != 0;
  if (!has_srid) return std::string(value.substr(4));
  if (value.size() < 9) {
    return Status::Invalid("a MySQL geometry value with an SRID has ", value.size(),
                           " bytes, too few for a WKB header");
  }
  std::string wkb(value);
  wkb.replace(0, 5, value.substr(4, 5));
  wkb.replace(5, 4, value.substr(0, 4));
  // the EWKB SRID flag on the type's high byte
  size_t flag = wkb[0] == 0 ? 1 : 4;
  wkb[flag] = static_cast<char>(static_cast<uint8_t>(wkb[flag]) + 32);
  return wkb;
}

}  // namespace fjord::cdc
