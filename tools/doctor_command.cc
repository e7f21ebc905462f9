// `fjord doctor <table> [--json] [--html FILE]`: what usually goes wrong with a table, each
// finding with its fix (fjord/table_doctor.h). Read-only.

#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "doctor_report.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct DoctorArgs {
  std::string table;
  bool json = false;
  std::string html;
};

Status RunDoctor(const DoctorArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(DoctorReport report, DiagnoseTable(*table));
  if (!a.html.empty()) {
    std::ofstream out(a.html, std::ios::binary | std::ios::trunc);
    out << DoctorReportHtml(report);
    out.close();
    if (!out) return Status::IOError("cannot write ", a.html);
  }
  if (a.json) {
    std::cout << DoctorReportJson(report).dump(2) << "\n";
  } else {
    std::cout << DoctorReportText(report);
  }
  return Status::OK();
}

}  // namespace

void AddDoctorCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<DoctorArgs>();
  auto* cmd = app->add_subcommand(
      "doctor",
      "Report what usually goes wrong with a table (small files, sorted runs, expiration, "
      "orphans, consumers, skew), each with its fix; writes nothing to the table");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_flag("--json", a->json, "Print the report as JSON");
  cmd->add_option("--html", a->html, "Also write the report as one self-contained HTML page");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunDoctor(*a); }); });
}

}  // namespace fjord::cli
