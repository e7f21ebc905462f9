// CommitMessages: the public, shareable form of a writer's commit messages.

#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/commit_message_codec.h"
#include "fjord/table_write.h"

namespace fjord {

CommitMessages::CommitMessages()
    : messages_(std::make_shared<const std::vector<CommitMessage>>()) {}
CommitMessages::CommitMessages(std::vector<CommitMessage> messages)
    : messages_(std::make_shared<const std::vector<CommitMessage>>(std::move(messages))) {}
CommitMessages::~CommitMessages() = default;
CommitMessages::CommitMessages(const CommitMessages&) = default;
CommitMessages& CommitMessages::operator=(const CommitMessages&) = default;

Result<std::string> CommitMessages::Serialize() const { return EncodeCommitMessages(*messages_); }

Result<CommitMessages> CommitMessages::Deserialize(std::string_view bytes,
                                                   std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(std::vector<CommitMessage> messages, DecodeCommitMessages(bytes, source));
  return CommitMessages(std::move(messages));
}

void CommitMessages::Append(const CommitMessages& other) {
  if (other.empty()) return;
  std::vector<CommitMessage> all = *messages_;
  all.insert(all.end(), other.messages_->begin(), other.messages_->end());
  messages_ = std::make_shared<const std::vector<CommitMessage>>(std::move(all));
}

size_t CommitMessages::size() const { return messages_->size(); }

int64_t CommitMessages::new_row_count() const {
  int64_t rows = 0;
  for (const CommitMessage& m : *messages_) {
    for (const DataFileMeta& f : m.new_files) rows += f.row_count;
  }
  return rows;
}

int64_t CommitMessages::new_file_count() const {
  int64_t files = 0;
  for (const CommitMessage& m : *messages_) files += static_cast<int64_t>(m.new_files.size());
  return files;
}

const std::vector<CommitMessage>& CommitMessages::messages() const { return *messages_; }

}  // namespace fjord
