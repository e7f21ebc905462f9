#include "fjord/table/commit/abort.h"

#include <set>
#include <string>

#include "fjord/meta/partition_path.h"
#include "fjord/meta/table_paths.h"

namespace fjord {

Status AbortCommitMessages(FileIO* io, const std::string& root, const TableSchema& schema,
                           const CoreOptions& options, const std::vector<CommitMessage>& messages) {
  const TablePaths paths{root};
  Status first;
  auto remove = [&](const std::string& path) {
    Status st = io->Delete(path);
    if (first.ok() && !st.ok()) first = st.WithContext("aborting commit messages");
  };
  for (const CommitMessage& m : messages) {
    FJORD_ASSIGN_OR_RAISE(std::string bucket_dir,
                          BucketPath(root, schema, options, m.partition, m.bucket));
    std::set<std::string> inputs;  // of the compaction: committed files
    for (const DataFileMeta& f : m.compact_before) inputs.insert(f.file_name);
    for (const auto* files :
         {&m.new_files, &m.changelog_files, &m.compact_after, &m.compact_changelog_files}) {
      for (const DataFileMeta& f : *files) {
        if (files == &m.compact_after && inputs.count(f.file_name) > 0) continue;
        remove(f.external_path ? *f.external_path : bucket_dir + "/" + f.file_name);
      }
    }
    for (const auto* files : {&m.new_index_files, &m.compact_new_index_files}) {
      for (const IndexFileMeta& f : *files) {
        remove(f.external_path ? *f.external_path : paths.IndexFile(f.file_name));
      }
    }
  }
  return first;
}

}  // namespace fjord
