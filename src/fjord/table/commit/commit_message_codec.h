// Commit messages as bytes, so that the writers that prepare a commit and the committer that
// makes the snapshot can be different processes (issue 5: `fjord write --prepare-to` then
// `fjord commit`). Fjord's own format, not Java's CommitMessageSerializer: it is only exchanged
// between Fjord processes.
//
// Layout (integers big-endian):
//
//   magic    8 bytes  "FJCOMMIT"
//   version  u16      kCommitMessageFormatVersion (1)
//   length   u64      number of body bytes that follow
//   body     records: tag u16, length u32, value
//   crc      u32      CRC-32 (zlib's) of everything before it
//
// Body records:
//   1  data files: an Avro manifest container (manifest_writer.h, the 1.4 schema, no compression)
//      holding one ManifestEntry per data file of all messages, in reference order; the entry's
//      partition, bucket and total buckets repeat its message's, its kind is ADD for files that
//      become live and DELETE for files that stop being live (informative; checked on decode).
//   2  message: nested records (tag u16, length u32, value) of one CommitMessage:
//        1 partition      stored BinaryRow bytes     (required)
//        2 bucket         i32                        (required)
//        3 total buckets  i32                        (required)
//        4 new files                first u32, count u32: a range of the data-file entries
//        5 deleted files            first u32, count u32
//        6 changelog files          first u32, count u32 (entries of kind ADD)
//        7 compact before           first u32, count u32 (entries of kind DELETE)
//        8 compact after            first u32, count u32 (entries of kind ADD)
//        9 compact changelog files  first u32, count u32 (entries of kind ADD)
//       10 new index files          first u32, count u32: a range of the index-file entries (ADD)
//       11 deleted index files      first u32, count u32 (DELETE)
//       12 compact new index files  first u32, count u32 (ADD)
//       13 compact deleted index    first u32, count u32 (DELETE)
//      A file list is written only when it is not empty.
//   3  index files: an Avro index-manifest container (the 1.4 schema, no compression) holding one
//      IndexManifestEntry per index file of all messages, in reference order, partition and
//      bucket repeating its message's; present only when some message has index files.
//
// How to add a field: give it a new tag and write it only when it is not empty (a file list: one
// more row of kFileLists / kIndexLists in the .cc). A file without the new content stays readable
// by an older Fjord; a file with it is refused by the older Fjord ("unknown field tag"), never
// read with the field silently dropped. Bump the version only for a change an old reader would
// misread (a new encoding of an existing field).
//
// Decoding checks everything before returning anything: magic, version, length, checksum, every
// record's bounds, required fields, duplicate tags, file ranges (in bounds, each data file used
// exactly once, index files likewise, entry matching its message). Errors are Invalid (not a
// commit-message file, or a version this Fjord does not read) or Corruption (truncated or damaged),
// prefixed with `source`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"
#include "fjord/table/commit/commit.h"

namespace fjord {

inline constexpr uint16_t kCommitMessageFormatVersion = 1;

// The bytes of `messages`. Deterministic: the same messages give the same bytes. Invalid when a
// file's metadata cannot be represented in a manifest (an int field out of range).
Result<std::string> EncodeCommitMessages(const std::vector<CommitMessage>& messages);

// The messages `data` holds. `source` (a file name, say) prefixes errors.
Result<std::vector<CommitMessage>> DecodeCommitMessages(
    std::string_view data, std::string_view source = "commit messages");

}  // namespace fjord
