// Rewrites every ORC manifest list, manifest file and index manifest of a table (manifest.format =
// orc) in place with Fjord's ORC manifest writers (java_orc_manifest_compat.py then has Java read
// the result):
//
//   fjord_rewrite_orc_manifests TABLE_DIR [KEY=VALUE...]
//
// KEY=VALUE are extra table options for the writer (manifest.compression, orc.compress, ...);
// manifest.format is always orc. Each file keeps its name; what our readers read is re-encoded.
// Manifest files and index manifests are written first, and each manifest list's `_FILE_SIZE`
// is set to the new size of the manifest it names. Prints "NAME<TAB>SIZE" for every rewritten
// manifest list (snapshot and tag files record those sizes). Exit 1 with a message on the first
// error.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/manifest_writer.h"

namespace fjord {
namespace {

Status Run(const std::string& table, std::map<std::string, std::string> table_options) {
  table_options["manifest.format"] = "orc";
  FJORD_ASSIGN_OR_RAISE(ManifestWriterOptions options,
                        ManifestWriterOptions::FromTableOptions(table_options));
  std::shared_ptr<FileIO> io = FileIO::Local();
  std::string dir = JoinPath(table, "manifest");
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> files, io->List(dir));
  std::vector<std::string> lists, manifests, indexes;
  for (const FileStatus& f : files) {
    if (f.is_dir) continue;
    std::string name = BaseName(f.path);
    if (name.rfind("manifest-list-", 0) == 0) {
      lists.push_back(f.path);
    } else if (name.rfind("index-manifest-", 0) == 0) {
      indexes.push_back(f.path);
    } else if (name.rfind("manifest-", 0) == 0) {
      manifests.push_back(f.path);
    }
  }
  std::map<std::string, int64_t> manifest_sizes;
  for (const std::string& path : manifests) {
    FJORD_ASSIGN_OR_RAISE(auto entries, ReadManifestFile(io.get(), path, "orc"));
    FJORD_RETURN_NOT_OK(io->Delete(path));
    FJORD_ASSIGN_OR_RAISE(int64_t size, WriteManifestFile(io.get(), path, entries, options));
    manifest_sizes[BaseName(path)] = size;
  }
  for (const std::string& path : indexes) {
    FJORD_ASSIGN_OR_RAISE(auto entries, ReadIndexManifest(io.get(), path, "orc"));
    FJORD_RETURN_NOT_OK(io->Delete(path));
    FJORD_RETURN_NOT_OK(WriteIndexManifest(io.get(), path, entries, options).status());
  }
  for (const std::string& path : lists) {
    FJORD_ASSIGN_OR_RAISE(auto metas, ReadManifestList(io.get(), path, "orc"));
    for (ManifestFileMeta& m : metas) {
      auto it = manifest_sizes.find(m.file_name);
      if (it != manifest_sizes.end()) m.file_size = it->second;
    }
    FJORD_RETURN_NOT_OK(io->Delete(path));
    FJORD_ASSIGN_OR_RAISE(int64_t size, WriteManifestList(io.get(), path, metas, options));
    std::printf("%s\t%lld\n", BaseName(path).c_str(), static_cast<long long>(size));
  }
  return Status::OK();
}

}  // namespace
}  // namespace fjord

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TABLE_DIR [KEY=VALUE...]\n", argv[0]);
    return 2;
  }
  std::map<std::string, std::string> options;
  for (int i = 2; i < argc; ++i) {
    std::string kv = argv[i];
    size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "bad option '%s' (want KEY=VALUE)\n", argv[i]);
      return 2;
    }
    options[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  fjord::Status st = fjord::Run(argv[1], options);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
