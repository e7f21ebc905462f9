// Fjord's C++ quickstart: create a primary-key table in a warehouse, write a batch of rows,
// commit it, upsert one row, and read the table back through the Arrow C Stream interface.
//
//   quickstart <warehouse-directory>

#include <arrow/api.h>

#include <iostream>

#include "fjord/arrow.h"
#include "fjord/fjord.h"

namespace {

// Exits with the error when `st` is not OK.
void Check(const fjord::Status& st) {
  if (!st.ok()) {
    std::cerr << "quickstart: " << st.ToString() << "\n";
    std::exit(1);
  }
}
template <typename T>
T Check(fjord::Result<T> result) {
  Check(result.status());
  return *std::move(result);
}

// Rows of (id INT, name STRING, score DOUBLE) built with Arrow C++.
std::shared_ptr<arrow::RecordBatch> Rows(std::vector<int32_t> ids, std::vector<std::string> names,
                                         std::vector<double> scores) {
  arrow::Int32Builder id;
  arrow::StringBuilder name;
  arrow::DoubleBuilder score;
  if (!id.AppendValues(ids).ok() || !name.AppendValues(names).ok() ||
      !score.AppendValues(scores).ok()) {
    std::exit(1);
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32(), false), arrow::field("name", arrow::utf8()),
                     arrow::field("score", arrow::float64())});
  return arrow::RecordBatch::Make(
      schema, static_cast<int64_t>(ids.size()),
      {id.Finish().ValueOrDie(), name.Finish().ValueOrDie(), score.Finish().ValueOrDie()});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: quickstart <warehouse-directory>\n";
    return 2;
  }
  // A warehouse, a database, a table: `id` is the primary key, 2 buckets.
  auto catalog = Check(fjord::Catalog::Open(argv[1]));
  Check(catalog->CreateDatabase("shop", /*ignore_if_exists=*/true));
  fjord::TableSpec spec;
  spec.fields = Check(fjord::ParseColumnList("id INT NOT NULL, name STRING, score DOUBLE"));
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "2"}};
  fjord::TableIdentifier id{"shop", "players"};
  Check(catalog->CreateTable(id, spec));
  auto table = Check(catalog->GetTable(id));

  // Two commits: three rows, then an upsert of id 2. Each is prepared by a writer and committed
  // under (commit user, identifier), so a retry after a crash commits it at most once.
  auto writer = Check(table->NewWrite());
  auto commit = Check(table->NewCommit("quickstart"));
  Check(fjord::WriteBatch(*writer, *Rows({1, 2, 3}, {"ada", "bob", "cy"}, {9.5, 7.0, 8.25})));
  Check(commit->Commit(Check(writer->PrepareCommit(1)), 1).status());
  Check(fjord::WriteBatch(*writer, *Rows({2}, {"bob"}, {9.75})));
  fjord::CommitResult second = Check(commit->Commit(Check(writer->PrepareCommit(2)), 2));
  std::cout << "committed snapshot " << second.snapshot_id.value_or(-1) << "\n";

  // Read the latest snapshot back through the C Stream interface and print it as JSON lines.
  struct ArrowArrayStream stream;
  Check(table->NewRead().OpenStream(&stream));
  struct ArrowSchema schema;
  if (stream.get_schema(&stream, &schema) != 0) return 1;
  auto printer = Check(fjord::RowTextWriter::Make(fjord::RowTextFormat::kJsonLines,
                                                  table->schema().fields, &schema, &std::cout));
  while (true) {
    struct ArrowArray batch;
    if (stream.get_next(&stream, &batch) != 0) {
      std::cerr << "quickstart: " << stream.get_last_error(&stream) << "\n";
      return 1;
    }
    if (batch.release == nullptr) break;  // end of stream
    Check(printer->Write(&batch));
  }
  Check(printer->Finish());
  stream.release(&stream);
  std::cout << printer->rows_written() << " rows\n";
  return 0;
}
