// Where a table keeps its metadata and data files (spec/format.md §1).
#pragma once

#include <cstdint>
#include <string>

namespace fjord {

struct TablePaths {
  std::string root;

  std::string SchemaDir() const { return root + "/schema"; }
  std::string SchemaFile(int64_t id) const { return SchemaDir() + "/schema-" + std::to_string(id); }
  std::string SnapshotDir() const { return root + "/snapshot"; }
  std::string SnapshotFile(int64_t id) const {
    return SnapshotDir() + "/snapshot-" + std::to_string(id);
  }
  std::string LatestHint() const { return SnapshotDir() + "/LATEST"; }
  std::string EarliestHint() const { return SnapshotDir() + "/EARLIEST"; }
  std::string ManifestDir() const { return root + "/manifest"; }
  std::string ManifestFile(const std::string& name) const { return ManifestDir() + "/" + name; }
  std::string IndexDir() const { return root + "/index"; }
  std::string IndexFile(const std::string& name) const { return IndexDir() + "/" + name; }
  std::string TagDir() const { return root + "/tag"; }
  std::string TagFile(const std::string& name) const { return TagDir() + "/tag-" + name; }
  std::string ConsumerDir() const { return root + "/consumer"; }
};

}  // namespace fjord
