// `fjord tail`: a streaming read of a table's changes, printed as they are planned.

#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "cli_util.h"
#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;

void OnStopSignal(int) { g_stop = 1; }

struct TailArgs {
  std::string table;
  std::vector<std::string> options;  // key=value
  std::string consumer_id;
  bool follow = false;
  std::optional<int64_t> max_snapshots;
  std::optional<int64_t> until_snapshot;
  std::string columns;
  std::string where;
  std::string partition;
  std::string format = "jsonl";
  bool markers = false;
};

// Sleeps `interval`, waking early when a stop signal arrives.
void SleepUnlessStopped(std::chrono::milliseconds interval) {
  auto until = std::chrono::steady_clock::now() + interval;
  while (!g_stop && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
        std::chrono::milliseconds(50), std::chrono::duration_cast<std::chrono::milliseconds>(
                                           until - std::chrono::steady_clock::now())));
  }
}

Status RunTail(const TailArgs& args) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(args.table));
  FJORD_ASSIGN_OR_RAISE(RowTextFormat format, ParseRowTextFormat(args.format));
  FJORD_ASSIGN_OR_RAISE(auto options, ParseKeyValues(args.options));
  if (!args.consumer_id.empty()) options["consumer-id"] = args.consumer_id;
  FJORD_ASSIGN_OR_RAISE(PartitionSpec partition, ParsePartitionSpec(args.partition));
  ReadBuilder read = table->NewRead();
  read.WithOptions(options).Where(args.where).Select(SplitList(args.columns));
  read.Partition(std::move(partition));
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<StreamReader> stream, read.OpenStreaming());

  std::vector<DataField> fields;
  DataField kind;
  kind.name = "_row_kind";
  kind.type = DataType::String(false);
  fields.push_back(kind);
  for (const DataField& f : stream->fields()) fields.push_back(f);
  struct ArrowSchema schema;
  FJORD_RETURN_NOT_OK(stream->ExportSchema(&schema));
  FJORD_ASSIGN_OR_RAISE(auto writer, RowTextWriter::Make(format, fields, &schema, &std::cout));

  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  int64_t steps = 0;
  while (!g_stop) {
    if (args.max_snapshots && steps >= *args.max_snapshots) break;
    if (args.until_snapshot && stream->Checkpoint() &&
        *stream->Checkpoint() > *args.until_snapshot) {
      break;
    }
    FJORD_ASSIGN_OR_RAISE(StreamStep step, stream->NextStep());
    if (step.kind == StreamStep::Kind::kEnd) break;
    if (step.kind == StreamStep::Kind::kWait) {
      if (!args.follow) break;
      std::cout.flush();
      SleepUnlessStopped(stream->discovery_interval());
      continue;
    }
    ++steps;
    if (args.markers && format == RowTextFormat::kJsonLines) {
      std::cout << "{\"_snapshot\":" << *step.snapshot_id
                << ",\"_full\":" << (step.full ? "true" : "false") << "}\n";
    }
    // A step is printed whole, also after a stop signal, so that the recorded progress covers
    // exactly what was printed.
    while (true) {
      struct ArrowArray batch;
      FJORD_RETURN_NOT_OK(stream->Next(&batch));
      if (batch.release == nullptr) break;
      FJORD_RETURN_NOT_OK(writer->Write(&batch));
    }
    std::cout.flush();
    if (!std::cout) return Status::IOError("writing the changes to standard output failed");
    FJORD_RETURN_NOT_OK(stream->CommitProgress());
  }
  FJORD_RETURN_NOT_OK(writer->Finish());
  std::cout.flush();
  return Status::OK();
}

}  // namespace

void AddTailCommand(CLI::App* app, Handler* handler) {
  auto args = std::make_shared<TailArgs>();
  auto* tail = app->add_subcommand(
      "tail", "Print a table's changes as a streaming read sees them, each with its _row_kind");
  tail->add_option("table", args->table, "Table directory")->required();
  tail->add_option("-o,--option", args->options,
                   "Read option key=value (scan.mode, scan.snapshot-id, scan.timestamp-millis, "
                   "continuous.discovery-interval, ...); repeatable");
  tail->add_option("--consumer-id", args->consumer_id,
                   "Start where this consumer stopped and record its progress");
  tail->add_flag("--follow", args->follow,
                 "Keep polling for new snapshots until interrupted (SIGINT/SIGTERM)");
  tail->add_option("--max-snapshots", args->max_snapshots,
                   "Stop after this many snapshots (the starting read counts as one)")
      ->check(CLI::PositiveNumber);
  tail->add_option("--until-snapshot", args->until_snapshot,
                   "Stop once the changes of this snapshot have been printed");
  tail->add_option("--columns", args->columns, "Comma-separated columns to print");
  tail->add_option("--where", args->where, "Filter, e.g. \"id > 5 AND name = 'x'\"");
  AddPartitionOption(tail, &args->partition, "Only the partitions matching");
  tail->add_option("--format", args->format, "jsonl (canonical), csv or table")
      ->check(CLI::IsMember({"jsonl", "csv", "table"}));
  tail->add_flag("--markers", args->markers,
                 "jsonl: a line {\"_snapshot\":N,\"_full\":B} before the changes of each snapshot");
  tail->callback([handler, args] { SetHandler(handler, [args] { return RunTail(*args); }); });
}

}  // namespace fjord::cli
